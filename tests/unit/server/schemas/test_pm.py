"""CreatePmJobRequest and PmJobModifications (SOL003 v3.3.1 6.5.2): what
a PM job needs, the bounds of its periods, what a PATCH may change."""

from __future__ import annotations

import pytest

from vnfm.common import schemacheck
from vnfm.server.schemas import pm

URI = 'https://198.18.0.1/callback'


def create_error(**changes) -> str | None:
    body = {
        'objectType': 'Vnfc',
        'objectInstanceIds': ['i1'],
        'criteria': {
            'performanceMetricGroup': ['VirtualisedComputeResource'],
            'collectionPeriod': 30,
            'reportingPeriod': 60,
        },
        'callbackUri': URI,
    }
    body.update(changes)
    return schemacheck.first_error(pm.PM_JOB_CREATE, body)


def test_a_full_request_is_taken():
    assert create_error() is None


@pytest.mark.parametrize(
    ('changes', 'error'),
    [
        ({'objectType': 'Vdu'}, 'objectType'),
        ({'objectInstanceIds': []}, 'objectInstanceIds'),
        ({'criteria': {'collectionPeriod': 30}}, 'reportingPeriod'),
        (
            {'criteria': {'collectionPeriod': 0, 'reportingPeriod': 60}},
            'collectionPeriod',
        ),
        (
            {
                'criteria': {
                    'performanceMetricGroup': ['Cpu'],
                    'collectionPeriod': 30,
                    'reportingPeriod': 60,
                }
            },
            'performanceMetricGroup',
        ),
    ],
)
def test_a_bad_request_names_the_attribute(changes, error):
    found = create_error(**changes)

    assert found is not None
    assert error in found


def test_a_patch_changes_something():
    assert (
        schemacheck.first_error(pm.PM_JOB_MODIFY, {'callbackUri': URI}) is None
    )
    assert schemacheck.first_error(pm.PM_JOB_MODIFY, {}) is not None


def test_a_threshold_is_simple_with_a_non_negative_hysteresis():
    body = {
        'objectType': 'Vnf',
        'objectInstanceId': 'i1',
        'criteria': {
            'performanceMetric': 'VCpuUsageMeanVnf',
            'thresholdType': 'SIMPLE',
            'simpleThresholdDetails': {'thresholdValue': 1, 'hysteresis': 0},
        },
        'callbackUri': URI,
        'metadata': {'aspectId': 'a1'},
    }
    negative = {**body['criteria']['simpleThresholdDetails'], 'hysteresis': -1}

    assert schemacheck.first_error(pm.THRESHOLD_CREATE, body) is None
    bad = {**body, 'criteria': {**body['criteria'], 'thresholdType': 'X'}}
    assert schemacheck.first_error(pm.THRESHOLD_CREATE, bad) is not None
    worse = {
        **body,
        'criteria': {**body['criteria'], 'simpleThresholdDetails': negative},
    }
    assert 'hysteresis' in schemacheck.first_error(pm.THRESHOLD_CREATE, worse)
