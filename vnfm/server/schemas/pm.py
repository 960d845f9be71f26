"""Request bodies of VNF performance management (SOL003 v3.3.1 clause
6.5)."""

from vnfm.objects import pm_job
from vnfm.server.schemas import common
from vnfm.server.schemas import subscriptions

_C = common
# Seconds; a day at most, so a rule's range stays sensible.
_PERIOD = {'type': 'integer', 'minimum': 1, 'maximum': 86400}

# 6.5.3.3 PmJobCriteria
CRITERIA = _C.obj(
    {
        'performanceMetric': _C.array_of(_C.NAME),
        'performanceMetricGroup': _C.array_of(
            {'type': 'string', 'enum': list(pm_job.GROUPS)}
        ),
        'collectionPeriod': _PERIOD,
        'reportingPeriod': _PERIOD,
        'reportingBoundary': {'type': 'string', 'maxLength': 64},
    },
    required=('collectionPeriod', 'reportingPeriod'),
)

# 6.5.2.6 CreatePmJobRequest
PM_JOB_CREATE = _C.obj(
    {
        'objectType': {'type': 'string', 'enum': list(pm_job.OBJECT_TYPES)},
        'objectInstanceIds': {
            **_C.array_of(_C.IDENTIFIER, min_items=1),
            'maxItems': 100,
        },
        'subObjectInstanceIds': {
            **_C.array_of(_C.IDENTIFIER),
            'maxItems': 100,
        },
        'criteria': CRITERIA,
        'callbackUri': _C.URI,
        'authentication': subscriptions.AUTHENTICATION,
    },
    required=('objectType', 'objectInstanceIds', 'criteria', 'callbackUri'),
)

# 6.5.2.12 PmJobModifications
PM_JOB_MODIFY = _C.obj(
    {
        'callbackUri': _C.URI,
        'authentication': subscriptions.AUTHENTICATION,
    },
    min_properties=1,
)

# 6.5.3.4 ThresholdCriteria (SIMPLE only, as Tacker)
THRESHOLD_CRITERIA = _C.obj(
    {
        'performanceMetric': _C.NAME,
        'thresholdType': {'type': 'string', 'enum': ['SIMPLE']},
        'simpleThresholdDetails': _C.obj(
            {
                'thresholdValue': {'type': 'number'},
                'hysteresis': {'type': 'number', 'minimum': 0},
            },
            required=('thresholdValue', 'hysteresis'),
        ),
    },
    required=('performanceMetric', 'thresholdType', 'simpleThresholdDetails'),
)

# 6.5.2.8 CreateThresholdRequest; metadata.aspectId names the aspect
# auto-scale scales (vnfm).
THRESHOLD_CREATE = _C.obj(
    {
        'objectType': {'type': 'string', 'enum': list(pm_job.OBJECT_TYPES)},
        'objectInstanceId': _C.IDENTIFIER,
        'subObjectInstanceIds': {
            **_C.array_of(_C.IDENTIFIER),
            'maxItems': 100,
        },
        'criteria': THRESHOLD_CRITERIA,
        'callbackUri': _C.URI,
        'authentication': subscriptions.AUTHENTICATION,
        'metadata': _C.obj({'aspectId': _C.IDENTIFIER}),
    },
    required=('objectType', 'objectInstanceId', 'criteria', 'callbackUri'),
)

# 6.5.2.11 ThresholdModifications
THRESHOLD_MODIFY = PM_JOB_MODIFY
