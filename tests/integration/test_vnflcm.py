"""VNF lifecycle through the real client:
``openstack --os-tacker-api-version 2 vnflcm ...``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vnfm_testbed.client import ClientError

pytestmark = pytest.mark.timeout(180)

FINAL = ('COMPLETED', 'FAILED', 'ROLLED_BACK')


def _write(tmp_path: Path, name: str, body: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(body))
    return str(path)


def _op_of(client, inst_id: str, operation: str) -> str:
    """The id of the newest op of ``operation`` on the instance, as
    ``op list`` shows it."""
    ops = client.lcm_json(
        'op', 'list', '--filter', f'(eq,vnfInstanceId,{inst_id})'
    )
    assert all(o['VNF Instance ID'] == inst_id for o in ops), ops
    ours = [o for o in ops if o['Operation'] == operation]
    assert ours, ops
    unfinished = [o for o in ours if o['Operation State'] not in FINAL]
    return (unfinished or ours)[-1]['ID']


def _hooks(api, inst_id: str) -> list[str]:
    return [r['hook'] for r in api.hooks(inst_id)]


def test_instance_lifecycle(
    client, api, services, pkg_v1, pkg_v2, tmp_path: Path
) -> None:
    inst_id = _create(client, api)
    op_id, records = _instantiate(client, api, inst_id, tmp_path)
    _modify_to_v2(client, api, inst_id, tmp_path)
    _terminate_and_delete(client, api, inst_id)
    _secret_masked(client, api, services, op_id, records)


def _create(client, api) -> str:
    """A new instance of the v1 package: NOT_INSTANTIATED, listed."""
    created = client.lcm_json(
        'create',
        api.V1_VNFD_ID,
        '--name',
        'it-vnf',
        '--description',
        'integration',
    )
    inst_id = created['ID']
    assert created['VNF Instance Name'] == 'it-vnf'
    assert created['VNF Instance Description'] == 'integration'
    assert created['Instantiation State'] == 'NOT_INSTANTIATED'
    assert created['VNFD ID'] == api.V1_VNFD_ID
    assert created['VNF Product Name'] == 'Noop Sample VNF'
    listed = {i['ID']: i for i in client.lcm_json('list')}
    assert listed[inst_id]['Instantiation State'] == 'NOT_INSTANTIATED'
    return inst_id


def _instantiate(
    client, api, inst_id: str, tmp_path: Path
) -> tuple[str, list[dict]]:
    """Instantiate: one VNFC, the noop VIM, the hooks run with the request;
    returns the op id and the hook records."""
    request = api.instantiate_request(note='hello')
    out = client.lcm(
        'instantiate', inst_id, _write(tmp_path, 'inst.json', request)
    )
    assert inst_id in out
    op_id = _op_of(client, inst_id, 'INSTANTIATE')
    api.wait_op(op_id, 'COMPLETED')
    op = client.lcm_json('op', 'show', op_id)
    assert op['Operation State'] == 'COMPLETED'
    assert op['Operation'] == 'INSTANTIATE'
    assert op['VNF Instance ID'] == inst_id
    shown = client.lcm_json('show', inst_id)
    assert shown['Instantiation State'] == 'INSTANTIATED'
    info = shown['Instantiated Vnf Info']
    assert info['flavourId'] == 'simple'
    vnfcs = info['vnfcResourceInfo']
    assert [v['vduId'] for v in vnfcs] == ['VDU1'], vnfcs
    assert vnfcs[0]['computeResource']['resourceId'], vnfcs
    vim = shown['VIM Connection Info']['vim1']
    assert vim['vimType'] == 'VNFM.NOOP.V_1'
    records = api.hooks(inst_id)
    assert [r['hook'] for r in records] == [
        'instantiate_start',
        'instantiate_end',
    ]
    for r in records:
        assert r['request']['flavourId'] == 'simple'
        assert r['request']['additionalParams'] == {'note': 'hello'}
    return op_id, records


def _modify_to_v2(client, api, inst_id: str, tmp_path: Path) -> None:
    """Modify VNF information, moving to the v2 package."""
    modify = {
        'vnfInstanceName': 'it-vnf-2',
        'metadata': {'owner': 'integration'},
        'vnfdId': api.V2_VNFD_ID,
    }
    client.lcm(
        'update', inst_id, '--I', _write(tmp_path, 'modify.json', modify)
    )
    api.wait_op(_op_of(client, inst_id, 'MODIFY_INFO'), 'COMPLETED')
    shown = client.lcm_json('show', inst_id)
    assert shown['VNF Instance Name'] == 'it-vnf-2'
    assert shown['VNFD ID'] == api.V2_VNFD_ID
    assert shown['VNF Software Version'] == '2.0'
    assert shown['metadata'] == {'owner': 'integration'}
    assert shown['Instantiation State'] == 'INSTANTIATED'
    assert _hooks(api, inst_id)[2:] == [
        'modify_information_start',
        'modify_information_end',
    ]


def _terminate_and_delete(client, api, inst_id: str) -> None:
    """Terminate, then delete: the instance is gone."""
    client.lcm('terminate', inst_id)
    api.wait_op(_op_of(client, inst_id, 'TERMINATE'), 'COMPLETED')
    assert api.instance(inst_id)['instantiationState'] == 'NOT_INSTANTIATED'
    assert _hooks(api, inst_id)[4:] == ['terminate_start', 'terminate_end']
    assert 'deleted successfully' in client.lcm('delete', inst_id)
    with pytest.raises(ClientError) as e:
        client.lcm_json('show', inst_id)
    assert inst_id in e.value.output, e.value.output


def _secret_masked(
    client, api, services, op_id: str, records: list[dict]
) -> None:
    """The VIM password was masked everywhere a user or operator looks."""
    assert api.SECRET not in client.printed()
    assert api.SECRET not in api.lcm('GET', f'/vnf_lcm_op_occs/{op_id}').text
    logs = services.log_tails(lines=100000)
    assert api.SECRET not in logs
    assert services.crypto_key not in logs
    # Hook scripts get the request as the user sent it, minus the secret
    # (and without vnfm's internal sealed copy of it).
    seen = json.dumps([r['request'] for r in records])
    assert api.SECRET not in seen
    assert '_sealed' not in seen, seen


def _failing_instantiate(
    client, api, tmp_path: Path, vnfd_id: str, **params
) -> tuple[str, str]:
    """Instantiate with a failing instantiate_end hook; wait for
    FAILED_TEMP."""
    inst_id = api.create_instance(vnfd_id, name='it-fail')
    request = api.instantiate_request(fail_hook='instantiate_end', **params)
    client.lcm('instantiate', inst_id, _write(tmp_path, 'fail.json', request))
    op_id = _op_of(client, inst_id, 'INSTANTIATE')
    api.wait_op(op_id, 'FAILED_TEMP')
    return inst_id, op_id


def _state(api, inst_id: str) -> str:
    return api.instance(inst_id)['instantiationState']


def test_failed_hook_then_rollback(
    client, api, pkg_v1, tmp_path: Path
) -> None:
    inst_id, op_id = _failing_instantiate(
        client, api, tmp_path, api.V1_VNFD_ID
    )
    op = client.lcm_json('op', 'show', op_id)
    assert op['Operation State'] == 'FAILED_TEMP'
    # The script's own stderr tells the user what went wrong.
    error = op['Error']
    assert 'instantiate_end failed on purpose' in error['detail'], error
    assert error['status'] >= 400

    client.lcm('op', 'rollback', op_id)
    api.wait_op(op_id, 'ROLLED_BACK')
    assert _state(api, inst_id) == 'NOT_INSTANTIATED'
    assert _hooks(api, inst_id)[:2] == ['instantiate_start', 'instantiate_end']
    # Nothing blocks the instance any more.
    op_id = api.start(inst_id, 'instantiate', api.instantiate_request())
    api.wait_op(op_id, 'COMPLETED')


def test_failed_hook_fixed_then_retry(
    client, api, pkg_retry, zips, tmp_path: Path
) -> None:
    marker = tmp_path / 'still-broken'
    marker.write_text('')
    inst_id, op_id = _failing_instantiate(
        client, api, tmp_path, zips['retry'].vnfd_id, fail_marker=str(marker)
    )
    marker.unlink()  # the operator fixes the cause
    client.lcm('op', 'retry', op_id)
    api.wait_op(op_id, 'COMPLETED')
    assert _state(api, inst_id) == 'INSTANTIATED'
    assert _hooks(api, inst_id).count('instantiate_end') == 2


def test_failed_hook_then_fail(client, api, pkg_v1, tmp_path: Path) -> None:
    inst_id, op_id = _failing_instantiate(
        client, api, tmp_path, api.V1_VNFD_ID
    )
    failed = client.lcm_json('op', 'fail', op_id)
    assert failed['Operation State'] == 'FAILED'
    assert api.op(op_id)['operationState'] == 'FAILED'
    # FAILED is final: no retry, and the instance is free again.
    with pytest.raises(ClientError) as e:
        client.lcm('op', 'retry', op_id)
    assert 'FAILED' in e.value.output, e.value.output
    assert _state(api, inst_id) == 'NOT_INSTANTIATED'
    op_id = api.start(inst_id, 'instantiate', api.instantiate_request())
    api.wait_op(op_id, 'COMPLETED')
