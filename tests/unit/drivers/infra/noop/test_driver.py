"""The noop infra driver: VNF info with stable ids, flavours, its result."""

import time

import pytest

from vnfm.common import exceptions
from vnfm.drivers.infra import base
from vnfm.drivers.infra.noop.driver import VIM_TYPE
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.package_files import PackageFiles

VNFD = {
    'flavours': {
        'simple': {
            'vdus': {
                'VDU1': {'initial_delta': 1},
                'VDU2': {'initial_delta': 2},
            },
            'scaling_aspects': {
                'a1': {'max_scale_level': 2, 'vdu_deltas': {'VDU1': {'d': 1}}}
            },
            'instantiation_levels': {},
        }
    }
}


def ctx(**kwargs) -> base.InfraContext:
    values = dict(
        operation='INSTANTIATE',
        vnf_instance={'id': 'inst1'},
        request={},
        vnfd=VNFD,
        flavour_id='simple',
        vim_connection_info={'vim1': {'vimType': VIM_TYPE}},
        package=PackageFiles('p', {}),
        deadline=time.monotonic() + 10,
    )
    values.update(kwargs)
    return base.InfraContext(**values)


def test_instantiate_builds_vnf_info_with_stable_ids():
    driver = NoopInfraDriver()

    first = driver.instantiate(ctx()).instantiated_vnf_info
    again = driver.instantiate(ctx()).instantiated_vnf_info

    assert first == again
    vnfcs = first['vnfcResourceInfo']
    assert [v['computeResource']['resourceId'] for v in vnfcs] == [
        'noop-VDU1-0',
        'noop-VDU2-0',
        'noop-VDU2-1',
    ]
    assert {v['computeResource']['vimConnectionId'] for v in vnfcs} == {'vim1'}
    assert first['scaleStatus'] == [{'aspectId': 'a1', 'scaleLevel': 0}]
    assert first['maxScaleLevels'] == [{'aspectId': 'a1', 'scaleLevel': 2}]
    assert [c['method'] for c in driver.calls] == ['instantiate'] * 2


def test_result_carries_the_call():
    result = NoopInfraDriver().terminate(ctx(operation='TERMINATE'))
    assert result.work['call']['method'] == 'terminate'
    assert result.work['call']['vnfInstanceId'] == 'inst1'


def test_unknown_flavour_fails_with_detail():
    with pytest.raises(exceptions.OperationFailed) as e:
        NoopInfraDriver().instantiate(ctx(flavour_id='big'))
    assert e.value.detail == (
        "Flavour 'big' is not in the VNFD; it has simple."
    )


def test_change_flavour_gives_the_new_flavours_vnfcs():
    driver = NoopInfraDriver()
    vnfd = {
        'flavours': dict(
            VNFD['flavours'],
            big={'vdus': {'VDU1': {'initial_delta': 3}}},
        )
    }
    info = driver.instantiate(ctx(vnfd=vnfd)).instantiated_vnf_info
    instance = {'id': 'inst1', 'instantiatedVnfInfo': info}

    result = driver.change_flavour(
        ctx(
            operation='CHANGE_FLAVOUR',
            vnf_instance=instance,
            request={'newFlavourId': 'big'},
            vnfd=vnfd,
        )
    )

    new = result.instantiated_vnf_info
    assert new['flavourId'] == 'big' and new['scaleStatus'] == []
    assert [v['vduId'] for v in new['vnfcResourceInfo']] == ['VDU1'] * 3
    # VDU1's first VNFC stays; VDU2's go.
    kept = info['vnfcResourceInfo'][0]['id']
    assert kept in {v['id'] for v in new['vnfcResourceInfo']}
    changes = sorted(
        (c['vduId'], c['changeType'])
        for c in result.resource_changes['affectedVnfcs']
    )
    assert changes == [
        ('VDU1', 'ADDED'),
        ('VDU1', 'ADDED'),
        ('VDU2', 'REMOVED'),
        ('VDU2', 'REMOVED'),
    ]
