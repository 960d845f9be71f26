"""vnfm's built-in Heat input (Tacker's StandardUserData conventions)."""

from __future__ import annotations

import pytest
import yaml

from vnfm.common import exceptions
from vnfm.drivers.infra.openstack import userdata
from vnfm.drivers.package_files import PackageFiles

from ....csar.utils import SAMPLES
from .utils import DATA_NET
from .utils import EXT_NET
from .utils import context
from .utils import instantiate_request

HOT = 'BaseHOT/simple/vm_simple_hot.yaml'


def test_instantiate_sample_at_default_level():
    got = userdata.stack_input(context(), 'instantiate')
    assert yaml.safe_load(got.template)['resources']['VDU1']['type'] == (
        'OS::Heat::AutoScalingGroup'
    )
    assert list(got.files) == ['VDU1.yaml']
    nested = yaml.safe_load(got.files['VDU1.yaml'])
    assert (
        nested['resources']['VirtualStorage']['type'] == 'OS::Cinder::Volume'
    )
    assert got.parameters == {
        'nfv': {
            'VDU': {
                'VDU1': {
                    'computeFlavourId': 'm1.tiny',
                    'vcImageId': 'ubuntu-22.04',
                    'desired_capacity': 1,
                },
                'VDU2': {
                    'computeFlavourId': 'm1.tiny',
                    'vcImageId': 'cirros-0.6',
                    'name': 'VDU2',
                },
            },
            'CP': {
                'VDU1_CP1': {'network': EXT_NET},
                'VDU2_CP1': {'network': EXT_NET},
                'VDU2_CP2': {'network': DATA_NET},
            },
        }
    }


def test_instantiation_level_sets_capacity():
    req = instantiate_request(instantiationLevelId='instantiation_level_2')
    got = userdata.stack_input(context(request=req), 'instantiate')
    assert got.parameters['nfv']['VDU']['VDU1']['desired_capacity'] == 3


def test_unknown_instantiation_level():
    req = instantiate_request(instantiationLevelId='level_9')
    with pytest.raises(exceptions.OperationFailed, match='no instantiation'):
        userdata.stack_input(context(request=req), 'instantiate')


def test_standard_user_data_class_is_the_builtin():
    req = instantiate_request(
        additionalParams={
            'lcm-operation-user-data': './UserData/userdata_standard.py',
            'lcm-operation-user-data-class': 'StandardUserData',
        }
    )
    got = userdata.stack_input(context(request=req), 'instantiate')
    assert got.parameters['nfv']['VDU']['VDU2']['vcImageId'] == 'cirros-0.6'


def test_fixed_ips_from_cp_config_v2_and_v1():
    ip = {
        'cpProtocolData': [
            {
                'layerProtocol': 'IP_OVER_ETHERNET',
                'ipOverEthernet': {
                    'ipAddresses': [
                        {
                            'type': 'IPV4',
                            'fixedAddresses': ['198.18.0.10'],
                            'subnetId': 'sub-1',
                        },
                        {'type': 'IPV4', 'subnetId': 'sub-2'},
                    ]
                },
            }
        ]
    }
    hot = (
        _sample_hot()
        .replace(
            'network: { get_param: [ nfv, CP, VDU2_CP1, network ] }',
            'network: { get_param: [ nfv, CP, VDU2_CP1, network ] }\n'
            '      fixed_ips: { get_param: [ nfv, CP, VDU2_CP1, fixed_ips ] }',
        )
        .encode()
    )
    want = [
        {'subnet': 'sub-1', 'ip_address': '198.18.0.10'},
        {'subnet': 'sub-2'},
    ]
    for config in ({'c1': ip}, [ip]):  # SOL003 v3 map, v2 list
        req = instantiate_request()
        req['extVirtualLinks'][0]['extCps'][1]['cpConfig'] = config
        got = userdata.stack_input(
            context(request=req, **{HOT: hot}), 'instantiate'
        )
        assert got.parameters['nfv']['CP']['VDU2_CP1'] == {
            'network': EXT_NET,
            'fixed_ips': want,
        }


def test_cp_without_network_names_what_to_give():
    req = instantiate_request(extManagedVirtualLinks=[])
    with pytest.raises(exceptions.OperationFailed) as e:
        userdata.stack_input(context(request=req), 'instantiate')
    assert 'VDU2_CP2' in e.value.detail
    assert 'vnfVirtualLinkDescId internalVL1' in e.value.detail


def test_vdu_without_compute_flavour():
    df = 'Definitions/vm_simple_df_simple.yaml'
    text = _file(df).replace(
        'requested_additional_capability_name: m1.tiny', 'support: x', 1
    )
    with pytest.raises(exceptions.OperationFailed) as e:
        userdata.stack_input(context(**{df: text.encode()}), 'instantiate')
    assert 'VDU VDU1' in e.value.detail
    assert 'requested_additional_capability_name' in e.value.detail


def test_image_of_virtual_storage_read_as_vdu_entry():
    hot = (
        _sample_hot()
        .replace(
            'image: { get_param: [ nfv, VDU, VDU1, vcImageId ] }',
            'image: { get_param: [ nfv, VDU, VirtualStorage, vcImageId ] }',
        )
        .encode()
    )
    df = 'Definitions/vm_simple_df_simple.yaml'
    text = _file(df).replace(
        '          size_of_storage: 1 GB\n          rdma_enabled: false\n',
        '          size_of_storage: 1 GB\n          rdma_enabled: false\n'
        '        sw_image_data:\n          name: debian-12\n',
    )
    got = userdata.stack_input(
        context(**{HOT: hot, df: text.encode()}), 'instantiate'
    )
    assert got.parameters['nfv']['VDU']['VirtualStorage'] == {
        'vcImageId': 'debian-12'
    }


def test_additional_params_nfv_merged_over_computed():
    req = instantiate_request(
        additionalParams={
            'nfv': {'VDU': {'VDU2': {'locationConstraints': 'az-1'}}}
        }
    )
    got = userdata.stack_input(context(request=req), 'instantiate')
    assert got.parameters['nfv']['VDU']['VDU2'] == {
        'computeFlavourId': 'm1.tiny',
        'vcImageId': 'cirros-0.6',
        'name': 'VDU2',
        'locationConstraints': 'az-1',
    }


def test_missing_base_hot():
    ctx = context()
    ctx.package = PackageFiles(
        'p', {n: ctx.package.read(n) for n in ctx.package.names() if n != HOT}
    )
    with pytest.raises(exceptions.OperationFailed, match='BaseHOT/simple/'):
        userdata.stack_input(ctx, 'instantiate')


def _file(path: str) -> str:
    return (SAMPLES / 'vm_simple' / path).read_text()


def _sample_hot() -> str:
    return _file(HOT)
