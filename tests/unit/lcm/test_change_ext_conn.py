"""Change external connectivity through the lcm: the driver's step, the
instance's extVirtualLinkInfo and the op's changedExtConnectivity, and
rollback when the driver fails. The noop driver does not change
connectivity; a subclass that moves the links in the record stands in
for a VIM that does (the OpenStack driver's own steps are tested in
tests/unit/drivers/infra/openstack/test_extconn.py)."""

from __future__ import annotations

from vnfm.db import api as db
from vnfm.drivers.infra import base
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver
from vnfm.lcm.driver import LcmDriver

from .fixtures import instantiated
from .fixtures import onboarded_package
from .fixtures import run_op
from .fixtures import user_rolls_back

LINK = {'id': 'ext1', 'resourceId': 'net-new', 'extCps': [{'cpdId': 'CP1'}]}


class MovingDriver(NoopInfraDriver):
    """Noop, plus the request's links as the instance's new ones."""

    def change_ext_conn(self, ctx: base.InfraContext) -> base.InfraResult:
        self._record('change_ext_conn', ctx)
        info = dict(ctx.vnf_instance.get('instantiatedVnfInfo') or {})
        info['extVirtualLinkInfo'] = [
            {
                'id': vl['id'],
                'resourceHandle': {'resourceId': vl['resourceId']},
            }
            for vl in ctx.request['extVirtualLinks']
        ]
        return base.InfraResult(instantiated_vnf_info=info)

    def rollback_change_ext_conn(
        self, ctx: base.InfraContext
    ) -> base.InfraResult:
        self._record('rollback_change_ext_conn', ctx)
        return base.InfraResult()


def _lcm() -> tuple[LcmDriver, MovingDriver]:
    driver = MovingDriver()
    runner = MgmtRunner({'script': ScriptMgmtDriver()})
    return LcmDriver('c1', InfraDrivers({'noop': driver}), runner), driver


def test_change_records_the_new_links_on_instance_and_op(db_url, hook_record):
    lcm, driver = _lcm()
    inst = instantiated(onboarded_package(), lcm)

    op = run_op(lcm, inst, 'CHANGE_EXT_CONN', {'extVirtualLinks': [LINK]})

    assert op['operation_state'] == 'COMPLETED', op['error']
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    [ext] = info['extVirtualLinkInfo']
    assert ext['resourceHandle']['resourceId'] == 'net-new'
    assert op['changed_ext_connectivity'] == [ext]
    assert driver.calls[-1]['method'] == 'change_ext_conn'


def test_driver_failure_then_rollback_keeps_the_old_links(db_url, hook_record):
    lcm, driver = _lcm()
    inst = instantiated(onboarded_package(), lcm)
    before = db.instance_get(inst['id'])['instantiated_vnf_info']
    params = {
        'extVirtualLinks': [LINK],
        'additionalParams': {'noop_fail': 'change_ext_conn'},
    }

    op = run_op(lcm, inst, 'CHANGE_EXT_CONN', params)
    assert op['operation_state'] == 'FAILED_TEMP'
    assert 'change_ext_conn failed' in op['error']['detail']
    user_rolls_back(op['id'])
    lcm.start(op['id'])

    assert db.op_get(op['id'])['operation_state'] == 'ROLLED_BACK'
    after = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert after == before
    assert driver.calls[-1]['method'] == 'rollback_change_ext_conn'
