"""POST /alert: the receiver of Alertmanager's webhook (payload version 4),
the path Tacker's Prometheus plugin serves too.

Alertmanager authenticates with what ``[fault_management]`` configures: a
bearer token (``http_config.authorization``) or HTTP basic authentication
(``http_config.basic_auth``); with neither configured every post is
refused. The body is bounded by ``[api] max_request_body_size`` and
``[fault_management] max_alerts_per_post``. The alerts of one post are
recorded in one transaction; Alertmanager's retries of a post change
nothing more (an alarm is keyed by the alert's fingerprint and startsAt).
Then each new alarm of an instance with auto-heal on is judged
(``vnfm.objects.autoheal``). Alerts labelled ``function_type: vnfpm``
become the performance reports of PM jobs (``vnfm.objects.pm_alerts``),
those labelled ``function_type: vnfpm_threshold`` threshold crossings,
judged by auto-scale (``vnfm.objects.threshold_alerts``).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import logging

import webob

from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import alarms as alarm_db
from vnfm.objects import alarm
from vnfm.objects import alerts
from vnfm.objects import autoheal
from vnfm.objects import pm_alerts
from vnfm.objects import threshold_alerts
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.request import ApiRequest

LOG = logging.getLogger(__name__)

_EVENT_NOTIFICATION = {
    alarm_db.RAISED: alarm.ALARM,
    alarm_db.CHANGED: alarm.ALARM,
    alarm_db.CLEARED: alarm.ALARM_CLEARED,
}

# Alertmanager's webhook payload (its docs, "webhook_config"); only what
# vnfm reads is checked, the rest is allowed.
SCHEMA = {
    'type': 'object',
    'required': ['alerts'],
    'properties': {
        'alerts': {
            'type': 'array',
            'items': {
                'type': 'object',
                'properties': {
                    'status': {'enum': ['firing', 'resolved']},
                    'labels': {'type': 'object'},
                    'annotations': {'type': 'object'},
                    'startsAt': {'type': 'string', 'maxLength': 64},
                    'endsAt': {'type': 'string', 'maxLength': 64},
                    'fingerprint': {'type': 'string', 'maxLength': 64},
                },
            },
        },
    },
}


def _same(given: str, configured: str) -> bool:
    return hmac.compare_digest(given.encode(), configured.encode())


def _basic(header: str) -> tuple[str, str] | None:
    try:
        user, _, password = (
            base64.b64decode(header, validate=True).decode().partition(':')
        )
    except (binascii.Error, UnicodeDecodeError):
        return None
    return user, password


def authenticate(req: webob.Request) -> None:
    """Accept the request only with the configured credentials."""
    conf = CONF.fault_management
    if not conf.receiver_token and not conf.receiver_password:
        raise exceptions.Unauthorized(
            'The Alertmanager receiver is not configured: its operator '
            'sets [fault_management] receiver_token (or receiver_username '
            'and receiver_password) and gives Alertmanager the same.'
        )
    scheme, _, value = req.headers.get('Authorization', '').partition(' ')
    scheme = scheme.lower()
    if scheme == 'bearer' and conf.receiver_token:
        if _same(value.strip(), conf.receiver_token):
            return
    elif scheme == 'basic' and conf.receiver_password:
        pair = _basic(value.strip())
        if pair is not None and (
            _same(pair[0], conf.receiver_username or '')
            & _same(pair[1], conf.receiver_password)
        ):
            return
    raise exceptions.Unauthorized(
        'Alertmanager must authenticate with the bearer token or basic '
        'credentials of [fault_management]; these were missing or wrong.'
    )


def receive(req: ApiRequest) -> webob.Response:
    """POST: record the alerts of a webhook post as alarms."""
    posted = req.json['alerts']
    limit = CONF.fault_management.max_alerts_per_post
    if len(posted) > limit:
        raise exceptions.PayloadTooLarge(
            f'The post carries {len(posted)} alerts; the limit is {limit} '
            "([fault_management] max_alerts_per_post; Alertmanager's "
            'webhook_config max_alerts can keep posts below it).'
        )
    pm_posted = [a for a in posted if pm_alerts.is_vnfpm(a)]
    crossing_posted = [a for a in posted if threshold_alerts.is_threshold(a)]
    outcome = alerts.interpret(posted)
    outcome.ignored -= len(pm_posted) + len(crossing_posted)
    reports = pm_alerts.record(pm_posted, outcome.skipped)
    crossings = threshold_alerts.record(
        crossing_posted,
        outcome.skipped,
        lambda op_id: common.cast(req, 'start_lcm_op', op_id),
    )
    instances = {i['id']: i for i in outcome.instances}
    subscribed = alarm.subscriptions()

    def notify(event: str, row: dict) -> list[dict]:
        return alarm.for_alarm(
            _EVENT_NOTIFICATION[event],
            row,
            instances[row['vnf_instance_id']],
            subscribed,
        )

    results = alarm_db.record_alerts(outcome.changes, notify)
    for event, row in results:
        if (
            event == alarm_db.RAISED
            and row is not None
            and autoheal.enabled(instances[row['vnf_instance_id']])
        ):
            autoheal.judge(
                row, lambda op_id: common.cast(req, 'start_lcm_op', op_id)
            )
    for reason in outcome.skipped:
        LOG.info('Alertmanager receiver skipped %s', reason)
    counts = {
        'raised': 0,
        'changed': 0,
        'cleared': 0,
        'unchanged': 0,
    }
    for event, _row in results:
        counts[(event or 'unchanged').lower()] += 1
    return http.json_response(
        dict(
            counts,
            reports=len(reports),
            crossings=crossings,
            ignored=outcome.ignored,
            skipped=outcome.skipped,
        )
    )
