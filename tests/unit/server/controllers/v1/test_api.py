"""How a /vnflcm/v1 request passes the pipeline: the Version header,
api_versions and Tacker's v1 policy rule names."""

from __future__ import annotations

import pytest
from oslo_policy import policy

from tests.unit.server.conftest import json_of
from vnfm.server import policies

from .calls import v1


@pytest.mark.parametrize(
    'headers, status',
    [
        ({}, 200),
        ({'Version': '1.0.0'}, 200),
        ({'Version': '2.0.0'}, 406),
        ({'Version': 'one'}, 400),
    ],
)
def test_version_header(client, headers, status):
    resp = client.request('GET', '/vnflcm/v1/vnf_instances', headers=headers)
    assert resp.status_int == status
    assert resp.headers['Version'] == '1.3.0'


def test_api_versions(client):
    assert json_of(client.request('GET', '/vnflcm/v1/api_versions')) == {
        'uriPrefix': '/vnflcm/v1',
        'apiVersions': [{'version': '1.3.0', 'isDeprecated': False}],
    }
    listed = json_of(client.request('GET', '/vnflcm/api_versions'))
    assert [v['version'] for v in listed['apiVersions']] == ['1.3.0', '2.0.0']


def test_v1_policy_rules_are_tackers_names(client):
    names = {r.name for r in policies.list_rules()}
    for rule in (
        'create',
        'index',
        'show',
        'delete',
        'update_vnf',
        'instantiate',
        'terminate',
        'heal',
        'scale',
        'scale_to_level',
        'operate',
        'change_ext_conn',
        'list_lcm_op_occs',
        'show_lcm_op_occs',
        'retry',
        'rollback',
        'fail',
        'cancel',
        'api_versions',
    ):
        assert f'os_nfv_orchestration_api:vnf_instances:{rule}' in names
    policies.get_enforcer().set_rules(
        policy.Rules.from_dict(
            {'os_nfv_orchestration_api:vnf_instances:index': '!'}
        ),
        overwrite=False,
        use_conf=False,
    )
    assert v1(client, 'GET', '/vnf_instances').status_int == 403
    assert client.lcm('GET', '/vnf_instances').status_int == 200
