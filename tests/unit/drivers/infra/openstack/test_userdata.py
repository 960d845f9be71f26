"""Heat input for operations on a running stack: scale and its rollback,
heal, change_vnfpkg and its rollback."""

from __future__ import annotations

import json

import pytest
import yaml

from vnfm.common import exceptions
from vnfm.drivers.infra.openstack import userdata

from .utils import DATA_NET
from .utils import EXT_NET
from .utils import context
from .utils import instantiate_request


def _instance(vdu1: int = 1, level: int = 0) -> dict:
    vnfcs = [{'id': f'c{i}', 'vduId': 'VDU1'} for i in range(vdu1)]
    return {
        'id': 'inst-1',
        'instantiatedVnfInfo': {
            'flavourId': 'simple',
            'vnfcResourceInfo': [*vnfcs, {'id': 'd', 'vduId': 'VDU2'}],
            'scaleStatus': [{'aspectId': 'VDU1_scale', 'scaleLevel': level}],
            'extVirtualLinkInfo': [
                {
                    'id': 'ext1',
                    'resourceHandle': {'resourceId': EXT_NET},
                    'currentVnfExtCpData': [
                        {'cpdId': 'VDU1_CP1'},
                        {'cpdId': 'VDU2_CP1'},
                    ],
                }
            ],
            'extManagedVirtualLinkInfo': [
                {
                    'id': 'int1',
                    'vnfVirtualLinkDescId': 'internalVL1',
                    'networkResource': {'resourceId': DATA_NET},
                }
            ],
        },
    }


def _current(vdu1: int = 1, as_text: bool = False) -> dict:
    nfv = userdata.stack_input(
        context(
            request=instantiate_request(
                additionalParams={
                    'nfv': {'VDU': {'VDU1': {'desired_capacity': vdu1}}}
                }
            )
        ),
        'instantiate',
    ).parameters['nfv']
    return {'nfv': json.dumps(nfv) if as_text else nfv}


def _scale(kind: str, steps: int = 1) -> dict:
    return {'type': kind, 'aspectId': 'VDU1_scale', 'numberOfSteps': steps}


def _capacity(stack: userdata.StackInput, vdu: str = 'VDU1') -> int:
    return stack.parameters['nfv']['VDU'][vdu]['desired_capacity']


@pytest.mark.parametrize('as_text', [False, True])
def test_scale_out_adds_steps_times_delta(as_text):
    ctx = context('SCALE', _scale('SCALE_OUT', 2), _instance())
    got = userdata.stack_input(ctx, 'scale', _current(as_text=as_text))
    assert _capacity(got) == 3
    # Everything else is the running stack's.
    rest = dict(got.parameters['nfv'])
    assert rest['VDU']['VDU2'] == _current()['nfv']['VDU']['VDU2']
    assert rest['CP'] == _current()['nfv']['CP']
    assert 'AutoScalingGroup' in got.template


def test_scale_counts_from_the_instance_so_a_retry_computes_the_same():
    ctx = context('SCALE', _scale('SCALE_OUT'), _instance())
    # The stack already reached 2 in a failed first attempt.
    assert _capacity(userdata.stack_input(ctx, 'scale', _current(2))) == 2


def test_scale_in():
    ctx = context('SCALE', _scale('SCALE_IN'), _instance(vdu1=3, level=2))
    assert _capacity(userdata.stack_input(ctx, 'scale', _current(3))) == 2


@pytest.mark.parametrize(
    'kind,steps,level,match',
    [
        ('SCALE_OUT', 3, 0, 'would reach level 3, outside 0 to 2'),
        ('SCALE_IN', 1, 0, 'would reach level -1'),
    ],
)
def test_scale_beyond_the_aspect_fails(kind, steps, level, match):
    ctx = context('SCALE', _scale(kind, steps), _instance(level=level))
    with pytest.raises(exceptions.OperationFailed, match=match):
        userdata.stack_input(ctx, 'scale', _current())


def test_scale_beyond_vdu_profile_fails():
    # The instance has more VNFCs than its scale level says (healed in
    # by hand, say): the profile's maximum still holds.
    ctx = context('SCALE', _scale('SCALE_OUT'), _instance(vdu1=3, level=1))
    with pytest.raises(exceptions.OperationFailed, match='outside its'):
        userdata.stack_input(ctx, 'scale', _current(3))


def test_unknown_aspect():
    req = {'type': 'SCALE_OUT', 'aspectId': 'nope'}
    with pytest.raises(exceptions.OperationFailed, match='aspect nope'):
        userdata.stack_input(context('SCALE', req, _instance()), 'scale', {})


def test_scale_rollback_returns_to_the_recorded_count():
    ctx = context('SCALE', _scale('SCALE_OUT', 2), _instance())
    got = userdata.stack_input(ctx, 'scale_rollback', _current(3))
    assert _capacity(got) == 1
    assert got.parameters['nfv']['CP']['VDU1_CP1'] == {'network': EXT_NET}


def test_heal_keeps_the_parameters():
    current = _current(2)
    ctx = context('HEAL', {'vnfcInstanceId': ['c0']}, _instance(2))
    got = userdata.stack_input(ctx, 'heal', current)
    assert got.parameters == current
    assert list(got.files) == ['VDU1.yaml']


def test_change_vnfpkg_takes_target_hot_images_and_flavours():
    ctx = context(
        'CHANGE_VNFPKG',
        {'vnfdId': 'v2', 'additionalParams': {}},
        _instance(2, level=1),
        target='vm_simple_v2',
    )
    got = userdata.stack_input(ctx, 'change_vnfpkg', _current(2))
    assert 'version 2' in yaml.safe_load(got.template)['description']
    vdus = got.parameters['nfv']['VDU']
    assert vdus['VDU1'] == {
        'computeFlavourId': 'm1.tiny',
        'vcImageId': 'cirros-0.6',
        'desired_capacity': 2,
    }
    assert vdus['VDU2'] == {
        'computeFlavourId': 'm1.small',
        'vcImageId': 'ubuntu-22.04',
        'name': 'VDU2',
    }
    assert got.parameters['nfv']['CP'] == _current()['nfv']['CP']


def test_change_vnfpkg_only_the_vdus_vdu_params_names():
    req = {
        'vnfdId': 'v2',
        'additionalParams': {'vdu_params': [{'vdu_id': 'VDU2'}]},
    }
    ctx = context('CHANGE_VNFPKG', req, _instance(), target='vm_simple_v2')
    vdus = userdata.stack_input(ctx, 'change_vnfpkg', _current()).parameters[
        'nfv'
    ]['VDU']
    assert vdus['VDU1']['vcImageId'] == 'ubuntu-22.04'
    assert vdus['VDU2']['vcImageId'] == 'ubuntu-22.04'
    assert vdus['VDU2']['computeFlavourId'] == 'm1.small'


def test_change_vnfpkg_fills_what_the_stack_did_not_have():
    # A stack whose parameters lack VDU1 and a CP: they are computed (the
    # count from the instance, the network from its links).
    current = _current(2)
    del current['nfv']['VDU']['VDU1']
    del current['nfv']['CP']['VDU2_CP2']
    ctx = context(
        'CHANGE_VNFPKG', {'vnfdId': 'v2'}, _instance(2), target='vm_simple_v2'
    )
    got = userdata.stack_input(ctx, 'change_vnfpkg', current).parameters
    assert got['nfv']['VDU']['VDU1']['desired_capacity'] == 2
    assert got['nfv']['CP']['VDU2_CP2'] == {'network': DATA_NET}


def test_change_vnfpkg_rollback_restores_source_images():
    ctx = context(
        'CHANGE_VNFPKG', {'vnfdId': 'v2'}, _instance(2), target='vm_simple_v2'
    )
    changed = userdata.stack_input(ctx, 'change_vnfpkg', _current(2))
    back = userdata.stack_input(
        ctx, 'change_vnfpkg_rollback', changed.parameters
    )
    assert back.parameters == _current(2)
    assert 'version 2' not in back.template


def test_unknown_operation():
    with pytest.raises(ValueError, match='terminate'):
        userdata.stack_input(context(), 'terminate')


def test_rollback_without_vnfc_records_uses_the_scale_level():
    inst = _instance(level=2)
    del inst['instantiatedVnfInfo']['vnfcResourceInfo']
    ctx = context('SCALE', _scale('SCALE_OUT'), inst)
    assert _capacity(userdata.stack_input(ctx, 'scale_rollback', {})) == 3


def test_running_stack_operations_need_the_current_parameters():
    ctx = context('HEAL', {}, _instance())
    with pytest.raises(ValueError, match='current parameters'):
        userdata.stack_input(ctx, 'heal')


def test_new_cp_network_from_the_cpds_the_instance_keeps_in_metadata():
    inst = _instance(2)
    info = inst['instantiatedVnfInfo']
    del info['extVirtualLinkInfo'][0]['currentVnfExtCpData']
    info['metadata'] = {'ext_cpds': {'ext1': ['VDU1_CP1', 'VDU2_CP1']}}
    current = _current(2)
    del current['nfv']['CP']['VDU2_CP1']
    ctx = context(
        'CHANGE_VNFPKG', {'vnfdId': 'v2'}, inst, target='vm_simple_v2'
    )
    got = userdata.stack_input(ctx, 'change_vnfpkg', current).parameters
    assert got['nfv']['CP']['VDU2_CP1'] == {'network': EXT_NET}
