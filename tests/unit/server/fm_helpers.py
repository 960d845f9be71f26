"""Helpers of the fault management tests: an instantiated instance with
VNFCs, Alertmanager-shaped alerts and posts to the receiver."""

from __future__ import annotations

import base64
from typing import Any

from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_package
from vnfm.clients import http
from vnfm.conductor.notifier import Notifier

TOKEN = 'am-token-1234'
FM = {'Version': '1.3.0'}
BEARER = {'Authorization': f'Bearer {TOKEN}'}


def basic(user: str, password: str) -> dict:
    """An Authorization header of HTTP basic authentication."""
    pair = base64.b64encode(f'{user}:{password}'.encode()).decode()
    return {'Authorization': f'Basic {pair}'}


def instance_with_vnfcs(project: str | None = None, **values: Any) -> dict:
    """An INSTANTIATED instance with two VNFCs (Pods vdu1-a, vdu1-b)."""
    package = make_package(values.pop('vnfd_id', 'vnfd-1'))
    info = {
        'flavourId': 'simple',
        'vnfState': 'STARTED',
        'vnfcResourceInfo': [
            {
                'id': f'vnfc-{name}',
                'vduId': 'VDU1',
                'computeResource': {
                    'resourceId': f'vdu1-{name}',
                    'vimLevelResourceType': 'Pod',
                },
            }
            for name in ('a', 'b')
        ],
        'vnfcInfo': [
            {
                'id': f'info-{name}',
                'vduId': 'VDU1',
                'vnfcResourceInfoId': f'vnfc-{name}',
                'vnfcState': 'STARTED',
            }
            for name in ('a', 'b')
        ],
    }
    return make_instance(
        package,
        state='INSTANTIATED',
        instantiated_vnf_info=info,
        project_id=project,
        **values,
    )


def alert(
    instance_id: str,
    *,
    pod: str | None = 'vdu1-a',
    status: str = 'firing',
    fingerprint: str = 'f00d',
    starts_at: str = '2026-11-27T10:00:00.123456789Z',
    severity: str = 'CRITICAL',
    **labels: str,
) -> dict:
    """One alert as Alertmanager posts it (payload version 4)."""
    out_labels = {
        'alertname': 'PodDown',
        'receiver_type': 'tacker',
        'function_type': 'vnffm',
        'vnf_instance_id': instance_id,
        'perceived_severity': severity,
        'event_type': 'EQUIPMENT_ALARM',
        **labels,
    }
    if pod is not None:
        out_labels['pod'] = pod
    return {
        'status': status,
        'labels': out_labels,
        'annotations': {
            'probable_cause': 'Pod is down',
            'fault_type': 'Error',
            'fault_details': 'the container exited',
        },
        'startsAt': starts_at,
        'endsAt': (
            '2026-11-27T10:05:00Z'
            if status == 'resolved'
            else '0001-01-01T00:00:00Z'
        ),
        'generatorURL': 'http://127.0.0.1:9090/graph',
        'fingerprint': fingerprint,
    }


def post(client: Any, *alerts: dict, headers: dict | None = None) -> Any:
    """POST the alerts to the receiver as one webhook call."""
    return client.request(
        'POST',
        '/alert',
        {
            'version': '4',
            'groupKey': '{}:{alertname="PodDown"}',
            'truncatedAlerts': 0,
            'status': alerts[0]['status'] if alerts else 'firing',
            'receiver': 'vnffm',
            'groupLabels': {},
            'commonLabels': {},
            'commonAnnotations': {},
            'externalURL': 'http://127.0.0.1:9093',
            'alerts': list(alerts),
        },
        headers=BEARER if headers is None else headers,
    )


def deliver() -> int:
    """Send the due notifications as a conductor does; how many."""
    sender = Notifier('c1', http.TokenCache())
    try:
        return sender.drain()
    finally:
        sender.stop()
