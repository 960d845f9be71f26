"""Cancel of running operations with ``openstack vnflcm op cancel`` (the
client speaks /vnflcm/v1 here), on two conductors: the API only records the
cancel, and whichever conductor holds an op stops it. FORCEFUL kills the
sleeping hook at once; GRACEFUL lets it finish and stops at the next step.
Retry and rollback work afterwards."""

from __future__ import annotations

import time

import pytest

from vnfm_testbed.client import ClientError

pytestmark = pytest.mark.timeout(150)

LONG_SLEEP = 60  # a hook FORCEFUL must not wait for
SHORT_SLEEP = 10  # longer than the client takes to start


def _cancel(client, op_id: str, *mode: str) -> None:
    """``openstack vnflcm op cancel``. The client prints that the request
    was accepted, then exits 1 on its own bug: the command is a ShowOne
    that returns nothing (``cannot unpack non-iterable NoneType``), as it
    does against Tacker, whose cancel answers 202 without a body too."""
    try:
        out = client.run('vnflcm', 'op', 'cancel', op_id, *mode)
    except ClientError as e:
        assert 'cannot unpack non-iterable NoneType' in e.stderr, e
        out = e.stdout
    assert f'Cancel request for LCM operation {op_id} has been accepted' in (
        out
    )


def _owners(services, op_ids: list[str]) -> dict[str, str | None]:
    return dict(
        services.sql(
            'SELECT id, owner FROM vnf_lcm_op_occs WHERE id = ANY(%s)',
            (op_ids,),
        )
    )


def _running_on_both(api, services, request: dict) -> dict[str, str]:
    """Instantiate ops until both conductors hold one sleeping in its
    instantiate_start hook; op id -> owner."""
    ops: list[str] = []

    def start() -> None:
        inst_id = api.create_instance(api.V1_VNFD_ID, 'cancel')
        ops.append(api.start(inst_id, 'instantiate', request))

    start()
    start()

    def spread() -> dict[str, str] | None:
        owners = _owners(services, ops)
        if None in owners.values():
            return None
        if len(set(owners.values())) == 2:
            return owners
        assert len(ops) < 6, f'one conductor took every op: {owners}'
        start()
        return None

    return api.wait_for(spread, 20, 'ops held by both conductors')


def _hook_running(api, op_id: str) -> bool:
    inst_id = api.op(op_id)['vnfInstanceId']
    return any(h['hook'] == 'instantiate_start' for h in api.hooks(inst_id))


def test_forceful_cancel_kills_the_hook_on_whichever_conductor(
    two_conductors, api, client, pkg_v1
) -> None:
    owners = _running_on_both(
        api,
        two_conductors,
        api.instantiate_request(hook_sleep={'instantiate_start': LONG_SLEEP}),
    )
    # An owner is "<host>/<process>": each conductor holds one op.
    assert {owner.split('/')[0] for owner in owners.values()} == set(
        two_conductors.conductors()
    )
    for op_id in owners:
        api.wait_for(
            lambda op_id=op_id: _hook_running(api, op_id),
            20,
            f'the hook of {op_id} running',
        )
    for op_id in owners:
        _cancel(client, op_id, '--cancel-mode', 'FORCEFUL')
    started = time.monotonic()
    for op_id in owners:
        op = api.wait_op(op_id, 'FAILED_TEMP', timeout=10)
        assert op['isCancelPending'] is False and 'cancelMode' not in op
        assert op['error']['title'] == 'Cancelled', op['error']
        assert 'Cancelled (FORCEFUL)' in op['error']['detail']
    assert time.monotonic() - started < LONG_SLEEP / 4
    # Rollback works after it: the instance is NOT_INSTANTIATED again.
    for op_id in owners:
        client.run('vnflcm', 'op', 'rollback', op_id)
        api.wait_op(op_id, 'ROLLED_BACK', timeout=20)
        inst = api.instance(api.op(op_id)['vnfInstanceId'])
        assert inst['instantiationState'] == 'NOT_INSTANTIATED'


def test_graceful_cancel_stops_after_the_running_hook_then_retry(
    two_conductors, api, client, pkg_v1
) -> None:
    inst_id = api.create_instance(api.V1_VNFD_ID, 'cancel-graceful')
    op_id = api.start(
        inst_id,
        'instantiate',
        api.instantiate_request(hook_sleep={'instantiate_start': SHORT_SLEEP}),
    )
    api.wait_for(lambda: _hook_running(api, op_id), 20, 'the hook running')

    _cancel(client, op_id)  # GRACEFUL
    shown = api.op(op_id)
    assert shown['operationState'] == 'PROCESSING'
    assert shown['isCancelPending'] is True
    assert shown['cancelMode'] == 'GRACEFUL'
    op = api.wait_op(op_id, 'FAILED_TEMP', timeout=SHORT_SLEEP + 10)
    assert 'Cancelled (GRACEFUL)' in op['error']['detail']
    # The hook finished (it was not killed); nothing after it ran.
    hooks = [h['hook'] for h in api.hooks(inst_id)]
    assert hooks == ['instantiate_start']
    # A second cancel of a FAILED_TEMP op is refused.
    r = api.request(
        'POST',
        f'/vnflcm/v1/vnf_lcm_op_occs/{op_id}/cancel',
        version='1.3.0',
        json={'cancelMode': 'GRACEFUL'},
    )
    assert r.status_code == 409
    client.run('vnflcm', 'op', 'retry', op_id)
    api.wait_op(op_id, 'COMPLETED', timeout=SHORT_SLEEP + 20)
    assert api.instance(inst_id)['instantiationState'] == 'INSTANTIATED'
