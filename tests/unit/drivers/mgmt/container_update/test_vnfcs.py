"""VNFCs keep their ids and follow their restarted Pods."""

from __future__ import annotations

from vnfm.drivers.mgmt.container_update import planner
from vnfm.drivers.mgmt.container_update import vnfcs


def _vnfc(vnfc_id: str, vdu: str, pod: str) -> dict:
    return {
        'id': vnfc_id,
        'vduId': vdu,
        'computeResource': {
            'vimConnectionId': 'vim',
            'resourceId': pod,
            'vimLevelResourceType': 'Deployment',
        },
    }


def _change(name: str, pods: list[str]) -> planner.WorkloadChange:
    return planner.WorkloadChange(
        key=('Deployment', 'ns', name),
        method=planner.ROLLOUT,
        desired={},
        images={},
        config_hash='h',
        reasons=['uses ConfigMap a, replaced'],
        pods=pods,
        template_stale=True,
        previous_images={},
        previous_hash=None,
    )


INFO = {
    'metadata': {
        'vdus': {
            'VDU1': {
                'apiVersion': 'apps/v1',
                'kind': 'Deployment',
                'name': 'web',
                'namespace': 'ns',
            },
            'VDU2': {
                'apiVersion': 'apps/v1',
                'kind': 'Deployment',
                'name': 'db',
                'namespace': 'ns',
            },
        }
    },
    'vnfcResourceInfo': [
        _vnfc('a', 'VDU1', 'web-1'),
        _vnfc('b', 'VDU1', 'web-2'),
        _vnfc('c', 'VDU2', 'db-0'),
    ],
}


def test_ids_stay_and_resource_ids_follow_the_new_pods() -> None:
    new, affected = vnfcs.follow(
        INFO,
        [_change('web', ['web-1', 'web-2'])],
        {('Deployment', 'ns', 'web'): ['web-3', 'web-4']},
    )
    assert [(v['id'], v['computeResource']['resourceId']) for v in new] == [
        ('a', 'web-3'),
        ('b', 'web-4'),
        ('c', 'db-0'),
    ]
    assert [
        (a['id'], a['changeType'], a['metadata']['previousResourceId'])
        for a in affected
    ] == [('a', 'MODIFIED', 'web-1'), ('b', 'MODIFIED', 'web-2')]


def test_a_pod_restarted_under_the_same_name_is_modified() -> None:
    _, affected = vnfcs.follow(
        INFO, [_change('db', ['db-0'])], {('Deployment', 'ns', 'db'): ['db-0']}
    )
    assert [(a['id'], a['changeType']) for a in affected] == [
        ('c', 'MODIFIED')
    ]


def test_vnfc_info_keeps_existing_entries() -> None:
    old = [
        {
            'id': 'VDU1-a',
            'vduId': 'VDU1',
            'vnfcResourceInfoId': 'a',
            'vnfcState': 'STARTED',
            'vnfcConfigurableProperties': {'x': 1},
        }
    ]
    info = vnfcs.vnfc_info(old, INFO['vnfcResourceInfo'])
    assert info[0] == old[0]
    assert info[1]['id'] == 'VDU1-b'
