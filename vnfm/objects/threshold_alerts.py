"""Alertmanager alerts of PM threshold rules (label ``function_type:
vnfpm_threshold``) as threshold crossings.

labels       ``threshold_id``, ``crossing_direction`` (UP: above
             thresholdValue + hysteresis, DOWN: below thresholdValue -
             hysteresis), ``sub_object_instance_id`` (optional)
annotations  ``value``: the measured value

A firing alert on the other side than the threshold was last seen on is
a crossing: recorded (compare-and-set, so concurrent or retried posts
report it once) with a ThresholdCrossedNotification, then judged by
auto-scale. A repeat of the alert on the same side is judged again only
if auto-scale left the last crossing WAITING. Resolved alerts change
nothing (the other side's alert reports the next crossing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.db import api as db
from vnfm.db import pm as pm_db
from vnfm.objects import alerts
from vnfm.objects import autoscale
from vnfm.objects import pm_alerts
from vnfm.objects import threshold as threshold_obj

FUNCTION_TYPE = 'vnfpm_threshold'
_DIRECTIONS = (threshold_obj.UP, threshold_obj.DOWN)


def is_threshold(alert: Any) -> bool:
    """Whether an alert reports a threshold's side."""
    return alerts.is_for(alert, FUNCTION_TYPE)


def record(
    posted: list[dict], skipped: list[str], start: Callable[[str], object]
) -> int:
    """Record the crossings of a post's threshold alerts (``skipped``
    gets the reasons of those left out) and judge them for auto-scale;
    how many crossings."""
    count = 0
    for alert in posted:
        if alert.get('status') == 'resolved':
            continue
        try:
            count += _crossing(alert, start)
        except ValueError as e:
            skipped.append(str(e))
    return count


def _crossing(alert: dict, start: Callable[[str], object]) -> int:
    labels = alert['labels']
    threshold_id = str(labels.get('threshold_id') or '')[:60]
    direction = labels.get('crossing_direction')
    if direction not in _DIRECTIONS:
        raise ValueError(
            f'an alert of threshold {threshold_id}: crossing_direction '
            f'{str(direction)[:20]!r} is not UP or DOWN'
        )
    try:
        row = pm_db.threshold_get(threshold_id)
    except exceptions.NotFound:
        raise ValueError(f'no threshold {threshold_id}') from None
    value = pm_alerts.value_of(alert)
    if row['crossing_state'] == direction:
        last = row.get('last_crossing') or {}
        if last.get('decision') == autoscale.WAITING:
            _judge(row, direction, start)
        return 0
    now = timeutils.utcnow()
    first_below = row['crossing_state'] is None and direction == 'DOWN'
    notes = (
        []
        if first_below
        else [
            threshold_obj.crossed(
                row,
                direction,
                value,
                labels.get('sub_object_instance_id'),
                now,
            )
        ]
    )
    try:
        row = pm_db.threshold_cross(row, {'crossing_state': direction}, notes)
    except exceptions.Conflict:
        return 0  # another post recorded this crossing
    if not first_below:
        _judge(row, direction, start)
    return len(notes)


def _judge(row: dict, direction: str, start: Callable[[str], object]) -> None:
    try:
        instance = db.instance_get(row['object_instance_id'])
    except exceptions.NotFound:
        return
    if not autoscale.enabled(instance):
        return
    now = timeutils.utcnow()
    decision = autoscale.judge(row, direction, start, now)
    pm_db.threshold_record(
        row['id'],
        {'last_crossing': autoscale.details(decision, direction, now)},
    )
