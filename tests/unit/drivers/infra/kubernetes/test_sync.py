"""synced_info: replaced Pods are followed; a VDU in flux is left alone."""

from __future__ import annotations

import pytest

from vnfm.drivers.infra.kubernetes import sync
from vnfm.drivers.infra.kubernetes import vnfcs

IID = 'inst-1'


def _entry(vdu, ordinal, pod):
    return {
        'id': vnfcs.vnfc_id(IID, vdu, ordinal),
        'vduId': vdu,
        'computeResource': {
            'vimConnectionId': 'vim1',
            'resourceId': pod,
            'vimLevelResourceType': 'Deployment',
        },
    }


INFO = {
    'flavourId': 'simple',
    'vnfcResourceInfo': [
        _entry('VDU1', 0, 'web-a'),
        _entry('VDU1', 1, 'web-b'),
        _entry('VDU2', 0, 'helper'),
    ],
    'vnfcInfo': [{'id': 'x'}],
    'metadata': {'vdus': {}},
}


@pytest.fixture
def live(monkeypatch):
    """Set the vnfcResourceInfo the cluster 'has' now."""
    state = {}

    def fake(vim_id, vim, instance_id, info):
        return state['entries']

    monkeypatch.setattr(sync, 'sync_vnfc_resource_info', fake)
    return state


def test_replaced_pod_is_followed_with_the_same_vnfc_id(live):
    live['entries'] = [
        _entry('VDU1', 0, 'web-a'),
        _entry('VDU1', 1, 'web-c'),
        _entry('VDU2', 0, 'helper'),
    ]
    out = sync.synced_info('vim1', {}, IID, INFO)
    assert [
        e['computeResource']['resourceId'] for e in out['vnfcResourceInfo']
    ] == ['web-a', 'web-c', 'helper']
    assert [e['id'] for e in out['vnfcResourceInfo']] == [
        e['id'] for e in INFO['vnfcResourceInfo']
    ]
    assert out['vnfcInfo'] == INFO['vnfcInfo']
    assert out['flavourId'] == 'simple'


def test_nothing_replaced_is_none(live):
    live['entries'] = INFO['vnfcResourceInfo']
    assert sync.synced_info('vim1', {}, IID, INFO) is None


def test_vdu_whose_pod_count_differs_is_left_as_stored(live):
    # VDU1: the old Pod is terminating and its replacement not created yet
    # (one live Pod of two); VDU2's Pod was replaced.
    live['entries'] = [
        _entry('VDU1', 0, 'web-a'),
        _entry('VDU2', 0, 'helper-2'),
    ]
    out = sync.synced_info('vim1', {}, IID, INFO)
    assert [
        e['computeResource']['resourceId'] for e in out['vnfcResourceInfo']
    ] == ['web-a', 'web-b', 'helper-2']


def test_only_a_vdu_in_flux_is_none(live):
    live['entries'] = [_entry('VDU1', 0, 'web-a'), _entry('VDU2', 0, 'helper')]
    assert sync.synced_info('vim1', {}, IID, INFO) is None
