"""Periodic sync: keep idle instances' instantiatedVnfInfo in step with what
their VIM did by itself (e.g. Kubernetes replacing a Pod that died).

Only INSTANTIATED instances with no unfinished op are looked at, through the
infra driver's optional ``sync``. The write is a compare-and-set on the
instance's ``updated_at`` that also requires, in the same statement, that no
op occurrence is active on it: an op started (or finished) between the read
and the write wins, and this round's result is dropped. Every conductor may
run it; the compare-and-set makes concurrent rounds harmless.

Each VIM's instances are synced in a job of their own (``Syncer``), at most
``[conductor] sync_workers`` at once, within ``sync_vim_timeout``: a VIM
that answers slowly holds up neither the others nor later rounds (a VIM
still being synced is not queued again).
"""

from __future__ import annotations

import collections
import logging
import threading
import time

from vnfm.clients import deadlines
from vnfm.common import exceptions
from vnfm.conductor.workers import WorkPool
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.drivers.infra import base as infra_base
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.infra.registry import NoInfraDriver
from vnfm.lcm import inputs
from vnfm.objects import vnf_instance as instance_view
from vnfm.objects.states import FINAL_OP_STATES
from vnfm.objects.states import InstantiationState
from vnfm.objects.states import OpState

LOG = logging.getLogger(__name__)
INSTANTIATED = InstantiationState.INSTANTIATED.value
_UNFINISHED = sorted(s.value for s in OpState if s not in FINAL_OP_STATES)


def _busy_instances() -> set[str]:
    """Ids of the instances with an unfinished op (FAILED_TEMP included)."""
    rows = db.op_list(
        {'operation_state': _UNFINISHED}, columns=['vnf_instance_id']
    )
    return {r['vnf_instance_id'] for r in rows}


def _context(
    infra: InfraDrivers, instance: dict
) -> tuple[infra_base.InfraDriver, infra_base.SyncContext]:
    """The driver of the instance and its SyncContext; VnfmError if the
    instance's VIM cannot be resolved or no enabled driver serves it."""
    clear = inputs.resolved(
        inputs.vim_connection_info(instance), instance['project_id']
    )
    driver, served = infra.select(clear)
    deadline = time.monotonic() + CONF.kubernetes.request_timeout * 4
    return driver, infra_base.SyncContext(
        vnf_instance=instance_view.to_sol(instance),
        vim_connection_info=served,
        deadline=deadline,
    )


def sync_instance(infra: InfraDrivers, instance: dict) -> bool:
    """Sync one instance; True if its instantiatedVnfInfo was updated."""
    try:
        driver, ctx = _context(infra, instance)
        info = driver.sync(ctx)
    except NoInfraDriver:
        return False  # a VIM type this conductor does not serve
    except exceptions.VnfmError as e:
        LOG.warning(
            'Sync of VNF instance %s skipped: %s', instance['id'], e.detail
        )
        return False
    if info is None:
        return False
    try:
        db.instance_update_if_idle(
            instance['id'],
            {'instantiated_vnf_info': info},
            expected={
                'updated_at': instance['updated_at'],
                'instantiation_state': INSTANTIATED,
            },
        )
    except (exceptions.Conflict, exceptions.NotFound) as e:
        LOG.info(
            'Sync of VNF instance %s dropped: %s', instance['id'], e.detail
        )
        return False
    LOG.info(
        'VNF instance %s: vnfcResourceInfo follows the resources its '
        'VIM replaced',
        instance['id'],
    )
    return True


def _vim_key(instance: dict) -> str:
    """Which VIM the instance is on: its registered VIMs' ids, else their
    endpoints."""
    entries = inputs.vim_connection_info(instance).values()
    return ','.join(
        sorted(
            {
                str(
                    e.get('vimId')
                    or (e.get('interfaceInfo') or {}).get('endpoint')
                    or ''
                )
                for e in entries
            }
        )
    )


def idle_by_vim() -> dict[str, list[dict]]:
    """The idle INSTANTIATED instances, by the VIM they are on."""
    busy = _busy_instances()
    out: dict[str, list[dict]] = {}
    for instance in db.instance_list({'instantiation_state': INSTANTIATED}):
        if instance['id'] not in busy:
            out.setdefault(_vim_key(instance), []).append(instance)
    return out


def sync_vim(
    infra: InfraDrivers, vim: str, instances: list[dict]
) -> list[str]:
    """Sync the instances of one VIM within ``sync_vim_timeout``; the ids
    updated (the rest wait for a later round)."""
    updated = []
    seconds = CONF.conductor.sync_vim_timeout
    try:
        with deadlines.scope(seconds, f'Sync of VIM {vim}') as call:
            for instance in instances:
                if sync_instance(infra, instance):
                    updated.append(instance['id'])
                if call.tripped:
                    break
    except deadlines.CallFailed as e:
        LOG.warning('%s', e.detail)
    return updated


class Syncer:
    """The periodic sync of one conductor: a job per VIM, each VIM at most
    once at a time."""

    def __init__(
        self, infra: InfraDrivers, workers: int, keep: int | None = 1000
    ) -> None:
        self.infra = infra
        self.pool = WorkPool(workers)
        self._lock = threading.Lock()
        # The ids updated, the last ``keep`` of them (None: all): a
        # conductor's syncer runs for as long as the conductor does.
        self.updated: collections.deque[str] = collections.deque(maxlen=keep)

    def round(self) -> list[str]:
        """Queue each VIM's sync unless it still runs; the VIMs queued."""
        return [
            vim
            for vim, instances in idle_by_vim().items()
            if self.pool.submit(('sync', vim), self._job, vim, instances)
        ]

    def _job(self, vim: str, instances: list[dict]) -> None:
        done = sync_vim(self.infra, vim, instances)
        with self._lock:
            self.updated.extend(done)

    def wait(self, timeout: float) -> bool:
        """Wait until no VIM is being synced; False at the timeout."""
        return self.pool.wait_idle(timeout)

    def stop(self, timeout: float) -> bool:
        """Queue nothing more; let running jobs end for ``timeout`` s."""
        return self.pool.stop(timeout)


def sync_instances(infra: InfraDrivers) -> list[str]:
    """One whole round: sync every idle INSTANTIATED instance, each VIM's
    in parallel; the ids updated."""
    syncer = Syncer(infra, CONF.conductor.sync_workers, keep=None)
    syncer.round()
    while not syncer.wait(CONF.conductor.sync_vim_timeout):
        continue  # each job ends within its VIM's deadline
    syncer.stop(0)
    return list(syncer.updated)
