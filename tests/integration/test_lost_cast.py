"""Operations accepted while no conductor runs: a cast that was lost and
one that waits in the queue both complete once a conductor starts; nothing
stays STARTING."""

from __future__ import annotations

import pytest

from vnfm_testbed import procs

pytestmark = pytest.mark.timeout(90)


def test_ops_accepted_without_conductors_complete(
    two_conductors, api, pkg_v1
) -> None:
    services = two_conductors
    services.terminate(*services.conductors())
    assert services.conductors() == []

    lost_inst = api.create_instance(api.V1_VNFD_ID, 'lost-cast')
    lost = api.start(lost_inst, 'instantiate', api.instantiate_request())

    # The broker loses the doorbell (as at-most-once delivery may).
    def drop() -> bool:
        n = procs.purge_queue(services.transport_url, procs.CONDUCTOR_TOPIC)
        return n != 0  # -1: no queue, so the cast went nowhere anyway

    api.wait_for(drop, 5, "the cast to reach the conductors' queue")
    queued_inst = api.create_instance(api.V1_VNFD_ID, 'queued-cast')
    queued = api.start(queued_inst, 'instantiate', api.instantiate_request())
    api.wait_for(
        lambda: (
            procs.queue_info(services.transport_url, procs.CONDUCTOR_TOPIC)
            == (1, 0)
        ),
        5,
        'the second cast waiting in the queue',
    )
    assert api.op(lost)['operationState'] == 'STARTING'
    assert api.op(queued)['operationState'] == 'STARTING'

    services.start_conductors(1)
    # unclaimed_grace_seconds is 2 and the sweep runs every 0.5 s.
    for op_id in (queued, lost):
        api.wait_op(op_id, 'COMPLETED', timeout=20)
    for inst_id in (lost_inst, queued_inst):
        assert api.instance(inst_id)['instantiationState'] == 'INSTANTIATED'
    starting = services.sql(
        "SELECT id FROM vnf_lcm_op_occs WHERE operation_state = 'STARTING'"
    )
    assert starting == []
