"""The LCM driver: claims an op occurrence and runs it forward or back.

What runs is decided by the op's state: STARTING or PROCESSING (a retry) run
the operation forward, ROLLING_BACK runs its rollback. Other states are
final or wait for a user (FAILED_TEMP): nothing runs.
"""

from __future__ import annotations

import contextlib
import datetime
import logging
import threading
import time
from collections.abc import Iterator

from vnfm.clients import deadlines
from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import rows
from vnfm.drivers.infra.base import InfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.lcm import cancel
from vnfm.lcm import change_ext_conn
from vnfm.lcm import change_flavour
from vnfm.lcm import change_vnfpkg
from vnfm.lcm import finish
from vnfm.lcm import heal
from vnfm.lcm import inputs
from vnfm.lcm import instantiate
from vnfm.lcm import modify_info
from vnfm.lcm import operate
from vnfm.lcm import scale
from vnfm.lcm import scale_to_level
from vnfm.lcm import terminate
from vnfm.lcm import verify
from vnfm.lcm.operation import Operation
from vnfm.lcm.run import LeaseLost
from vnfm.lcm.run import OpRun
from vnfm.objects import notifications
from vnfm.objects.states import ACTIVE_OP_STATES
from vnfm.objects.states import OpEvent
from vnfm.objects.states import OpState
from vnfm.objects.states import next_state

LOG = logging.getLogger(__name__)

OPERATIONS: dict[str, Operation] = {
    op.operation: op
    for op in (
        instantiate.Instantiate(),
        terminate.Terminate(),
        scale.Scale(),
        heal.Heal(),
        modify_info.ModifyInfo(),
        change_vnfpkg.ChangeVnfpkg(),
        scale_to_level.ScaleToLevel(),
        operate.Operate(),
        change_flavour.ChangeFlavour(),
        change_ext_conn.ChangeExtConn(),
    )
}


def lease_until(now: datetime.datetime | None = None) -> datetime.datetime:
    """When a lease taken or renewed now runs out."""
    return (now or timeutils.utcnow()) + datetime.timedelta(
        seconds=CONF.conductor.lease_seconds
    )


class LcmDriver:
    """Runs op occurrences as owner ``host`` (the owner id of this
    conductor process) and knows which ones its workers are running."""

    def __init__(
        self, host: str, infra: InfraDrivers, mgmt: MgmtRunner
    ) -> None:
        self.host = host
        self.infra = infra
        self.mgmt = mgmt
        self._running: set[str] = set()
        self._lock = threading.Lock()

    def running(self) -> list[str]:
        """Ids of the ops a worker of this process is in (only their leases
        are renewed)."""
        with self._lock:
            return list(self._running)

    @contextlib.contextmanager
    def _in_worker(self, op_id: str) -> Iterator[None]:
        with self._lock:
            self._running.add(op_id)
        try:
            yield
        finally:
            with self._lock:
                self._running.discard(op_id)

    def start(self, op_id: str) -> None:
        """Claim the op if nobody has it and run what its state calls for."""
        # A FORCEFUL cancel ends the external call the op waits for.
        with self._in_worker(op_id), deadlines.for_op(op_id):
            self._start(op_id)

    def _start(self, op_id: str) -> None:
        op = db.op_get(op_id)
        if op['owner'] is not None or op['operation_state'] not in {
            s.value for s in ACTIVE_OP_STATES
        }:
            LOG.debug(
                'Op %s is %s, owned by %s: not mine to run',
                op_id,
                op['operation_state'],
                op['owner'],
            )
            return
        if op['operation_state'] == OpState.STARTING.value:
            try:
                run = self.prepare(op)
            except exceptions.VnfmError as e:
                self._abort(op, e)
                return
            claimed = self.claim(op)
            if claimed is None:
                return
            run.op = claimed
        else:
            claimed = self.claim(op)
            if claimed is None:
                return
            try:
                run = self.prepare(claimed)
            except exceptions.VnfmError as e:
                self._fail(claimed, e, claimed.get('work'))
                return
        self.execute(run)

    def claim(self, op: rows.OpRow) -> rows.OpRow | None:
        """Take the op (STARTING becomes PROCESSING); None if another
        conductor got it first."""
        now = timeutils.utcnow()
        values = {'owner': self.host, 'lease_expires_at': lease_until(now)}
        notes = None  # a retry or rollback was reported by the API
        if op['operation_state'] == OpState.STARTING.value:
            values.update(
                operation_state=next_state(
                    OpState.STARTING, OpEvent.START
                ).value,
                state_entered_time=now,
            )
            notes = notifications.for_op(dict(op, **values))
        try:
            return db.op_update(
                op['id'],
                values,
                expected={
                    'owner': None,
                    'operation_state': op['operation_state'],
                },
                notifications=notes,
            )
        except exceptions.ConcurrentUpdate:
            LOG.debug('Op %s was claimed by another conductor', op['id'])
            return None

    def prepare(self, op: rows.OpRow) -> OpRun:
        """Load rows and inputs; VnfmError when the op cannot run."""
        operation = OPERATIONS.get(op['operation'])
        if operation is None:
            raise exceptions.BadRequest(
                f'vnfm does not support {op["operation"]} yet.'
            )
        instance = db.instance_get(op['vnf_instance_id'])
        package = inputs.package_of(instance)
        request = op.get('operation_params') or {}
        stored = inputs.vim_connection_info(instance, request)
        if op['operation'] == 'INSTANTIATE':
            stored = inputs.with_default_vim(stored, instance['project_id'])
        clear = inputs.resolved(stored, instance['project_id'])
        infra: InfraDriver | None = None
        served: dict[str, dict] = {}
        if operation.needs_infra:
            infra, served = self.infra.select(clear)
        run = OpRun(
            host=self.host,
            op=op,
            instance=instance,
            package=package,
            files=inputs.package_files(package),
            vnfd=inputs.vnfd_of(package),
            vim_connection_info=served,
            all_vim_connection_info=clear,
            stored_vim_connection_info=stored,
            infra=infra,
            mgmt=self.mgmt,
            deadline=time.monotonic() + CONF.infra.operation_timeout,
            work=dict(op.get('work') or {}),
        )
        target_id = _target_vnfd_id(op['operation'], request, instance)
        if target_id:
            run.target_package = _target_package(request, target_id)
            run.target_files = inputs.package_files(run.target_package)
            run.target_vnfd = inputs.vnfd_of(run.target_package)
        return run

    def execute(self, run: OpRun) -> None:
        """Run the claimed op to its next resting state."""
        operation = OPERATIONS[run.op['operation']]
        try:
            if run.op['operation_state'] == OpState.ROLLING_BACK.value:
                finish.rolled_back(run, operation.rollback(run))
            else:
                outcome = operation.forward(run)
                verify.check(run, outcome)
                cancel.check(run.op['id'], 'before completing')
                finish.complete(run, outcome)
                operation.after_commit(run)
        except LeaseLost as e:
            LOG.warning(
                'Op %s: this conductor (%s) lost it: %s',
                run.op['id'],
                self.host,
                e,
            )
        except exceptions.VnfmError as e:
            self._fail(run.op, e, run.work)

    def record_crash(self, op_id: str, error: BaseException) -> None:
        """An unexpected error ended a run: FAILED_TEMP (or ROLLED_BACK if
        it was never claimed), with a detail that hides internals."""
        failure = exceptions.OperationFailed(
            f'Internal error in conductor {self.host} '
            f'({type(error).__name__}); see its log for op {op_id}.'
        )
        op = db.op_get(op_id)
        if op['owner'] == self.host:
            self._fail(op, failure, None)
        elif op['owner'] is None and op['operation_state'] == 'STARTING':
            self._abort(op, failure)

    def _fail(
        self, op: rows.OpRow, error: exceptions.VnfmError, work: dict | None
    ) -> None:
        error = cancel.as_cancelled(op['id'], error)
        try:
            finish.fail(op, self.host, error, work)
        except LeaseLost as e:
            LOG.warning(
                'Op %s: lost before recording its failure (%s): %s',
                op['id'],
                error.detail,
                e,
            )

    def _abort(self, op: rows.OpRow, error: exceptions.VnfmError) -> None:
        try:
            finish.abort(op, error)
        except LeaseLost:
            LOG.debug('Op %s was claimed meanwhile; not aborted', op['id'])


def _target_vnfd_id(
    operation: str, request: dict, instance: rows.InstanceRow
) -> str | None:
    if operation == 'CHANGE_VNFPKG':
        return request.get('vnfdId')
    if operation == 'MODIFY_INFO':
        vnfd_id = request.get('vnfdId')
        if request.get('vnfPkgId'):
            vnfd_id = db.package_get(request['vnfPkgId'])['vnfd_id']
        if vnfd_id not in (None, instance['vnfd_id']):
            return vnfd_id
    return None


def _target_package(request: dict, vnfd_id: str) -> rows.PackageRow:
    if request.get('vnfPkgId'):
        return db.package_get(request['vnfPkgId'])
    return inputs.package_by_vnfd_id(vnfd_id)
