"""LccnSubscriptionRequest (SOL003 5.5.2.15): what a subscription may
filter on and how it authenticates."""

from __future__ import annotations

import pytest

from vnfm.common import schemacheck
from vnfm.server.schemas import subscriptions

URI = 'https://198.18.0.1/callback'


def error(body: dict) -> str | None:
    return schemacheck.first_error(subscriptions.CREATE, body)


def test_a_callback_uri_is_all_that_is_required():
    assert error({'callbackUri': URI}) is None
    assert error({}) == 'callbackUri: is a required property'


def test_a_full_filter_is_taken():
    body = {
        'callbackUri': URI,
        'verbosity': 'SHORT',
        'filter': {
            'vnfInstanceSubscriptionFilter': {
                'vnfdIds': ['vnfd-1'],
                'vnfProductsFromProviders': [
                    {
                        'vnfProvider': 'Acme',
                        'vnfProducts': [
                            {
                                'vnfProductName': 'Router',
                                'versions': [
                                    {
                                        'vnfSoftwareVersion': '1.0',
                                        'vnfdVersions': ['2.0'],
                                    }
                                ],
                            }
                        ],
                    }
                ],
            },
            'notificationTypes': ['VnfLcmOperationOccurrenceNotification'],
            'operationTypes': ['INSTANTIATE', 'CHANGE_VNFPKG'],
            'operationStates': ['FAILED_TEMP', 'ROLLED_BACK'],
        },
    }

    assert error(body) is None


@pytest.mark.parametrize(
    'filter_,where',
    [
        ({'operationTypes': ['REBOOT']}, 'filter/operationTypes/0: '),
        ({'operationStates': ['DONE']}, 'filter/operationStates/0: '),
        (
            {'notificationTypes': ['VnfPackageChangeNotification']},
            'filter/notificationTypes/0: ',
        ),
        (
            {
                'vnfInstanceSubscriptionFilter': {
                    'vnfProductsFromProviders': [{'vnfProducts': []}]
                }
            },
            'filter/vnfInstanceSubscriptionFilter/vnfProductsFromProviders/0'
            '/vnfProvider: is a required property',
        ),
    ],
)
def test_a_wrong_filter_names_the_attribute(filter_, where):
    found = error({'callbackUri': URI, 'filter': filter_})

    assert found is not None and found.startswith(where)


def test_oauth2_needs_client_id_password_and_token_endpoint():
    auth = {
        'authType': ['OAUTH2_CLIENT_CREDENTIALS'],
        'paramsOauth2ClientCredentials': {'clientId': 'c'},
    }

    found = error({'callbackUri': URI, 'authentication': auth})

    assert found == (
        'authentication/paramsOauth2ClientCredentials/clientPassword: is a '
        'required property'
    )


def test_auth_type_is_a_non_empty_list_of_known_types():
    for auth_type in ([], ['DIGEST']):
        assert (
            error(
                {'callbackUri': URI, 'authentication': {'authType': auth_type}}
            )
            is not None
        )
    assert (
        error({'callbackUri': URI, 'authentication': {'authType': ['BASIC']}})
        is None
    )


def test_verbosity_is_full_or_short():
    assert error({'callbackUri': URI, 'verbosity': 'LONG'}) is not None
