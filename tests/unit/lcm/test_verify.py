"""An op is COMPLETED only when what it reports matches the VIM."""

from vnfm.db import api as db
from vnfm.drivers.infra import base
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver
from vnfm.lcm.driver import LcmDriver

from .fixtures import instantiate_params
from .fixtures import instantiated
from .fixtures import new_instance
from .fixtures import new_op
from .fixtures import onboarded_package
from .fixtures import run_op

SCALE_OUT_2 = {
    'type': 'SCALE_OUT',
    'aspectId': 'vdu1_aspect',
    'numberOfSteps': 2,
}


class LevelOnly(NoopInfraDriver):
    """Reports the new scale level but no new VNFC, as a stack update of a
    VDU outside any AutoScalingGroup does."""

    def scale(self, ctx: base.InfraContext) -> base.InfraResult:
        result = super().scale(ctx)
        info = dict(result.instantiated_vnf_info or {})
        old = ctx.vnf_instance['instantiatedVnfInfo']
        info['vnfcResourceInfo'] = old['vnfcResourceInfo']
        info['vnfcInfo'] = old['vnfcInfo']
        return base.InfraResult(
            instantiated_vnf_info=info, resource_changes={'affectedVnfcs': []}
        )


class Vim(NoopInfraDriver):
    """A noop driver whose VIM is a dict: VDU id -> resource ids."""

    def __init__(self, vim: dict[str, list[str]] | None = None) -> None:
        super().__init__()
        self.vim = vim

    def vim_vnfcs(self, ctx, vdu_ids):
        if self.vim is None:
            info = ctx.vnf_instance['instantiatedVnfInfo']
            return {
                v: [
                    e['computeResource']['resourceId']
                    for e in info['vnfcResourceInfo']
                    if e['vduId'] == v
                ]
                for v in vdu_ids
            }
        return self.vim


def _lcm(driver: NoopInfraDriver) -> LcmDriver:
    return LcmDriver(
        'c1',
        InfraDrivers({'noop': driver}),
        MgmtRunner({'script': ScriptMgmtDriver()}),
    )


def test_scale_out_that_adds_no_vnfc_fails_naming_the_vdu(db_url, hook_record):
    inst = instantiated(onboarded_package())

    op = run_op(_lcm(LevelOnly()), inst, 'SCALE', SCALE_OUT_2)

    assert op['operation_state'] == 'FAILED_TEMP'
    detail = op['error']['detail']
    assert 'VDU1' in detail and 'adds 2 VNFC(s)' in detail, detail
    assert 'has 1 VNFC(s), 1 before' in detail, detail
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert info['scaleStatus'] == [
        {'aspectId': 'vdu1_aspect', 'scaleLevel': 0}
    ]


def test_scale_out_the_vim_has_completes(db_url, hook_record):
    inst = instantiated(onboarded_package())

    op = run_op(_lcm(Vim()), inst, 'SCALE', SCALE_OUT_2)

    assert op['operation_state'] == 'COMPLETED', op['error']
    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert len(info['vnfcResourceInfo']) == 3


def test_instantiate_fails_when_the_vim_has_other_vnfcs(db_url, hook_record):
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())

    _lcm(Vim({'VDU1': ['server-a', 'server-b']})).start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    detail = op['error']['detail']
    assert 'VDU VDU1: vnfm would report 1 VNFC(s)' in detail, detail
    assert 'the VIM has 2 (server-a, server-b)' in detail, detail
    row = db.instance_get(inst['id'])
    assert row['instantiation_state'] == 'NOT_INSTANTIATED'
