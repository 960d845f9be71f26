"""The cluster VMs a SCALE_IN removes, known before the infra driver
removes them, so that their Nodes are drained first."""

from __future__ import annotations

import time
from typing import Any

import pytest

from vnfm.drivers import scaling
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import scalein

VNFD = {
    'vnfd_id': 'cluster',
    'flavours': {
        'cluster_install': {
            'flavour_id': 'cluster_install',
            'vdus': {
                'masterNode': {'min_instances': 1},
                'workerNode': {'initial_delta': 1},
            },
            'scaling_aspects': {
                'worker_instance': {
                    'max_scale_level': 3,
                    'vdu_deltas': {'workerNode': {'delta_1': 1}},
                    'step_deltas': ['delta_1'],
                },
            },
        }
    },
}


def _vnfc(vnfc_id: str, vdu_id: str, created: str) -> dict[str, Any]:
    return {
        'id': vnfc_id,
        'vduId': vdu_id,
        'metadata': {'creation_time': created},
    }


def _vm(vnfc_id: str, role: str = nodes.WORKER) -> nodes.VmNode:
    return nodes.VmNode(
        role=role,
        vnfc_id=vnfc_id,
        vdu_id='workerNode' if role == nodes.WORKER else 'masterNode',
        resource_id=f'server-{vnfc_id}',
        ssh_address='198.18.0.1',
        node_address='198.18.0.1',
    )


CLUSTER = [_vm('m1', nodes.MASTER), _vm('w1'), _vm('w2'), _vm('w3')]
INFO = {
    'flavourId': 'cluster_install',
    'scaleStatus': [{'aspectId': 'worker_instance', 'scaleLevel': 2}],
    'vnfcResourceInfo': [
        _vnfc('m1', 'masterNode', '2026-11-26T05:00:00Z'),
        _vnfc('w1', 'workerNode', '2026-11-26T06:00:00Z'),
        _vnfc('w3', 'workerNode', '2026-11-26T06:02:00Z'),
        _vnfc('w2', 'workerNode', '2026-11-26T06:01:00Z'),
    ],
    'vnfcInfo': [{'id': 'worker-w1', 'vnfcResourceInfoId': 'w1'}],
}


def _ctx(**request: Any) -> base.HookContext:
    return base.HookContext(
        hook='scale_start',
        operation='SCALE',
        vnf_instance={'id': 'inst-1', 'instantiatedVnfInfo': INFO},
        vnf_lcm_op_occ={},
        request={'type': 'SCALE_IN', 'aspectId': 'worker_instance', **request},
        vim_connection_info={},
        vnfd=VNFD,
        package=None,  # type: ignore[arg-type]
        definition={},
        deadline=time.monotonic() + 60,
    )


def _leaving(**request: Any) -> list[str]:
    return [n.vnfc_id for n in scalein.leaving(_ctx(**request), CLUSTER)]


def test_the_newest_workers_leave_as_many_as_the_steps_take_away() -> None:
    assert _leaving() == ['w3']
    assert _leaving(numberOfSteps=2) == ['w2', 'w3']


def test_the_workers_the_request_names_leave_first() -> None:
    named = {scalein.REMOVE: ['worker-w1']}
    assert _leaving(additionalParams=named) == ['w1']
    # One named, two steps: the named one, then the newest.
    assert _leaving(additionalParams=named, numberOfSteps=2) == ['w1', 'w3']


def test_a_scale_in_past_level_zero_drains_nothing() -> None:
    with pytest.raises(scaling.ScaleNotPossible, match='outside 0..3'):
        _leaving(numberOfSteps=3)
