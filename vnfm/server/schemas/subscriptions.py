"""LccnSubscriptionRequest (SOL003 v3.3.1 clause 5.5.2.15)."""

from vnfm.objects import states
from vnfm.server.schemas import common

_C = common
_IDS = _C.array_of(_C.IDENTIFIER)

# 4.4.1.5 VnfInstanceSubscriptionFilter
INSTANCE_FILTER = _C.obj(
    {
        'vnfdIds': _IDS,
        'vnfProductsFromProviders': _C.array_of(
            _C.obj(
                {
                    'vnfProvider': _C.NAME,
                    'vnfProducts': _C.array_of(
                        _C.obj(
                            {
                                'vnfProductName': _C.NAME,
                                'versions': _C.array_of(
                                    _C.obj(
                                        {
                                            'vnfSoftwareVersion': _C.NAME,
                                            'vnfdVersions': _C.array_of(
                                                _C.NAME
                                            ),
                                        },
                                        required=('vnfSoftwareVersion',),
                                    )
                                ),
                            },
                            required=('vnfProductName',),
                        )
                    ),
                },
                required=('vnfProvider',),
            )
        ),
        'vnfInstanceIds': _IDS,
        'vnfInstanceNames': _C.array_of(_C.NAME),
    }
)

NOTIFICATION_TYPES = [
    'VnfLcmOperationOccurrenceNotification',
    'VnfIdentifierCreationNotification',
    'VnfIdentifierDeletionNotification',
]

# 5.5.3.12 LifecycleChangeNotificationsFilter
FILTER = _C.obj(
    {
        'vnfInstanceSubscriptionFilter': INSTANCE_FILTER,
        'notificationTypes': _C.array_of(
            {'type': 'string', 'enum': NOTIFICATION_TYPES}
        ),
        'operationTypes': _C.array_of(
            {'type': 'string', 'enum': [o.value for o in states.LcmOperation]}
        ),
        'operationStates': _C.array_of(
            {'type': 'string', 'enum': [s.value for s in states.OpState]}
        ),
    }
)

# SOL013 8.3.4 SubscriptionAuthentication
AUTHENTICATION = _C.obj(
    {
        'authType': _C.array_of(
            {
                'type': 'string',
                'enum': ['BASIC', 'OAUTH2_CLIENT_CREDENTIALS', 'TLS_CERT'],
            },
            min_items=1,
        ),
        'paramsBasic': _C.obj(
            {
                'userName': _C.NAME,
                'password': {'type': 'string', 'maxLength': 1024},
            }
        ),
        'paramsOauth2ClientCredentials': _C.obj(
            {
                'clientId': _C.NAME,
                'clientPassword': {'type': 'string', 'maxLength': 1024},
                'tokenEndpoint': _C.URI,
            },
            required=('clientId', 'clientPassword', 'tokenEndpoint'),
        ),
    },
    required=('authType',),
)

CREATE = _C.obj(
    {
        'filter': FILTER,
        'callbackUri': _C.URI,
        'authentication': AUTHENTICATION,
        'verbosity': {'type': 'string', 'enum': ['FULL', 'SHORT']},
    },
    required=('callbackUri',),
)
