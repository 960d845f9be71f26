"""SOL representations of instance, op occurrence and package rows."""

from __future__ import annotations

import datetime

from vnfm.objects import op_occ
from vnfm.objects import vnf_instance
from vnfm.objects import vnf_package

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


def test_op_view():
    now = datetime.datetime(2024, 1, 2, 3, 4, 5, 6)
    row = {
        'id': 'o1',
        'operation_state': 'FAILED_TEMP',
        'state_entered_time': now,
        'start_time': now,
        'vnf_instance_id': 'i1',
        'operation': 'INSTANTIATE',
        'is_automatic_invocation': None,
        'is_cancel_pending': False,
        'operation_params': {
            'flavourId': 'f',
            'vimConnectionInfo': {
                'v': {'vimType': 't', 'accessInfo': {'password': 'SECRET'}}
            },
            'additionalParams': {'node': {'password': 'SECRET'}},
        },
        'error': {'status': 500, 'detail': 'x'},
        'owner': 'c1',
        'work': {'a': 1},
        'active_instance_id': 'i1',
        'lease_expires_at': now,
        'project_id': 'p',
    }
    out = op_occ.to_sol(row, BASE)
    assert out['stateEnteredTime'] == '2024-01-02T03:04:05.000006Z'
    assert out['isAutomaticInvocation'] is False
    assert 'SECRET' not in str(out)
    for internal in (
        'owner',
        'work',
        'active_instance_id',
        'lease_expires_at',
        'project_id',
    ):
        assert internal not in out
    assert set(out['_links']) == {
        'self',
        'vnfInstance',
        'retry',
        'rollback',
        'fail',
    }
    row['operation_state'] = 'COMPLETED'
    assert set(op_occ.to_sol(row, BASE)['_links']) == {'self', 'vnfInstance'}


def test_op_view_shows_what_a_running_op_waits_for():
    row = {
        'id': 'o1',
        'operation_state': 'PROCESSING',
        'vnf_instance_id': 'i1',
        'operation': 'MODIFY_INFO',
        'work': {
            'waiting': 'waiting for eviction of Pod ns/p',
            'snapshot': {'configs': {}},
        },
    }
    assert op_occ.to_sol(row)['warnings'] == [
        'waiting for eviction of Pod ns/p'
    ]
    assert 'snapshot' not in str(op_occ.to_sol(row))
    for state in ('FAILED_TEMP', 'COMPLETED'):
        row['operation_state'] = state
        assert 'warnings' not in op_occ.to_sol(row)


def test_package_view():
    row = {
        'id': 'p1',
        'onboarding_state': 'ERROR',
        'operational_state': 'DISABLED',
        'usage_state': 'NOT_IN_USE',
        'onboarding_failure_details': {'status': 422, 'detail': 'bad'},
        'vnfd': {'big': 'model'},
        'upload_source': {'x': 1},
        'package_size': 10,
        'vnfd_id': None,
    }
    out = vnf_package.to_sol(row, BASE)
    assert out['onboardingFailureDetails']['detail'] == 'bad'
    for hidden in ('vnfd', 'upload_source', 'package_size', 'vnfdId'):
        assert hidden not in out
    assert out['_links']['packageContent']['href'] == (
        f'{BASE}/vnfpkgm/v1/vnf_packages/p1/package_content'
    )
    row['onboarding_state'] = 'ONBOARDED'
    assert 'onboardingFailureDetails' not in vnf_package.to_sol(row)


def test_package_software_images_have_created_at():
    # SOL005 9.5.3.2: createdAt is mandatory in VnfPackageSoftwareImageInfo.
    created = datetime.datetime(2026, 1, 2, 3, 4, 5)
    row = {
        'id': 'p1',
        'onboarding_state': 'ONBOARDED',
        'created_at': created,
        'software_images': [{'id': 'VDU1', 'name': 'img'}],
    }
    (image,) = vnf_package.to_sol(row)['softwareImages']
    assert image == {
        'id': 'VDU1',
        'name': 'img',
        'createdAt': '2026-01-02T03:04:05.000000Z',
    }
    assert 'createdAt' not in row['software_images'][0]
