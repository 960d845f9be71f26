"""The nfv Heat parameter from the VNFD and the request (the vm_simple
sample): images, compute flavours, a CP's network and fixed IPs, and what
the request must give when the template reads it."""

from __future__ import annotations

import dataclasses

import pytest

from vnfm.common import exceptions
from vnfm.drivers.infra.openstack import nfv

from .utils import sample_flavour


def test_vdu_values_are_the_keys_the_template_reads():
    values = nfv.vdu_values(
        sample_flavour(),
        'VDU1',
        ['computeFlavourId', 'vcImageId', 'desired_capacity', 'unknown'],
        capacity=lambda vdu: {'VDU1': 2}[vdu],
    )

    assert values == {
        'computeFlavourId': 'm1.tiny',
        'vcImageId': 'ubuntu-22.04',
        'desired_capacity': 2,
    }


def test_v1_era_templates_get_flavor_and_image_under_tackers_v1_keys():
    values = nfv.vdu_values(
        sample_flavour(), 'VDU1', ['flavor', 'image'], capacity=len
    )

    assert values == {'flavor': 'm1.tiny', 'image': 'ubuntu-22.04'}


def test_a_vdu_the_flavour_lacks_is_named():
    with pytest.raises(exceptions.OperationFailed) as e:
        nfv.vdu_values(sample_flavour(), 'VDU9', ['name'], capacity=len)

    assert str(e.value) == (
        'The Heat template reads nfv.VDU.VDU9, but flavour simple has no '
        'VDU VDU9.'
    )


def test_a_vdu_without_image_or_compute_flavour_says_what_to_set():
    f = sample_flavour()
    bare = dataclasses.replace(
        f.vdus['VDU2'], sw_image=None, compute_flavour=None
    )
    broken = dataclasses.replace(f, vdus={**f.vdus, 'VDU2': bare})

    with pytest.raises(exceptions.OperationFailed, match='sw_image_data'):
        nfv.image_name(broken, 'VDU2')
    with pytest.raises(
        exceptions.OperationFailed, match='requested_additional_capability'
    ):
        nfv.compute_flavour(broken, 'VDU2')


EXT_CP = {
    'cpdId': 'VDU1_CP1',
    'cpConfig': {
        'c1': {
            'cpProtocolData': [
                {
                    'layerProtocol': 'IP_OVER_ETHERNET',
                    'ipOverEthernet': {
                        'ipAddresses': [
                            {
                                'type': 'IPV4',
                                'subnetId': 'sub-1',
                                'fixedAddresses': ['198.18.1.5', '198.18.1.6'],
                            },
                            {'type': 'IPV4', 'subnetId': 'sub-2'},
                        ]
                    },
                }
            ]
        }
    },
}


def test_fixed_ips_per_address_else_per_subnet():
    assert nfv.fixed_ips(EXT_CP) == [
        {'subnet': 'sub-1', 'ip_address': '198.18.1.5'},
        {'subnet': 'sub-1', 'ip_address': '198.18.1.6'},
        {'subnet': 'sub-2'},
    ]
    v1 = dict(EXT_CP, cpConfig=list(EXT_CP['cpConfig'].values()))
    assert nfv.fixed_ips(v1) == nfv.fixed_ips(EXT_CP)


def test_a_cp_on_an_external_link_gets_its_network_and_addresses():
    links = nfv.Links.of_request(
        {
            'extVirtualLinks': [
                {'id': 'ext', 'resourceId': 'net-ext', 'extCps': [EXT_CP]}
            ]
        }
    )

    values = nfv.cp_values(
        sample_flavour(), 'VDU1_CP1', ['network', 'fixed_ips'], links
    )

    assert values['network'] == 'net-ext'
    assert len(values['fixed_ips']) == 3


def test_a_cp_on_an_internal_link_needs_a_managed_link():
    managed = nfv.Links.of_request(
        {
            'extManagedVirtualLinks': [
                {
                    'vnfVirtualLinkDescId': 'internalVL1',
                    'resourceId': 'net-int',
                }
            ]
        }
    )

    assert nfv.cp_values(
        sample_flavour(), 'VDU2_CP2', ['network'], managed
    ) == {'network': 'net-int'}
    with pytest.raises(exceptions.OperationFailed) as e:
        nfv.cp_values(
            sample_flavour(), 'VDU2_CP2', ['network'], nfv.Links([], [])
        )
    assert 'vnfVirtualLinkDescId internalVL1' in str(e.value)


def test_links_after_a_change_keep_the_cps_not_moved():
    info = {
        'extVirtualLinkInfo': [
            {'id': 'old', 'resourceHandle': {'resourceId': 'net-old'}}
        ],
        'metadata': {'ext_cpds': {'old': ['VDU1_CP1', 'VDU2_CP1']}},
    }
    request = {
        'extVirtualLinks': [
            {
                'id': 'new',
                'resourceId': 'net-new',
                'extCps': [{'cpdId': 'VDU1_CP1'}],
            }
        ]
    }

    after = nfv.links_after(info, request)

    assert [(link['id'], link['extCps']) for link in after] == [
        ('new', [{'cpdId': 'VDU1_CP1'}]),
        ('old', [{'cpdId': 'VDU2_CP1'}]),
    ]
    assert after[1]['resourceHandle'] == {'resourceId': 'net-old'}
