"""The VIMs a request's vimConnectionInfo names (vnfm.server.controllers.
vim_refs): another project's VIM is a 422 on /vnflcm/v1 and /vnflcm/v2,
and a registered VIM's endpoint and credentials are never the request's."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_package
from vnfm.common import crypto
from vnfm.db import api as db
from vnfm.db import registry

K8S = 'ETSINFV.KUBERNETES.V_1'
P1 = identity('p1', 'member', 'reader')
P2 = identity('p2', 'member', 'reader')
ADMIN = identity('admin', 'admin', 'member', 'reader')
V1 = {'Version': '1.3.0'}
OWN_VIM = {
    'interfaceInfo': {'endpoint': 'https://198.18.0.9:6443'},
    'accessInfo': {'bearer_token': 'callers-own'},
}


def _vim(project: str) -> str:
    row = registry.vim_create(
        {
            'name': f'vim-{project}',
            'type': 'kubernetes',
            'project_id': project,
            'status': 'ACTIVE',
            'auth_url': 'https://127.0.0.1:6443',
            'vim_project': {'name': 'default'},
            'auth_cred': crypto.encrypt({'bearer_token': 'p1-secret'}),
        }
    )
    return str(row['id'])


def _instance(project: str, **values: Any) -> dict:
    pkg = make_package(f'vnfd-{project}', project_id=project)
    return make_instance(pkg, project_id=project, **values)


def _instantiate(client, headers: dict, inst_id: str, entry: dict, v1=False):
    path = f'/vnf_instances/{inst_id}/instantiate'
    if v1:
        body = {
            'flavourId': 'simple',
            'vimConnectionInfo': [{'id': 'v', **entry}],
        }
        return client.request(
            'POST', '/vnflcm/v1' + path, body, headers={**V1, **headers}
        )
    body = {'flavourId': 'simple', 'vimConnectionInfo': {'v': entry}}
    return client.lcm('POST', path, body, headers=headers)


def _refused(resp: Any, rpc: Any, vim_id: str) -> str:
    assert resp.status_int == 422, resp.body
    detail = json_of(resp)['detail']
    assert f'no VIM {vim_id} is registered in this project' in detail
    assert rpc.calls == []
    return str(detail)


@pytest.mark.parametrize('v1', [False, True], ids=['v2', 'v1'])
def test_instantiate_naming_another_projects_vim_is_422(
    keystone_client, rpc, v1
):
    vim_id = _vim('p1')
    inst = _instance('p2')

    resp = _instantiate(
        keystone_client, P2, inst['id'], {'vimId': vim_id, 'vimType': K8S}, v1
    )

    detail = _refused(resp, rpc, vim_id)
    assert db.op_list({'vnf_instance_id': inst['id']}) == []
    # The same answer as for a VIM that does not exist: no oracle.
    resp = _instantiate(
        keystone_client, P2, inst['id'], {'vimId': 'gone', 'vimType': K8S}, v1
    )
    assert json_of(resp)['detail'] == detail.replace(vim_id, 'gone')


def test_an_administrator_cannot_lend_one_projects_vim_to_another(
    keystone_client, rpc
):
    vim_id = _vim('p1')
    inst = _instance('p2')

    resp = _instantiate(
        keystone_client, ADMIN, inst['id'], {'vimId': vim_id, 'vimType': K8S}
    )

    _refused(resp, rpc, vim_id)


@pytest.mark.parametrize('v1', [False, True], ids=['v2', 'v1'])
def test_create_naming_another_projects_vim_is_422(keystone_client, rpc, v1):
    vim_id = _vim('p1')
    make_package('vnfd-p2', project_id='p2')
    if v1:
        body: dict = {
            'vnfdId': 'vnfd-p2',
            'vimConnectionInfo': [
                {'id': 'v', 'vimId': vim_id, 'vimType': 'kubernetes'}
            ],
        }
        resp = keystone_client.request(
            'POST', '/vnflcm/v1/vnf_instances', body, headers={**V1, **P2}
        )
    else:
        body = {'vnfdId': 'vnfd-p2', 'vimConnectionInfo': {'v': {}}}
        body['vimConnectionInfo']['v'] = {'vimId': vim_id, 'vimType': K8S}
        resp = keystone_client.lcm('POST', '/vnf_instances', body, headers=P2)

    _refused(resp, rpc, vim_id)
    assert db.instance_list() == []


def test_modify_naming_another_projects_vim_is_422(keystone_client, rpc):
    vim_id = _vim('p1')
    inst = _instance('p2')

    resp = keystone_client.lcm(
        'PATCH',
        f'/vnf_instances/{inst["id"]}',
        {'vimConnectionInfo': {'v': {'vimId': vim_id, 'vimType': K8S}}},
        headers=P2,
        content_type='application/merge-patch+json',
    )

    _refused(resp, rpc, vim_id)


@pytest.mark.parametrize(
    'override',
    [
        {'interfaceInfo': {'endpoint': 'https://198.18.0.9:1'}},
        {'accessInfo': {'bearer_token': 'x'}},
        {'vimType': 'VNFM.NOOP.V_1'},
    ],
)
def test_a_request_never_overrides_a_registered_vim(
    keystone_client, rpc, override
):
    vim_id = _vim('p1')
    inst = _instance('p1')
    entry = {'vimId': vim_id, 'vimType': K8S, **override}

    resp = _instantiate(keystone_client, P1, inst['id'], entry)

    assert resp.status_int == 422, resp.body
    assert f'VIM {vim_id}' in json_of(resp)['detail']
    assert rpc.calls == []


def test_a_patch_of_a_stored_entry_never_overrides_its_vim(
    keystone_client, rpc
):
    vim_id = _vim('p1')
    stored = {'v': {'vimId': vim_id, 'vimType': K8S}}
    inst = _instance('p1', vim_connection_info=stored)

    resp = keystone_client.lcm(
        'PATCH',
        f'/vnf_instances/{inst["id"]}',
        {
            'vimConnectionInfo': {
                'v': {'vimType': K8S, 'interfaceInfo': {'endpoint': 'x'}}
            }
        },
        headers=P1,
        content_type='application/merge-patch+json',
    )

    assert resp.status_int == 422, resp.body
    assert rpc.calls == []


def test_own_vim_by_id_and_a_described_vim_are_accepted(keystone_client, rpc):
    """A VIM of the instance's project, named by id alone; a VIM the
    request describes itself (its id unknown in the project)."""
    vim_id = _vim('p1')
    first = _instance('p1')
    second = make_instance(
        db.package_get(first['vnf_pkg_id']), project_id='p1'
    )

    resp = _instantiate(
        keystone_client, P1, first['id'], {'vimId': vim_id, 'vimType': K8S}
    )
    assert resp.status_int == 202, resp.body
    entry = {'vimId': _vim('p2'), 'vimType': K8S, **OWN_VIM}
    resp = _instantiate(keystone_client, P1, second['id'], entry)
    assert resp.status_int == 202, resp.body
