"""Alerts of threshold rules as crossings: which alerts are theirs, a
crossing reported once, what is skipped and why."""

from __future__ import annotations

from tests.unit.server.pm_helpers import crossing_alert
from vnfm.db import outbox
from vnfm.db import pm as pm_db
from vnfm.db import registry
from vnfm.objects import threshold_alerts


def _threshold() -> dict:
    return pm_db.threshold_create(
        {
            'object_type': 'Vnf',
            'object_instance_id': 'i1',
            'criteria': {'performanceMetric': 'VCpuUsageMeanVnf'},
        },
        {'callback_uri': 'http://198.18.0.1/cb', 'interface': registry.VNFPM},
    )


def test_only_threshold_alerts_are_taken():
    assert threshold_alerts.is_threshold(crossing_alert('t', 'UP'))
    assert not threshold_alerts.is_threshold({'labels': None})


def test_a_crossing_is_recorded_once_and_resolved_alerts_ignored(db_url):
    row = _threshold()
    up = crossing_alert(row['id'], 'UP')
    resolved = dict(crossing_alert(row['id'], 'DOWN'), status='resolved')

    counts = [
        threshold_alerts.record([a], [], lambda op_id: None)
        for a in (up, up, resolved)
    ]

    assert counts == [1, 0, 0]
    assert pm_db.threshold_get(row['id'])['crossing_state'] == 'UP'
    assert len(outbox.notification_list()) == 1


def test_unusable_alerts_are_skipped_with_the_reason(db_url):
    row = _threshold()
    skipped: list[str] = []

    threshold_alerts.record(
        [
            crossing_alert(row['id'], 'SIDEWAYS'),
            crossing_alert('gone', 'UP'),
            crossing_alert(row['id'], 'UP', 'Inf'),
        ],
        skipped,
        lambda op_id: None,
    )

    assert skipped == [
        f'an alert of threshold {row["id"]}: crossing_direction '
        "'SIDEWAYS' is not UP or DOWN",
        'no threshold gone',
        'annotation value is not a finite number',
    ]
    assert pm_db.threshold_get(row['id'])['crossing_state'] is None
