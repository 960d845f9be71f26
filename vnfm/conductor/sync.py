"""Periodic sync: keep idle instances' instantiatedVnfInfo in step with what
their VIM did by itself (e.g. Kubernetes replacing a Pod that died).

Only INSTANTIATED instances with no unfinished op are looked at, through the
infra driver's optional ``sync``. The write is a compare-and-set on the
instance's ``updated_at`` that also requires, in the same statement, that no
op occurrence is active on it: an op started (or finished) between the read
and the write wins, and this round's result is dropped. Every conductor may
run it; the compare-and-set makes concurrent rounds harmless.
"""

from __future__ import annotations

import logging
import time

from vnfm.common import exceptions
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


def sync_instances(infra: InfraDrivers) -> list[str]:
    """Sync every idle INSTANTIATED instance; the ids updated."""
    busy = _busy_instances()
    updated = []
    for instance in db.instance_list({'instantiation_state': INSTANTIATED}):
        if instance['id'] in busy:
            continue
        if sync_instance(infra, instance):
            updated.append(instance['id'])
    return updated
