"""A conductor killed in the middle of operations: its ops, and only its
ops, become FAILED_TEMP once its lease expires, saying which conductor died;
a retry finishes them on the survivor."""

from __future__ import annotations

import signal

import pytest

pytestmark = pytest.mark.timeout(120)

# Long enough for the victim's lease (4 s) to expire while the others run.
HOOK_SLEEP = 8


def _owners(services, op_ids: list[str]) -> dict[str, str | None]:
    """The conductor (host name) holding each op (None once the op left
    it); the owner column names the conductor's process: host/process."""
    return {
        op_id: owner and owner.split('/')[0]
        for op_id, owner in services.sql(
            'SELECT id, owner FROM vnf_lcm_op_occs WHERE id = ANY(%s)',
            (op_ids,),
        )
    }


def test_killed_conductor_ops_fail_over(
    two_conductors, api, client, pkg_v1
) -> None:
    services = two_conductors
    by_owner = _ops_on_both_conductors(services, api)
    victim, survivor = sorted(by_owner)

    services.kill(victim, signal.SIGKILL)
    _victims_ops_fail_naming_it(api, victim, by_owner[victim])
    _survivors_ops_untouched(services, api, survivor, by_owner[survivor])
    _retry_finishes_one_on_the_survivor(client, api, by_owner[victim])


def _ops_on_both_conductors(services, api) -> dict[str, list[str]]:
    """Instantiations (their start hook sleeping) started until both
    conductors run some, all PROCESSING; their ids by owner."""
    request = api.instantiate_request(
        hook_sleep={'instantiate_start': HOOK_SLEEP}
    )

    def start() -> str:
        inst_id = api.create_instance(api.V1_VNFD_ID, 'failover')
        return api.start(inst_id, 'instantiate', request)

    ops = [start(), start()]

    def split() -> dict[str, list[str]] | None:
        owners = _owners(services, ops)
        if None in owners.values() or len(owners) < len(ops):
            return None
        by_owner: dict[str, list[str]] = {}
        for op_id, owner in owners.items():
            by_owner.setdefault(owner, []).append(op_id)
        if len(by_owner) == 2:
            return by_owner
        # All went to one conductor (rare: the queue is round-robin).
        assert len(ops) < 6, f'one conductor took every op: {owners}'
        ops.append(start())
        return None

    by_owner = api.wait_for(split, 15, 'ops owned by both conductors')
    assert set(by_owner) == set(services.conductors())
    for op_id in ops:
        assert api.op(op_id)['operationState'] == 'PROCESSING'
    return by_owner


def _victims_ops_fail_naming_it(api, victim: str, op_ids: list[str]) -> None:
    """The killed conductor's ops become FAILED_TEMP once its lease
    expires, saying which conductor it was."""
    for op_id in op_ids:
        op = api.wait_op(op_id, 'FAILED_TEMP', timeout=15)
        detail = op['error']['detail']
        assert victim in detail and 'lease' in detail.lower(), op['error']


def _survivors_ops_untouched(
    services, api, survivor: str, op_ids: list[str]
) -> None:
    """The survivor's ops were never touched: still running under their
    owner (or done), then COMPLETED."""
    for op_id in op_ids:
        [(owner, state)] = services.sql(
            'SELECT owner, operation_state FROM vnf_lcm_op_occs WHERE id = %s',
            (op_id,),
        )
        host = owner and owner.split('/')[0]
        assert (state, host) in {
            ('PROCESSING', survivor),
            ('COMPLETED', None),
        }, (state, owner)
    for op_id in op_ids:
        api.wait_op(op_id, 'COMPLETED', timeout=HOOK_SLEEP + 10)


def _retry_finishes_one_on_the_survivor(
    client, api, failed: list[str]
) -> None:
    """A retry of the first failed op completes it; the others stay
    FAILED_TEMP, waiting for the user (not retried behind their back)."""
    retried = failed[0]
    client.lcm('op', 'retry', retried)
    api.wait_op(retried, 'COMPLETED', timeout=HOOK_SLEEP + 15)
    inst_id = api.op(retried)['vnfInstanceId']
    assert api.instance(inst_id)['instantiationState'] == 'INSTANTIATED'
    for op_id in failed[1:]:
        assert api.op(op_id)['operationState'] == 'FAILED_TEMP'
