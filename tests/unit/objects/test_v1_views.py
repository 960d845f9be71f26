"""The /vnflcm/v1 shapes: v1 requests to the v2 form and back, and the v1
views of instance, op occurrence and subscription rows."""

from __future__ import annotations

import datetime

import pytest

from vnfm.common import exceptions
from vnfm.objects import v1_views

BASE = 'https://vnfm.example.com:9890'
VIM_LIST = [
    {
        'id': 'vim1',
        'vimId': 'v',
        'vimType': 'VNFM.NOOP.V_1',
        'accessInfo': {'username': 'u', 'password': 'SECRET'},
    }
]
VIM_MAP = {
    'vim1': {
        'vimId': 'v',
        'vimType': 'VNFM.NOOP.V_1',
        'accessInfo': {'username': 'u', 'password': 'SECRET'},
    }
}


def test_vim_list_and_map_convert_both_ways():
    assert v1_views.vim_list_to_map(VIM_LIST) == VIM_MAP
    assert v1_views.vim_map_to_list(VIM_MAP) == VIM_LIST
    assert v1_views.vim_map_to_list({'gone': None, **VIM_MAP}) == VIM_LIST


def test_duplicate_vim_ids_are_a_bad_request():
    with pytest.raises(exceptions.BadRequest, match='vim1'):
        v1_views.vim_list_to_map(VIM_LIST + VIM_LIST)


EXT_VL_V1 = [
    {
        'id': 'ext1',
        'resourceId': 'net',
        'extCps': [
            {
                'cpdId': 'CP1',
                'cpConfig': [
                    {
                        'cpProtocolData': [
                            {'layerProtocol': 'IP_OVER_ETHERNET'}
                        ]
                    },
                    {'linkPortId': 'p2'},
                ],
            }
        ],
    }
]


def test_request_round_trip_gives_what_was_sent():
    body = {
        'flavourId': 'simple',
        'vimConnectionInfo': VIM_LIST,
        'extVirtualLinks': EXT_VL_V1,
        'additionalParams': {'a': 1},
    }
    v2 = v1_views.request_to_v2(body)
    assert v2['vimConnectionInfo'] == VIM_MAP
    assert v2['extVirtualLinks'][0]['extCps'][0]['cpConfig'] == {
        '0': {'cpProtocolData': [{'layerProtocol': 'IP_OVER_ETHERNET'}]},
        '1': {'linkPortId': 'p2'},
    }
    assert v2['additionalParams'] == {'a': 1}
    assert body['vimConnectionInfo'] == VIM_LIST  # not modified
    assert v1_views.params_to_v1(v2) == body


def test_deleted_vim_ids_become_a_merge_patch_and_back():
    body = {
        'vimConnectionInfo': VIM_LIST,
        'vimConnectionInfoDeleteIds': ['old'],
    }
    v2 = v1_views.request_to_v2(body)
    assert v2 == {'vimConnectionInfo': {**VIM_MAP, 'old': None}}
    assert v1_views.params_to_v1(v2) == body
    with pytest.raises(exceptions.BadRequest, match='both set and deleted'):
        v1_views.request_to_v2(
            {
                'vimConnectionInfo': VIM_LIST,
                'vimConnectionInfoDeleteIds': ['vim1'],
            }
        )


def test_request_without_v1_shapes_is_unchanged():
    body = {'terminationType': 'GRACEFUL'}
    assert v1_views.request_to_v2(body) == body


def _instance(**values):
    return dict(
        {
            'id': 'i1',
            'vnf_instance_name': 'n',
            'vnfd_id': 'd',
            'vnf_provider': 'p',
            'vnf_product_name': 'pn',
            'vnf_software_version': '1',
            'vnfd_version': '2',
            'vnf_pkg_id': 'pkg1',
            'instantiation_state': 'INSTANTIATED',
            'project_id': 'proj',
            'vim_connection_info': {
                'vim1': {
                    'vimType': 'VNFM.NOOP.V_1',
                    'accessInfo': {
                        'username': 'u',
                        'password': '********',
                        '_sealed': 'token',
                    },
                }
            },
            'instantiated_vnf_info': {
                'flavourId': 'simple',
                'vnfState': 'STARTED',
                'vnfcResourceInfo': [
                    {
                        'id': 'r1',
                        'vduId': 'VDU1',
                        'computeResource': {
                            'vimConnectionId': 'vim1',
                            'resourceId': 'x',
                        },
                    }
                ],
                'vnfcInfo': [
                    {
                        'id': 'VDU1-r1',
                        'vduId': 'VDU1',
                        'vnfcResourceInfoId': 'r1',
                        'vnfcState': 'STARTED',
                    }
                ],
                'vnfPaaSServiceInfo': [{'id': 'v3-only'}],
            },
        },
        **values,
    )


def test_instance_view_has_v1_shape():
    out = v1_views.instance_to_sol(_instance(), BASE)
    keys = list(out)
    assert keys.index('vnfPkgId') == keys.index('vnfdVersion') + 1
    assert out['vnfPkgId'] == 'pkg1'
    assert out['vimConnectionInfo'] == [
        {
            'id': 'vim1',
            'vimType': 'VNFM.NOOP.V_1',
            'accessInfo': {'username': 'u', 'password': '********'},
        }
    ]
    info = out['instantiatedVnfInfo']
    assert 'vnfPaaSServiceInfo' not in info
    assert (
        info['vnfcResourceInfo'][0]['computeResource']['vimConnectionId']
        == 'vim1'
    )
    href = f'{BASE}/vnflcm/v1/vnf_instances/i1'
    assert out['_links'] == {
        'self': {'href': href},
        'terminate': {'href': f'{href}/terminate'},
        'scale': {'href': f'{href}/scale'},
        'scaleToLevel': {'href': f'{href}/scale_to_level'},
        'changeFlavour': {'href': f'{href}/change_flavour'},
        'heal': {'href': f'{href}/heal'},
        'operate': {'href': f'{href}/operate'},
        # The default drivers include OpenStack's, which runs it.
        'changeExtConn': {'href': f'{href}/change_ext_conn'},
    }
    assert 'project_id' not in out and '_sealed' not in str(out)


def test_not_instantiated_instance_links_and_secrets():
    row = _instance(
        instantiation_state='NOT_INSTANTIATED',
        instantiated_vnf_info=None,
        vim_connection_info={
            'v': {'vimType': 't', 'accessInfo': {'password': 'SECRET'}}
        },
    )
    out = v1_views.instance_to_sol(row, BASE)
    assert set(out['_links']) == {'self', 'instantiate'}
    assert 'instantiatedVnfInfo' not in out
    assert out['vimConnectionInfo'] == [
        {'id': 'v', 'vimType': 't', 'accessInfo': {'password': '********'}}
    ]


def test_light_list_row_has_vnf_pkg_id():
    row = {c: 'x' for c in v1_views.INSTANCE_LIST_COLUMNS}
    out = v1_views.instance_to_sol(row)
    assert out['vnfPkgId'] == 'x'
    assert 'vnfPkgId' in v1_views.INSTANCE_SOL013.mandatory


def test_op_view_has_v1_params_and_links():
    now = datetime.datetime(2024, 1, 2, 3, 4, 5)
    row = {
        'id': 'o1',
        'operation_state': 'FAILED_TEMP',
        'state_entered_time': now,
        'start_time': now,
        'vnf_instance_id': 'i1',
        'operation': 'MODIFY_INFO',
        'is_automatic_invocation': False,
        'is_cancel_pending': False,
        'operation_params': {
            'vnfPkgId': 'pkg2',
            'vimConnectionInfo': {
                'vim1': {'vimType': 't', 'accessInfo': {'password': 'SECRET'}},
                'old': None,
            },
        },
        'changed_info': {'vimConnectionInfo': {'vim1': {'vimType': 't'}}},
        'owner': 'conductor-1',
        'project_id': 'proj',
    }
    out = v1_views.op_to_sol(row, BASE)
    assert out['operationParams'] == {
        'vnfPkgId': 'pkg2',
        'vimConnectionInfo': [
            {
                'id': 'vim1',
                'vimType': 't',
                'accessInfo': {'password': '********'},
            }
        ],
        'vimConnectionInfoDeleteIds': ['old'],
    }
    assert out['changedInfo'] == {
        'vimConnectionInfo': [{'id': 'vim1', 'vimType': 't'}]
    }
    href = f'{BASE}/vnflcm/v1/vnf_lcm_op_occs/o1'
    assert out['_links'] == {
        'self': {'href': href},
        'vnfInstance': {'href': f'{BASE}/vnflcm/v1/vnf_instances/i1'},
        'retry': {'href': f'{href}/retry'},
        'rollback': {'href': f'{href}/rollback'},
        'fail': {'href': f'{href}/fail'},
    }
    assert 'owner' not in out and 'SECRET' not in str(out)
