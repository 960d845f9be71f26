"""VNF lifecycle through the real client with its default API version:
``openstack vnflcm ...`` without ``--os-tacker-api-version`` speaks
/vnflcm/v1 (SOL003 v2.6.1 shapes, ``Version: 1.3.0``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vnfm_testbed.client import ClientError

pytestmark = pytest.mark.timeout(180)


def _write(tmp_path: Path, name: str, body: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(body))
    return str(path)


def _lcm(client, *args: str) -> str:
    return client.run('vnflcm', *args)


def _lcm_json(client, *args: str):
    return client.json('vnflcm', *args)


def _op_of(client, inst_id: str, operation: str) -> str:
    """The newest op of ``operation`` on the instance, from ``op list``."""
    ops = _lcm_json(
        client, 'op', 'list', '--filter', f'(eq,vnfInstanceId,{inst_id})'
    )
    assert all(o['VNF Instance ID'] == inst_id for o in ops), ops
    ours = [o['ID'] for o in ops if o['Operation'] == operation]
    assert ours, ops
    return ours[-1]


def test_versions(client) -> None:
    shown = _lcm_json(client, 'versions')
    assert [v['version'] for v in shown['apiVersions']] == ['1.3.0', '2.0.0']
    shown = _lcm_json(client, 'versions', '--major-version', '1')
    assert shown['uriPrefix'] == '/vnflcm/v1'


def test_instance_lifecycle_v1(
    client, api, services, pkg_v1, pkg_v2, tmp_path: Path
) -> None:
    inst_id = _create(client, api, pkg_v1)
    op_id = _instantiate_with_a_secret(client, api, inst_id, tmp_path)
    _modify_to_v2_by_package_id(client, api, inst_id, pkg_v2, tmp_path)
    _terminate_and_delete(client, api, inst_id, op_id)
    # The VIM password never shows in the client's output or the logs.
    assert api.SECRET not in client.printed()
    assert api.SECRET not in services.log_tails(lines=100000)


def _create(client, api, pkg_v1) -> str:
    """A new instance in the default (v1) API: its package, v1 links."""
    created = _lcm_json(
        client,
        'create',
        api.V1_VNFD_ID,
        '--name',
        'it-v1',
        '--description',
        'default api version',
    )
    inst_id = created['ID']
    assert created['VNF Package ID'] == pkg_v1['id']
    assert created['Instantiation State'] == 'NOT_INSTANTIATED'
    assert created['Links']['self']['href'].endswith(
        f'/vnflcm/v1/vnf_instances/{inst_id}'
    )
    listed = {i['ID']: i for i in _lcm_json(client, 'list')}
    assert listed[inst_id]['VNF Instance Name'] == 'it-v1'
    return inst_id


def _instantiate_with_a_secret(
    client, api, inst_id: str, tmp_path: Path
) -> str:
    """Instantiate with a v1 vimConnectionInfo list holding a secret: the
    op shows it masked; returns the op id."""
    request = {
        'flavourId': 'simple',
        'vimConnectionInfo': [
            {
                'id': 'vim1',
                'vimType': 'VNFM.NOOP.V_1',
                'accessInfo': {'password': api.SECRET},
            }
        ],
    }
    out = _lcm(
        client, 'instantiate', inst_id, _write(tmp_path, 'inst.json', request)
    )
    assert inst_id in out
    op_id = _op_of(client, inst_id, 'INSTANTIATE')
    api.wait_op(op_id, 'COMPLETED')
    op = _lcm_json(client, 'op', 'show', op_id)
    assert op['Operation State'] == 'COMPLETED'
    assert op['VNF Instance ID'] == inst_id
    assert op['Operation Parameters']['vimConnectionInfo'] == [
        {
            'id': 'vim1',
            'vimType': 'VNFM.NOOP.V_1',
            'accessInfo': {'password': '********'},
        }
    ]
    assert op['Links']['self']['href'].endswith(
        f'/vnflcm/v1/vnf_lcm_op_occs/{op_id}'
    )
    shown = _lcm_json(client, 'show', inst_id)
    assert shown['Instantiation State'] == 'INSTANTIATED'
    vims = shown['VIM Connection Info']
    assert [(v['id'], v['vimType']) for v in vims] == [
        ('vim1', 'VNFM.NOOP.V_1')
    ]
    vnfcs = shown['Instantiated Vnf Info']['vnfcResourceInfo']
    assert [v['vduId'] for v in vnfcs] == ['VDU1'], vnfcs
    assert vnfcs[0]['computeResource']['vimConnectionId'] == 'vim1'
    return op_id


def _modify_to_v2_by_package_id(
    client, api, inst_id: str, pkg_v2, tmp_path: Path
) -> None:
    """Modify VNF information to the v2 package, named by vnfPkgId."""
    modify = {'vnfInstanceName': 'it-v1-2', 'vnfPkgId': pkg_v2['id']}
    out = _lcm(
        client,
        'update',
        inst_id,
        '--I',
        _write(tmp_path, 'modify.json', modify),
    )
    assert inst_id in out
    api.wait_op(_op_of(client, inst_id, 'MODIFY_INFO'), 'COMPLETED')
    shown = _lcm_json(client, 'show', inst_id)
    assert shown['VNF Instance Name'] == 'it-v1-2'
    assert shown['VNFD ID'] == api.V2_VNFD_ID
    assert shown['VNF Package ID'] == pkg_v2['id']
    assert shown['VNF Software Version'] == '2.0'


def _terminate_and_delete(client, api, inst_id: str, op_id: str) -> None:
    """Terminate, then delete; the instantiation's op, read raw in API
    1.3.0, holds no secret."""
    assert inst_id in _lcm(client, 'terminate', inst_id)
    api.wait_op(_op_of(client, inst_id, 'TERMINATE'), 'COMPLETED')
    raw = api.request(
        'GET', f'/vnflcm/v1/vnf_lcm_op_occs/{op_id}', version='1.3.0'
    )
    assert raw.status_code == 200 and raw.headers['Version'] == '1.3.0'
    assert api.SECRET not in raw.text
    assert (
        _lcm_json(client, 'show', inst_id)['Instantiation State']
        == 'NOT_INSTANTIATED'
    )
    assert 'deleted successfully' in _lcm(client, 'delete', inst_id)
    with pytest.raises(ClientError) as e:
        _lcm_json(client, 'show', inst_id)
    assert inst_id in e.value.output, e.value.output


def test_change_ext_conn_where_no_driver_can_is_refused(
    client, api, pkg_v1, tmp_path: Path
) -> None:
    # The noop VIM's driver (like Kubernetes') declares no CHANGE_EXT_CONN:
    # the user sees why at once, and no op is started that would roll back.
    inst_id = api.create_instance(api.V1_VNFD_ID, 'it-ext-conn')
    api.wait_op(
        api.start(inst_id, 'instantiate', api.instantiate_request()),
        'COMPLETED',
    )
    request = {
        'extVirtualLinks': [
            {
                'id': 'ext-vl',
                'resourceId': 'net-1',
                'extCps': [
                    {'cpdId': 'CP1', 'cpConfig': [{'cpInstanceId': 'cp-1'}]}
                ],
            }
        ]
    }
    with pytest.raises(ClientError) as e:
        _lcm(
            client,
            'change-ext-conn',
            inst_id,
            _write(tmp_path, 'ext.json', request),
        )
    assert (
        f'CHANGE_EXT_CONN is not supported for VNF instance {inst_id}: no '
        'enabled infra driver runs it on vimType VNFM.NOOP.V_1'
    ) in e.value.output, e.value.output
    ops = _lcm_json(
        client, 'op', 'list', '--filter', f'(eq,vnfInstanceId,{inst_id})'
    )
    assert [o['Operation'] for o in ops] == ['INSTANTIATE']
