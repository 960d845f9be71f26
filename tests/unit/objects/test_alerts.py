"""Alertmanager's alerts read as vnfm sees them: times, VNFCs, scope."""

from __future__ import annotations

import datetime

import pytest

from vnfm.objects import alerts

INSTANCE = {
    'id': 'i1',
    'instantiated_vnf_info': {
        'vnfcResourceInfo': [
            {'id': 'r1', 'computeResource': {'resourceId': 'pod-1'}},
            {'id': 'r2', 'computeResource': {'resourceId': 'vm-2'}},
        ],
        'vnfcInfo': [{'id': 'c2', 'vnfcResourceInfoId': 'r2'}],
    },
}


@pytest.mark.parametrize(
    ('text', 'expected'),
    [
        ('2026-11-27T10:00:00Z', datetime.datetime(2026, 11, 27, 10)),
        (
            '2026-11-27T10:00:00.123456789Z',
            datetime.datetime(2026, 11, 27, 10, 0, 0, 123456),
        ),
        (
            '2026-11-27T12:00:00.5+02:00',
            datetime.datetime(2026, 11, 27, 10, 0, 0, 500000),
        ),
        ('0001-01-01T00:00:00Z', None),  # Alertmanager's "not set"
        ('yesterday', None),
        (None, None),
    ],
)
def test_parse_time(text, expected):
    assert alerts.parse_time(text) == expected


@pytest.mark.parametrize(
    ('labels', 'vnfc'),
    [
        ({'pod': 'pod-1'}, 'r1'),
        ({'server_id': 'vm-2'}, 'r2'),
        ({'vnfc_info_id': 'c2'}, 'r2'),
        ({'vnfc_info_id': 'r1'}, 'r1'),
        ({'pod': 'pod-9'}, None),
        ({}, None),
    ],
)
def test_vnfc_of(labels, vnfc):
    found = alerts.vnfc_of(INSTANCE, labels)

    assert (found or {}).get('id') == vnfc


@pytest.mark.parametrize(
    ('labels', 'mine'),
    [
        ({'function_type': 'vnffm'}, True),
        ({'function_type': 'vnffm', 'receiver_type': 'tacker'}, True),
        ({'function_type': 'vnffm', 'receiver_type': 'other'}, False),
        ({'function_type': 'vnfpm'}, False),
        ({}, False),
    ],
)
def test_is_vnffm(labels, mine):
    assert alerts.is_vnffm({'labels': labels}) is mine
    assert alerts.is_vnffm('not an alert') is False
