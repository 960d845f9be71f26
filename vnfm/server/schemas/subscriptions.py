"""LccnSubscriptionRequest (SOL003 v3.3.1 clause 5.5.2.15) and
PkgmSubscriptionRequest (SOL005 v2.6.1 clause 9.5.2.3)."""

import enum

from vnfm.objects import package_notifications
from vnfm.objects import states
from vnfm.server.schemas import common

_C = common
_IDS = _C.array_of(_C.IDENTIFIER)

# vnfProductsFromProviders: SOL003 4.4.1.5 and SOL005 9.5.3.2 alike.
_PRODUCTS_FROM_PROVIDERS = _C.array_of(
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
                                    'vnfdVersions': _C.array_of(_C.NAME),
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
)

# 4.4.1.5 VnfInstanceSubscriptionFilter
INSTANCE_FILTER = _C.obj(
    {
        'vnfdIds': _IDS,
        'vnfProductsFromProviders': _PRODUCTS_FROM_PROVIDERS,
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


def _states(values: type[enum.Enum]) -> dict:
    return _C.array_of({'type': 'string', 'enum': [v.value for v in values]})


# SOL005 9.5.3.2 PkgmNotificationsFilter
PKGM_FILTER = _C.obj(
    {
        'notificationTypes': _C.array_of(
            {
                'type': 'string',
                'enum': list(package_notifications.NOTIFICATION_TYPES),
            }
        ),
        'vnfProductsFromProviders': _PRODUCTS_FROM_PROVIDERS,
        'vnfdId': _IDS,
        'vnfPkgId': _IDS,
        'operationalState': _states(states.OperationalState),
        'usageState': _states(states.UsageState),
    }
)

# SOL005 9.5.2.3 PkgmSubscriptionRequest (no verbosity)
PKGM_CREATE = _C.obj(
    {
        'filter': PKGM_FILTER,
        'callbackUri': _C.URI,
        'authentication': AUTHENTICATION,
    },
    required=('callbackUri',),
)
