"""VnfInstance as the API shows it: secrets masked, links to its tasks."""

from __future__ import annotations

from vnfm.objects import vnf_instance

BASE = 'https://vnfm.example.com:9890'


def test_instance_view_masks_secrets_and_links():
    row = {
        'id': 'i1',
        'vnf_instance_name': 'n',
        'vnf_instance_description': None,
        'vnfd_id': 'd',
        'vnf_provider': 'p',
        'vnf_product_name': 'pn',
        'vnf_software_version': '1',
        'vnfd_version': '2',
        'instantiation_state': 'INSTANTIATED',
        'project_id': 'proj',
        'vim_connection_info': {
            'v': {
                'vimType': 'kubernetes',
                'interfaceInfo': {'ssl_ca_cert': 'CA'},
                'accessInfo': {
                    'username': 'u',
                    'region': 'r',
                    'password': 'SECRET',
                    'bearer_token': 'SECRET',
                    '_sealed': 'token',
                },
            }
        },
        'metadata': {'m': 1},
        'extensions': None,
        'instantiated_vnf_info': {'flavourId': 'f'},
    }
    out = vnf_instance.to_sol(row, BASE)
    assert 'vnfInstanceDescription' not in out and 'extensions' not in out
    assert 'project_id' not in out and 'projectId' not in out
    assert out['vimConnectionInfo']['v']['accessInfo'] == {
        'username': 'u',
        'region': 'r',
        'password': '********',
        'bearer_token': '********',
    }
    assert out['vimConnectionInfo']['v']['interfaceInfo'] == {
        'ssl_ca_cert': 'CA'
    }
    href = f'{BASE}/vnflcm/v2/vnf_instances/i1'
    assert out['_links'] == {
        'self': {'href': href},
        'terminate': {'href': f'{href}/terminate'},
        'scale': {'href': f'{href}/scale'},
        'scaleToLevel': {'href': f'{href}/scale_to_level'},
        'changeFlavour': {'href': f'{href}/change_flavour'},
        'heal': {'href': f'{href}/heal'},
        'operate': {'href': f'{href}/operate'},
    }
    assert 'SECRET' not in str(out)
    assert row['vim_connection_info']['v']['accessInfo']['password'] == (
        'SECRET'
    )  # the row is not modified


def test_instance_without_base_url_has_no_links():
    out = vnf_instance.to_sol(
        {'id': 'i', 'instantiation_state': 'NOT_INSTANTIATED'}
    )
    assert out == {'id': 'i', 'instantiationState': 'NOT_INSTANTIATED'}
