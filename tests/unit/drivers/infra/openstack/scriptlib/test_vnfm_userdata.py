"""vnfm_userdata, the helper module of user-data classes."""

from __future__ import annotations

import pytest

from vnfm.drivers.infra.openstack.scriptlib import vnfm_userdata

TEMPLATE = {
    'resources': {
        'VDU1': {
            'properties': {
                'flavor': {
                    'get_param': ['nfv', 'VDU', 'VDU1', 'computeFlavourId']
                },
                'fixed_ips': [
                    {
                        'ip_address': {
                            'get_param': [
                                'nfv',
                                'CP',
                                'CP1',
                                'fixed_ips',
                                0,
                                'ip_address',
                            ]
                        }
                    }
                ],
                'other': {'get_param': 'nfv'},
                'short': {'get_param': ['nfv', 'VDU']},
                'foreign': {'get_param': ['x', 'VDU', 'VDU9', 'a']},
            }
        }
    }
}


def test_nfv_paths_and_skeleton():
    assert vnfm_userdata.nfv_paths(TEMPLATE) == {
        ('VDU', 'VDU1', 'computeFlavourId'),
        ('CP', 'CP1', 'fixed_ips'),
    }
    assert vnfm_userdata.init_nfv_dict(TEMPLATE) == {
        'CP': {'CP1': {'fixed_ips': None}},
        'VDU': {'VDU1': {'computeFlavourId': None}},
    }


def test_data_from_the_document_are_copies():
    vnfd = {'vnfd_id': 'v', 'flavours': {'simple': {'vdus': {'VDU1': {}}}}}
    vnfm_userdata._set(
        {
            'operation': 'heal',
            'vnfd': vnfd,
            'flavour_id': 'simple',
            'current': {'nfv': {}},
            'base_hot': {'template': TEMPLATE, 'nested_templates': {}},
            'builtin': {'error': 'no network for CP1'},
        }
    )
    assert vnfm_userdata.operation() == 'heal'
    vnfm_userdata.flavour()['vdus'].clear()
    assert vnfm_userdata.vnfd() == vnfd
    assert vnfm_userdata.current_parameters() == {'nfv': {}}
    assert vnfm_userdata.base_hot()['template'] == TEMPLATE
    with pytest.raises(vnfm_userdata.UserDataError, match='no network'):
        vnfm_userdata.builtin()
