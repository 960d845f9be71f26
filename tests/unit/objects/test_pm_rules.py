"""PM jobs as Prometheus rules: one rule per measurement and object, over
the instance's Pods in its namespace, labelled for the receiver."""

from __future__ import annotations

from vnfm.objects import pm_job
from vnfm.objects import pm_rules


def _instance() -> dict:
    return {
        'id': 'i1',
        'instantiated_vnf_info': {
            'metadata': {'namespace': 'ns1'},
            'vnfcResourceInfo': [
                {'id': 'r1', 'computeResource': {'resourceId': 'vdu1-a'}},
                {'id': 'r2', 'computeResource': {'resourceId': 'vdu1-b'}},
            ],
            'vnfcInfo': [
                {'id': 'c1', 'vnfcResourceInfoId': 'r1'},
                {'id': 'c2', 'vnfcResourceInfoId': 'r2'},
            ],
        },
    }


def _job(**values) -> dict:
    job = {
        'id': 'j1',
        'object_type': 'Vnf',
        'object_instance_ids': ['i1', 'gone'],
        'sub_object_instance_ids': None,
        'criteria': {'collectionPeriod': 15, 'reportingPeriod': 60},
        'measurements': ['VCpuUsageMeanVnf', 'VMemoryUsagePeakVnf'],
    }
    job.update(values)
    return job


def test_a_rule_per_measurement_of_each_present_instance():
    [group] = pm_rules.rule_group(_job(), {'i1': _instance()})['groups']

    assert group['name'] == 'vnfpm-j1'
    assert group['interval'] == '15s'
    assert [r['labels']['metric'] for r in group['rules']] == [
        'VCpuUsageMeanVnf',
        'VMemoryUsagePeakVnf',
    ]
    cpu = group['rules'][0]
    assert cpu['expr'] == (
        '(avg(sum by (pod) (rate(pod_cpu_usage_seconds_total'
        '{namespace="ns1",pod=~"vdu1\\\\-a|vdu1\\\\-b"}[60s])))) >= 0'
    )
    assert cpu['labels'] == {
        'receiver_type': 'vnfm',
        'function_type': 'vnfpm',
        'job_id': 'j1',
        'metric': 'VCpuUsageMeanVnf',
        'object_instance_id': 'i1',
    }
    assert cpu['annotations'] == {'value': '{{ $value }}'}


def test_a_vnfc_job_measures_its_vnfcs_only():
    job = _job(object_type='Vnfc', sub_object_instance_ids=['c2'])

    [group] = pm_rules.rule_group(job, {'i1': _instance()})['groups']

    assert 'pod=~"vdu1\\\\-b"' in group['rules'][0]['expr']


def test_a_cp_job_measures_each_interface():
    job = _job(
        object_type='VnfExtCp',
        sub_object_instance_ids=['eth1'],
        measurements=['PacketOutgoingVnfExtCp'],
    )

    [group] = pm_rules.rule_group(job, {'i1': _instance()})['groups']

    [rule] = group['rules']
    assert 'container_network_transmit_packets_total' in rule['expr']
    assert 'interface="eth1"' in rule['expr']
    assert rule['labels']['sub_object_instance_id'] == 'eth1'


def test_an_instance_without_pods_matches_nothing():
    assert pm_rules.pods({'id': 'i'}) == '^$'


def test_every_measurement_has_an_expression():
    every = {m for group in pm_job.GROUPS.values() for m in group}

    assert every == set(pm_rules.PROMQL)


def test_a_threshold_fires_above_and_below_its_hysteresis():
    threshold = {
        'id': 't1',
        'object_type': 'Vnf',
        'sub_object_instance_ids': None,
        'criteria': {
            'performanceMetric': 'VCpuUsageMeanVnf.i1',
            'simpleThresholdDetails': {
                'thresholdValue': 0.5,
                'hysteresis': 0.1,
            },
        },
    }

    [group] = pm_rules.threshold_group(threshold, _instance(), 20)['groups']

    up, down = group['rules']
    assert group['interval'] == '20s'
    assert up['expr'].endswith(') > 0.6')
    assert down['expr'].endswith(') < 0.4')
    assert '[20s]' in up['expr']
    assert up['labels']['function_type'] == 'vnfpm_threshold'
    assert (
        up['labels']['crossing_direction'],
        down['labels']['crossing_direction'],
    ) == ('UP', 'DOWN')
    assert up['labels']['threshold_id'] == 't1'
