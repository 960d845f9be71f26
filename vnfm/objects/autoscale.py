"""Auto-scale: a threshold of an instance whose
``vnfConfigurableProperties.isAutoscaleEnabled`` is true, crossed UP,
starts a SCALE_OUT of one step of the aspect it names
(``metadata.aspectId``, else the instance's only aspect); crossed DOWN, a
SCALE_IN, as ``POST .../scale`` does (an op occurrence STARTING with its
notifications, then a cast), marked ``isAutomaticInvocation``.

Each crossing is judged when it arrives and the decision recorded on the
threshold (``last_crossing``; the Threshold shows it as ``autoScale``,
and vnfm-api logs it):

SCALE_STARTED  the scale op it started.
WAITING        another op runs on the instance, or it is in its cool-down
               after an automatic scale (``[performance_management]
               autoscale_cooldown``); Prometheus keeps the alert firing
               while the value stays across, and each repeat of it is
               judged again against the state after that.
NOT_SCALED     why not: auto-scale off, no aspect, the level at its bound,
               the instance not instantiated, no driver that scales.
"""

from __future__ import annotations

import datetime
import logging
from collections.abc import Mapping
from typing import Any

from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.objects import automatic
from vnfm.objects import scale_level
from vnfm.objects import states
from vnfm.objects import vnf_instance

LOG = logging.getLogger(__name__)

SCALE = states.LcmOperation.SCALE.value
SCALE_STARTED, NOT_SCALED = 'SCALE_STARTED', 'NOT_SCALED'
WAITING = automatic.WAITING
INSTANTIATED = 'INSTANTIATED'
_FINAL = frozenset(s.value for s in states.FINAL_OP_STATES)
Start = automatic.Start


Decision = automatic.Decision
_Decided = automatic.Decided


def enabled(instance: Mapping[str, Any]) -> bool:
    """Whether auto-scale is on for an instance."""
    props = instance.get('vnf_configurable_properties') or {}
    return props.get('isAutoscaleEnabled') is True


def judge(
    threshold: Mapping[str, Any],
    direction: str,
    start: Start,
    now: datetime.datetime | None = None,
) -> Decision:
    """Judge a crossing of ``threshold`` (UP or DOWN) and start its scale
    if due."""
    now = now or timeutils.utcnow()
    try:
        decision = _judge(threshold, direction, start, now)
    except _Decided as d:
        decision = d.decision
    LOG.info(
        'Auto-scale, threshold %s crossed %s: %s (%s)',
        threshold['id'],
        direction,
        decision.state,
        decision.reason,
    )
    return decision


def _judge(
    threshold: Mapping[str, Any],
    direction: str,
    start: Start,
    now: datetime.datetime,
) -> Decision:
    try:
        instance = db.instance_get(threshold['object_instance_id'])
    except exceptions.NotFound:
        raise _Decided(NOT_SCALED, 'the VNF instance is gone') from None
    if not enabled(instance):
        raise _Decided(
            NOT_SCALED,
            'vnfConfigurableProperties.isAutoscaleEnabled is not true for '
            'the VNF instance',
        )
    if instance['instantiation_state'] != INSTANTIATED:
        raise _Decided(NOT_SCALED, 'the VNF instance is not instantiated')
    ops = db.op_list({'vnf_instance_id': instance['id']})
    active = [o for o in ops if o['operation_state'] not in _FINAL]
    if active:
        op = active[0]
        raise _Decided(
            WAITING,
            f'operation {op["id"]} ({op["operation"]}) is '
            f'{op["operation_state"]}; judged again at the next alert',
        )
    automatic.check_cooldown(
        ops, SCALE, CONF.performance_management.autoscale_cooldown, now
    )
    scale_type = 'SCALE_OUT' if direction == 'UP' else 'SCALE_IN'
    aspect = _aspect(threshold, instance, scale_type)
    op_id = automatic.start(
        instance,
        SCALE,
        {
            'type': scale_type,
            'aspectId': aspect,
            'numberOfSteps': 1,
            'additionalParams': {'thresholdId': threshold['id']},
        },
    )
    start(op_id)
    return Decision(
        SCALE_STARTED, f'{scale_type} of aspect {aspect} started', op_id
    )


def _aspect(
    threshold: Mapping[str, Any],
    instance: Mapping[str, Any],
    scale_type: str,
) -> str:
    info = instance.get('instantiated_vnf_info') or {}
    levels = scale_level.current_levels(info)
    aspect = (threshold.get('threshold_metadata') or {}).get('aspectId')
    if aspect is None:
        if len(levels) != 1:
            raise _Decided(
                NOT_SCALED,
                f'the VNF instance has {len(levels)} aspects; name one in '
                "the threshold's metadata.aspectId",
            )
        aspect = next(iter(levels))
    if aspect not in levels:
        raise _Decided(NOT_SCALED, f'aspect {aspect} is not scalable')
    maximum = {
        e.get('aspectId'): e.get('scaleLevel')
        for e in info.get('maxScaleLevels') or []
    }.get(aspect)
    level = levels[aspect]
    if scale_type == 'SCALE_IN' and level <= 0:
        raise _Decided(NOT_SCALED, f'aspect {aspect} is at level 0')
    if (
        scale_type == 'SCALE_OUT'
        and isinstance(maximum, int)
        and level >= maximum
    ):
        raise _Decided(
            NOT_SCALED, f'aspect {aspect} is at its maximum level {level}'
        )
    why = scale_level.unscalable(info).get(aspect)
    types = vnf_instance.vim_types(instance.get('vim_connection_info'))
    if why is None and SCALE not in vnf_instance.enabled_infra().operations(
        types
    ):
        why = 'no enabled infra driver runs SCALE'
    if why:
        raise _Decided(NOT_SCALED, why)
    return str(aspect)


def details(
    decision: Decision, direction: str, now: datetime.datetime
) -> dict:
    """A decision as the threshold records it (``autoScale``)."""
    return {'crossingDirection': direction, **decision.details(now)}
