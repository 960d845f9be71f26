"""One run of an op occurrence by the conductor that holds its lease.

``OpRun`` carries the rows and inputs of the op and records progress in the
op's ``work`` column, so a retry skips the steps already done and a rollback
knows what ran. Every write is a compare-and-set on (owner, state): when
this conductor has lost the op (its lease expired and another conductor
marked it FAILED_TEMP) the write fails with ``LeaseLost`` and the run stops.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.db import api as db
from vnfm.db import rows
from vnfm.drivers.infra.base import InfraDriver
from vnfm.drivers.mgmt import base as mgmt_base
from vnfm.drivers.mgmt import runner as mgmt_runner
from vnfm.drivers.package_files import PackageFiles
from vnfm.lcm import cancel
from vnfm.objects import op_occ as op_view
from vnfm.objects import vim as vim_obj
from vnfm.objects import vnf_instance as instance_view

LOG = logging.getLogger(__name__)

DONE, STARTED = 'done', 'started'


def request_of(op: Mapping[str, Any]) -> dict:
    """The LCM request of an op row with the secrets of its
    additionalParams unsealed (its vimConnectionInfo stays sealed)."""
    request = op.get('operation_params') or {}
    if isinstance(request.get('additionalParams'), dict):
        return dict(
            request,
            additionalParams=crypto.unseal_params(request['additionalParams']),
        )
    return request


def instantiate_request(instance_id: str) -> dict:
    """The request of the instance's last completed instantiation
    (additionalParams in clear); {} if none."""
    done = db.op_list(
        {
            'vnf_instance_id': instance_id,
            'operation': 'INSTANTIATE',
            'operation_state': 'COMPLETED',
        }
    )
    return request_of(done[-1]) if done else {}


class LeaseLost(Exception):
    """Another conductor took the op over; this run must stop quietly."""


@dataclasses.dataclass
class OpRun:
    """The op being run and everything it needs."""

    host: str
    op: rows.OpRow
    instance: rows.InstanceRow
    package: rows.PackageRow
    files: PackageFiles
    vnfd: dict
    vim_connection_info: dict[str, dict]
    infra: InfraDriver | None
    mgmt: mgmt_runner.MgmtRunner
    deadline: float
    # CHANGE_VNFPKG / MODIFY_INFO with a new vnfdId: the target package.
    target_package: rows.PackageRow | None = None
    target_files: PackageFiles | None = None
    target_vnfd: dict | None = None
    # vim_connection_info: the entries the infra driver serves, in clear;
    # all_...: every entry in clear (for hooks); stored_...: the instance's
    # with the request's merged in, sealed, as the instance will keep it.
    all_vim_connection_info: dict = dataclasses.field(default_factory=dict)
    stored_vim_connection_info: dict = dataclasses.field(default_factory=dict)
    work: dict = dataclasses.field(default_factory=dict)

    @property
    def request(self) -> dict:
        """The LCM request (operationParams), additionalParams in clear."""
        return request_of(self.op)

    @property
    def request_view(self) -> dict:
        """The request as hooks see it: its vimConnectionInfo masked (the
        stored copy is sealed; hooks get the clear entries separately)."""
        request = self.request
        if request.get('vimConnectionInfo') is None:
            return request
        return dict(
            request,
            vimConnectionInfo=crypto.mask_vim_connection_info(
                request['vimConnectionInfo']
            ),
        )

    @property
    def flavour_id(self) -> str | None:
        """The instantiated flavour (or the one being instantiated)."""
        info = self.instance.get('instantiated_vnf_info') or {}
        return info.get('flavourId') or self.request.get('flavourId')

    def steps(self) -> dict[str, dict]:
        """Progress by step name: {'state': ..., 'result': ...}."""
        return self.work.setdefault('steps', {})

    def step_state(self, name: str) -> str | None:
        """'done', 'started' (it failed or was cut short) or None."""
        return self.steps().get(name, {}).get('state')

    def save_work(self, extra: dict | None = None) -> None:
        """Persist ``work`` (and ``extra`` op columns); LeaseLost if the op
        is no longer ours."""
        try:
            self.op = db.op_update(
                self.op['id'],
                dict(extra or {}, work=self.work),
                expected={
                    'owner': self.host,
                    'operation_state': self.op['operation_state'],
                },
            )
        except exceptions.ConcurrentUpdate as e:
            raise LeaseLost(str(e)) from None

    def show_waiting(self, message: str | None) -> None:
        """Record what the op waits for (None: nothing), shown as the op
        occurrence's ``warnings`` while it runs; saved only on change."""
        if self.work.get(op_view.WAITING) == message:
            return
        if message:
            self.work[op_view.WAITING] = message
        else:
            self.work.pop(op_view.WAITING, None)
        self.save_work()

    def step(
        self, name: str, fn: Callable[[], dict | None], **meta: Any
    ) -> dict | None:
        """Run ``fn`` once per op: skipped (its result returned) when an
        earlier attempt finished it. ``meta`` is kept with the step."""
        if self.step_state(name) == DONE:
            LOG.info('Op %s: %s already done, skipped', self.op['id'], name)
            return self.steps()[name].get('result')
        cancel.check(self.op['id'], f'before {name}')
        entry = self.steps().setdefault(name, {})
        entry.update(meta, state=STARTED)
        self.save_work()
        result = fn()
        entry.update(state=DONE, result=result)
        self.save_work()
        return result

    def hook_context(
        self,
        hook: str,
        definition: dict,
        *,
        target: bool = False,
        instance: dict | None = None,
    ) -> mgmt_base.HookContext:
        """The context of one hook call (``target``: the hook comes from
        the target package)."""
        # The hook's work lives in its step entry, so it is saved with the
        # op even when the hook fails, and rollback gets it back.
        entry = self.steps().setdefault(hook, {})
        vnfd = self.target_vnfd if target else self.vnfd
        package = self.target_files if target else self.files
        # A target hook exists only when the op has a target package.
        assert vnfd is not None and package is not None
        return mgmt_base.HookContext(
            hook=hook,
            operation=self.op['operation'],
            vnf_instance=instance_view.to_sol(instance or self.instance),
            vnf_lcm_op_occ=op_view.to_sol(self.op),
            request=self.request_view,
            vim_connection_info=self.all_vim_connection_info,
            vnfd=vnfd,
            package=package,
            definition=definition,
            deadline=self.deadline,
            previous=entry.get('result'),
            source_vnfd=self.vnfd if target else None,
            source_package=self.files if target else None,
            work=entry.setdefault('work', {}),
            persist=self.save_work,
            progress=self.show_waiting,
            vim_users=lambda vim_id: vim_obj.instances_using(
                vim_id, self.instance['id'], self.instance['project_id']
            ),
            instantiate_request=lambda: instantiate_request(
                self.instance['id']
            ),
        )

    def run_hook(
        self,
        hook: str,
        *,
        target: bool = False,
        instance: dict | None = None,
        flavour_id: str | None = None,
    ) -> None:
        """Run the VNFD's ``hook`` if it declares one (as a step); from the
        instance's flavour unless ``flavour_id`` names another."""
        vnfd = self.target_vnfd if target else self.vnfd
        flavour_id = flavour_id or self.flavour_id
        definition = mgmt_runner.find_hook(vnfd or {}, flavour_id, hook)
        if definition is None:
            return
        ctx = self.hook_context(
            hook, definition, target=target, instance=instance
        )
        self.step(
            hook,
            lambda: self.mgmt.run(ctx).to_dict(),
            target=target,
            flavour=flavour_id,
        )

    def rollback_hooks(self, hooks: list[str]) -> list[dict]:
        """Undo the hooks that ran, latest first; the changes the undoing
        returned, in that order (apply them with
        ``operation.with_hook_changes``, as forward hooks' changes are)."""
        undone: list[dict] = []
        for hook in reversed(hooks):
            if self.step_state(hook) is None:
                continue
            target = bool(self.steps()[hook].get('target'))
            vnfd = self.target_vnfd if target else self.vnfd
            flavour_id = self.steps()[hook].get('flavour') or self.flavour_id
            definition = mgmt_runner.find_hook(vnfd or {}, flavour_id, hook)
            if definition is None:
                continue
            cancel.check(self.op['id'], f'before rolling back {hook}')
            result = self.mgmt.rollback(
                self.hook_context(hook, definition, target=target)
            )
            undone.append(result.changes)
        return undone

    def hook_changes(self) -> list[dict]:
        """The changes the hooks returned, in the order they ran."""
        return [
            s['result'].get('changes') or {}
            for s in self.steps().values()
            if s.get('state') == DONE
            and isinstance(s.get('result'), dict)
            and 'changes' in s['result']
        ]

    def remaining(self) -> float:
        """Seconds left before the op's deadline."""
        return max(self.deadline - time.monotonic(), 0.0)
