"""PM thresholds as SOL003 shows them: the Threshold with vnfm's
autoScale, the criteria vnfm watches and ThresholdCrossedNotification."""

from __future__ import annotations

import datetime

import pytest

from vnfm.common import exceptions
from vnfm.objects import threshold

ROW = {
    'id': 't1',
    'subscription_id': 's1',
    'object_type': 'Vnf',
    'object_instance_id': 'i1',
    'sub_object_instance_ids': None,
    'criteria': {'performanceMetric': 'VMemoryUsagePeakVnf.i1'},
    'callback_uri': 'http://198.18.0.1/cb',
    'threshold_metadata': {'aspectId': 'a1'},
    'last_crossing': {'decision': 'WAITING'},
}


def test_the_threshold_shows_metadata_and_the_last_decision():
    out = threshold.to_sol(ROW, 'http://vnfm')

    assert out['metadata'] == {'aspectId': 'a1'}
    assert out['autoScale'] == {'decision': 'WAITING'}
    assert out['_links']['self']['href'] == (
        'http://vnfm/vnfpm/v2/thresholds/t1'
    )
    assert threshold.measurement(ROW) == 'VMemoryUsagePeakVnf'


def test_a_metric_of_another_object_type_is_refused():
    body = {
        'objectType': 'VnfIntCp',
        'objectInstanceId': 'i1',
        'criteria': {'performanceMetric': 'VCpuUsageMeanVnf'},
    }

    with pytest.raises(exceptions.BadRequest):
        threshold.check(body)


def test_the_crossed_notification_carries_direction_and_value():
    now = datetime.datetime(2030, 1, 1)

    row = threshold.crossed(ROW, 'DOWN', 0.25, 'eth0', now)

    payload = row['payload']
    assert row['subscription_id'] == 's1'
    assert payload['crossingDirection'] == 'DOWN'
    assert payload['performanceValue'] == 0.25
    assert payload['subObjectInstanceId'] == 'eth0'
    assert payload['timeStamp'] == '2030-01-01T00:00:00.000000Z'
