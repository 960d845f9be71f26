"""Request bodies of VNF fault management (SOL003 v3.3.1 clause 7.5)."""

from vnfm.objects import alarm
from vnfm.server.schemas import common
from vnfm.server.schemas import subscriptions

_C = common


def _enum_array(values: tuple[str, ...]) -> dict:
    return _C.array_of({'type': 'string', 'enum': list(values)})


# 7.5.3.2 FmNotificationsFilter
FILTER = _C.obj(
    {
        'vnfInstanceSubscriptionFilter': subscriptions.INSTANCE_FILTER,
        'notificationTypes': _enum_array(alarm.NOTIFICATION_TYPES),
        'faultyResourceTypes': _enum_array(alarm.FAULTY_RESOURCE_TYPES),
        'perceivedSeverities': _enum_array(alarm.SEVERITIES),
        'eventTypes': _enum_array(alarm.EVENT_TYPES),
        'probableCauses': _C.array_of(_C.NAME),
    }
)

# 7.5.2.2 FmSubscriptionRequest
SUBSCRIPTION_CREATE = _C.obj(
    {
        'filter': FILTER,
        'callbackUri': _C.URI,
        'authentication': subscriptions.AUTHENTICATION,
    },
    required=('callbackUri',),
)

# 7.5.2.8 AlarmModifications
ALARM_MODIFY = _C.obj(
    {
        'ackState': {
            'type': 'string',
            'enum': [alarm.ACKNOWLEDGED, alarm.UNACKNOWLEDGED],
        }
    },
    required=('ackState',),
)
