"""PM jobs as Prometheus alerting rules (a rule file per job).

Each (measurement type, object instance) of a job is one rule: its
expression computes the measurement over the instance's Pods (the
``computeResource.resourceId`` of its VNFCs, or the job's
``subObjectInstanceIds`` for objectType Vnfc) in the instance's
namespace, and always fires while there is data, so Alertmanager posts
the value (annotation ``value``) once per ``reportingPeriod`` with the
labels the receiver reads (``function_type: vnfpm``, ``job_id``,
``metric``, ``object_instance_id``). The expressions are those of
Tacker's Prometheus plugin for CNFs (cAdvisor and kube-state-metrics
series), per Pod, then the mean or the peak over the Pods; Prometheus
evaluates the group every ``collectionPeriod``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# The measurement over a selector of Pods ({sel}), its network interface
# ({cp}) and the reporting period in seconds ({period}).
_CPU = 'sum by (pod) (rate(pod_cpu_usage_seconds_total{{{sel}}}[{period}s]))'
_MEMORY = (
    'pod_memory_working_set_bytes{{{sel}}} / on(pod) '
    '(kube_node_status_capacity{{resource="memory"}} * on(node) '
    'group_right kube_pod_info{{{sel}}})'
)
_DISK = (
    'max by (pod) (container_fs_usage_bytes{{{sel}}} / '
    'container_fs_limit_bytes{{{sel}}})'
)
_NET = 'sum(container_network_{way}_{unit}_total{{{sel},interface="{cp}"}})'
PROMQL: dict[str, str] = {
    'VCpuUsageMeanVnf': 'avg(' + _CPU + ')',
    'VCpuUsagePeakVnf': 'max(' + _CPU + ')',
    'VMemoryUsageMeanVnf': 'avg(' + _MEMORY + ')',
    'VMemoryUsagePeakVnf': 'max(' + _MEMORY + ')',
    'VDiskUsageMeanVnf': 'avg(' + _DISK + ')',
    'VDiskUsagePeakVnf': 'max(' + _DISK + ')',
}
for _cp in ('VnfIntCp', 'VnfExtCp'):
    for _name, _way in (('Incoming', 'receive'), ('Outgoing', 'transmit')):
        for _kind, _unit in (('Byte', 'bytes'), ('Packet', 'packets')):
            PROMQL[f'{_kind}{_name}{_cp}'] = _NET.replace(
                '{way}', _way
            ).replace('{unit}', _unit)


def _quoted(value: str) -> str:
    """``value`` as the body of a PromQL double-quoted string."""
    return value.replace('\\', '\\\\').replace('"', '\\"')


def pods(instance: Mapping[str, Any], only: list[str] | None = None) -> str:
    """A regular expression matching the names of an instance's Pods (the
    ones of the VNFCs ``only`` names, if given)."""
    info = instance.get('instantiated_vnf_info') or {}
    wanted = set(only or [])
    by_vnfc = {
        v.get('vnfcResourceInfoId'): v.get('id')
        for v in info.get('vnfcInfo') or []
    }
    names = [
        (r.get('computeResource') or {}).get('resourceId') or ''
        for r in info.get('vnfcResourceInfo') or []
        if not wanted
        or r.get('id') in wanted
        or by_vnfc.get(r.get('id')) in wanted
    ]
    # Nothing to match: a name no Pod has, so the rule stays silent.
    return '|'.join(re.escape(n) for n in names if n) or '^$'


def namespace(instance: Mapping[str, Any]) -> str:
    """The Kubernetes namespace of an instance's resources."""
    info = instance.get('instantiated_vnf_info') or {}
    return (info.get('metadata') or {}).get('namespace') or 'default'


def measure(
    metric: str,
    instance: Mapping[str, Any],
    object_type: str,
    sub_object_instance_ids: list[str] | None,
    cp: str,
    period: int,
) -> str:
    """The PromQL of a measurement of an instance (its Vnfc's Pods, its
    interface ``cp``) over ``period`` seconds."""
    only = sub_object_instance_ids if object_type == 'Vnfc' else None
    sel = (
        f'namespace="{_quoted(namespace(instance))}",'
        f'pod=~"{_quoted(pods(instance, only))}"'
    )
    return PROMQL[metric].format(sel=sel, cp=_quoted(cp), period=period)


def _rule(
    job: Mapping[str, Any],
    metric: str,
    instance: Mapping[str, Any],
    cp: str,
) -> dict:
    expr = measure(
        metric,
        instance,
        job['object_type'],
        job['sub_object_instance_ids'],
        cp,
        job['criteria']['reportingPeriod'],
    )
    labels = {
        'receiver_type': 'vnfm',
        'function_type': 'vnfpm',
        'job_id': job['id'],
        'metric': metric,
        'object_instance_id': instance['id'],
    }
    if cp:
        labels['sub_object_instance_id'] = cp
    return {
        'alert': f'vnfpm_{metric}',
        'expr': f'({expr}) >= 0',
        'labels': labels,
        'annotations': {'value': '{{ $value }}'},
    }


def rule_group(
    job: Mapping[str, Any], instances: Mapping[str, Mapping[str, Any]]
) -> dict:
    """The rule file of a PM job, given its VNF instances by id (an
    instance that is gone has no rules)."""
    cps = (
        ['']
        if job['object_type'] in ('Vnf', 'Vnfc')
        else (job['sub_object_instance_ids'] or ['eth0'])
    )
    rules = [
        _rule(job, metric, instances[i], cp)
        for i in job['object_instance_ids']
        if i in instances
        for metric in job['measurements']
        for cp in cps
    ]
    return {
        'groups': [
            {
                'name': f'vnfpm-{job["id"]}',
                'interval': f'{job["criteria"]["collectionPeriod"]}s',
                'rules': rules,
            }
        ]
    }


def threshold_group(
    threshold: Mapping[str, Any], instance: Mapping[str, Any], interval: int
) -> dict:
    """The rule file of a threshold: an alert while the value is above
    ``thresholdValue + hysteresis`` (UP), one while below
    ``thresholdValue - hysteresis`` (DOWN), evaluated every ``interval``
    seconds."""
    metric = str(threshold['criteria']['performanceMetric']).partition('.')[0]
    cps = threshold['sub_object_instance_ids'] or ['eth0']
    cp = '' if threshold['object_type'] in ('Vnf', 'Vnfc') else cps[0]
    expr = measure(
        metric,
        instance,
        threshold['object_type'],
        threshold['sub_object_instance_ids'],
        cp,
        interval,
    )
    details = threshold['criteria']['simpleThresholdDetails']
    value = float(details['thresholdValue'])
    hysteresis = float(details.get('hysteresis') or 0)
    rules = []
    for direction, test in (
        ('UP', f'> {value + hysteresis!r}'),
        ('DOWN', f'< {value - hysteresis!r}'),
    ):
        labels = {
            'receiver_type': 'vnfm',
            'function_type': 'vnfpm_threshold',
            'threshold_id': threshold['id'],
            'crossing_direction': direction,
            'metric': metric,
            'object_instance_id': instance['id'],
        }
        if cp:
            labels['sub_object_instance_id'] = cp
        rules.append(
            {
                'alert': f'vnfpm_threshold_{direction.lower()}',
                'expr': f'({expr}) {test}',
                'labels': labels,
                'annotations': {'value': '{{ $value }}'},
            }
        )
    return {
        'groups': [
            {
                'name': f'vnfpm-threshold-{threshold["id"]}',
                'interval': f'{interval}s',
                'rules': rules,
            }
        ]
    }
