"""Helpers of the performance management tests: requests to /vnfpm/v2,
PM job bodies and Alertmanager-shaped alerts of PM rules."""

from __future__ import annotations

from typing import Any

PM = {'Version': '2.1.0'}


def pm(client: Any, method: str, path: str, body: Any = None, **kw: Any):
    """A /vnfpm/v2 request with the Version header."""
    kw['headers'] = {**PM, **(kw.get('headers') or {})}
    return client.request(method, '/vnfpm/v2' + path, body, **kw)


def job_body(instance_id: str, callback: str, **criteria: Any) -> dict:
    """A CreatePmJobRequest measuring the CPU of a VNF instance."""
    return {
        'objectType': 'Vnf',
        'objectInstanceIds': [instance_id],
        'criteria': {
            'performanceMetric': [f'VCpuUsageMeanVnf.{instance_id}'],
            'collectionPeriod': 30,
            'reportingPeriod': 60,
            **criteria,
        },
        'callbackUri': callback,
    }


def pm_alert(
    job_id: str,
    instance_id: str,
    value: str = '0.25',
    metric: str = 'VCpuUsageMeanVnf',
    starts_at: str = '2026-11-27T10:00:00Z',
) -> dict:
    """One alert of a PM job's rule as Alertmanager posts it."""
    return {
        'status': 'firing',
        'labels': {
            'alertname': f'vnfpm-{job_id}',
            'receiver_type': 'tacker',
            'function_type': 'vnfpm',
            'job_id': job_id,
            'metric': metric,
            'object_instance_id': instance_id,
        },
        'annotations': {'value': value},
        'startsAt': starts_at,
        'endsAt': '0001-01-01T00:00:00Z',
        'fingerprint': f'{job_id[:8]}{metric}',
    }


def threshold_body(
    instance_id: str, callback: str, value: float = 0.5, **extra: Any
) -> dict:
    """A CreateThresholdRequest on the mean CPU of a VNF instance."""
    return {
        'objectType': 'Vnf',
        'objectInstanceId': instance_id,
        'criteria': {
            'performanceMetric': f'VCpuUsageMeanVnf.{instance_id}',
            'thresholdType': 'SIMPLE',
            'simpleThresholdDetails': {
                'thresholdValue': value,
                'hysteresis': 0.1,
            },
        },
        'callbackUri': callback,
        **extra,
    }


def crossing_alert(
    threshold_id: str, direction: str, value: str = '0.9', **labels: str
) -> dict:
    """The alert of a threshold's rule for one side, as Alertmanager posts
    it."""
    return {
        'status': 'firing',
        'labels': {
            'alertname': f'vnfpm_threshold_{direction.lower()}',
            'receiver_type': 'vnfm',
            'function_type': 'vnfpm_threshold',
            'threshold_id': threshold_id,
            'crossing_direction': direction,
            'metric': 'VCpuUsageMeanVnf',
            **labels,
        },
        'annotations': {'value': value},
        'startsAt': '2026-11-27T10:00:00Z',
        'endsAt': '0001-01-01T00:00:00Z',
        'fingerprint': f'{threshold_id[:8]}{direction}',
    }
