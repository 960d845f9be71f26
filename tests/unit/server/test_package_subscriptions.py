"""/vnfpkgm/v1/subscriptions (SOL005 9.4.8, 9.4.9) and the notifications
package changes leave in the outbox; /vnfpkgm/api_versions. The fake RPC
client runs the conductor's callbackUri test against a real receiver."""

from __future__ import annotations

import base64

import jsonschema
import pytest

from tests.unit.objects.test_package_notifications import assert_sol
from tests.unit.objects.test_package_notifications import subscription_schema
from tests.unit.server.conftest import identity
from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_package
from vnfm.conf import CONF
from vnfm.db import outbox
from vnfm.db import registry

PASSWORD = 'PKG-SECRET-PW'
BASIC = {
    'authType': ['BASIC'],
    'paramsBasic': {'userName': 'u', 'password': PASSWORD},
}
BASIC_HEADER = 'Basic ' + base64.b64encode(f'u:{PASSWORD}'.encode()).decode()


def _subscribe(client, uri: str, **body: object):
    return client.pkg('POST', '/subscriptions', {'callbackUri': uri, **body})


def _made(client, uri: str, **body: object) -> dict:
    resp = _subscribe(client, uri, **body)
    assert resp.status_int == 201, resp.body
    return json_of(resp)


def _sent(sub: dict) -> list[dict]:
    rows = outbox.notification_list({'subscription_id': sub['id']})
    return [r['payload'] for r in rows]


def test_create_show_list_delete(client, receiver):
    receiver.required_auth = BASIC_HEADER
    filter_ = {
        'notificationTypes': ['VnfPackageChangeNotification'],
        'vnfdId': ['vnfd-1'],
        'operationalState': ['DISABLED'],
    }
    resp = _subscribe(
        client, receiver.url, filter=filter_, authentication=BASIC
    )

    assert resp.status_int == 201, resp.body
    body = json_of(resp)
    jsonschema.Draft4Validator(subscription_schema()).validate(body)
    href = f'http://localhost/vnfpkgm/v1/subscriptions/{body["id"]}'
    assert body == {
        'id': body['id'],
        'filter': filter_,
        'callbackUri': receiver.url,
        '_links': {'self': {'href': href}},
    }
    assert resp.headers['Location'] == href
    assert PASSWORD not in str(registry.subscription_get(body['id']))
    # Tested with the credentials and the package API's version.
    [test] = receiver.tests
    assert test['headers']['Authorization'] == BASIC_HEADER
    assert test['headers']['Version'] == '2.0.0'
    path = f'/subscriptions/{body["id"]}'
    assert json_of(client.pkg('GET', path)) == body
    unfiltered = _made(client, receiver.url, authentication=BASIC)
    everything = json_of(client.pkg('GET', '/subscriptions'))
    assert [s['id'] for s in everything] == [body['id'], unfiltered['id']]
    listed = client.pkg(
        'GET', "/subscriptions?filter=(eq,filter/vnfdId,'vnfd-1')"
    )
    assert json_of(listed) == [body]
    assert client.pkg('DELETE', path).status_int == 204
    assert client.pkg('GET', path).status_int == 404


def test_interfaces_keep_to_their_subscriptions(client, receiver):
    pkgm = _made(client, receiver.url)
    lcm = client.lcm('POST', '/subscriptions', {'callbackUri': receiver.url})
    lcm_id = json_of(lcm)['id']

    assert [s['id'] for s in json_of(client.pkg('GET', '/subscriptions'))] == [
        pkgm['id']
    ]
    assert [s['id'] for s in json_of(client.lcm('GET', '/subscriptions'))] == [
        lcm_id
    ]
    for resp in (
        client.pkg('GET', f'/subscriptions/{lcm_id}'),
        client.pkg('DELETE', f'/subscriptions/{lcm_id}'),
        client.lcm('GET', f'/subscriptions/{pkgm["id"]}'),
        client.lcm('DELETE', f'/subscriptions/{pkgm["id"]}'),
        client.request(
            'GET',
            f'/vnflcm/v1/subscriptions/{pkgm["id"]}',
            headers={'Version': '1.3.0'},
        ),
    ):
        assert resp.status_int == 404, resp.body
    assert len(registry.subscription_list()) == 2


def test_duplicate_is_303_to_existing(client, receiver):
    first = _made(client, receiver.url, filter={'vnfdId': ['a']})

    again = _subscribe(client, receiver.url, filter={'vnfdId': ['a']})
    other = _subscribe(client, receiver.url, filter={'vnfdId': ['b']})

    assert again.status_int == 303
    assert again.headers['Location'].endswith(first['id'])
    assert other.status_int == 201
    assert len(receiver.tests) == 2


@pytest.mark.parametrize(
    'filter_,where',
    [
        ({'notificationTypes': ['VnfLcmOperationOccurrenceNotification']}, ''),
        ({'operationalState': ['ON']}, 'operationalState/0'),
        ({'usageState': 'IN_USE'}, 'usageState'),
        ({'vnfdId': [7]}, 'vnfdId/0'),
    ],
)
def test_bad_filter_is_400_saying_where(client, filter_, where):
    resp = _subscribe(client, 'http://x/cb', filter=filter_)

    assert resp.status_int == 400
    detail = json_of(resp)['detail']
    assert detail.startswith(f'filter/{where or "notificationTypes/0"}:')
    assert registry.subscription_list() == []


def test_endpoint_not_answering_204_is_refused(client, receiver):
    receiver.test_statuses = [404]

    resp = _subscribe(client, receiver.url)

    assert resp.status_int == 422
    assert f'GET {receiver.url} did not answer 204' in json_of(resp)['detail']
    assert registry.subscription_list() == []


def test_basic_without_its_parameters_is_refused(client, receiver):
    resp = _subscribe(
        client, receiver.url, authentication={'authType': ['BASIC']}
    )

    assert resp.status_int == 422
    assert json_of(resp)['detail'] == (
        'authentication cannot be used: BASIC needs paramsBasic.'
    )
    assert receiver.tests == []


def test_subscriptions_belong_to_their_project(keystone_client):
    CONF.set_override('test_callback_uri', False, group='notifications')
    try:
        resp = keystone_client.pkg(
            'POST',
            '/subscriptions',
            {'callbackUri': 'http://127.0.0.1:9/cb'},
            headers=identity('pa', 'member', 'reader'),
        )
    finally:
        CONF.clear_override('test_callback_uri', group='notifications')
    assert resp.status_int == 201, resp.body
    path = f'/subscriptions/{json_of(resp)["id"]}'
    other = identity('pb', 'member', 'reader')

    listed = keystone_client.pkg('GET', '/subscriptions', headers=other)
    assert json_of(listed) == []
    assert keystone_client.pkg('GET', path, headers=other).status_int == 404
    assert keystone_client.pkg('DELETE', path, headers=other).status_int == 404
    # Said the same way as for an id that never existed.
    lcm_path = f'/vnflcm/v2{path}'
    for api_path in (f'/vnfpkgm/v1{path}', lcm_path):
        resp = keystone_client.request(
            'GET', api_path, headers={**other, 'Version': '2.0.0'}
        )
        assert json_of(resp)['detail'] == (
            f'{path.rsplit("/", 1)[1]} does not exist.'
        )
    reader = identity('pa', 'reader')
    assert keystone_client.pkg('GET', path, headers=reader).status_int == 200
    assert keystone_client.pkg('DELETE', path, headers=reader).status_int == (
        403
    )
    assert len(registry.subscription_list()) == 1


# -- notifications of package changes --------------------------------------


def test_patch_and_delete_are_notified(client, receiver):
    sub = _made(client, receiver.url)
    pkg = make_package('vnfd-1')
    path = f'/vnf_packages/{pkg["id"]}'

    for state in ('DISABLED', 'ENABLED', 'DISABLED'):
        resp = client.pkg('PATCH', path, {'operationalState': state})
        assert resp.status_int == 200, resp.body
    client.pkg('PATCH', path, {'userDefinedData': {'k': 'v'}})
    assert client.pkg('DELETE', path).status_int == 204

    sent = _sent(sub)
    assert [(p['changeType'], p.get('operationalState')) for p in sent] == [
        ('OP_STATE_CHANGE', 'DISABLED'),
        ('OP_STATE_CHANGE', 'ENABLED'),
        ('OP_STATE_CHANGE', 'DISABLED'),
        ('PKG_DELETE', None),
    ]
    for payload in sent:
        assert_sol(payload)
        assert (payload['vnfPkgId'], payload['vnfdId']) == (
            pkg['id'],
            'vnfd-1',
        )
    assert sent[0]['_links']['subscription']['href'].endswith(
        f'/vnfpkgm/v1/subscriptions/{sub["id"]}'
    )


def test_refused_changes_notify_nothing(client, receiver):
    sub = _made(client, receiver.url)
    enabled = make_package('vnfd-1')
    created = make_package(state='CREATED')

    refused = [
        client.pkg('DELETE', f'/vnf_packages/{enabled["id"]}'),
        client.pkg(
            'PATCH',
            f'/vnf_packages/{enabled["id"]}',
            {'operationalState': 'ENABLED'},
        ),
        client.pkg(
            'PATCH',
            f'/vnf_packages/{created["id"]}',
            {'operationalState': 'ENABLED'},
        ),
    ]
    # A package never onboarded is deleted without a notification.
    deleted = client.pkg('DELETE', f'/vnf_packages/{created["id"]}')

    assert [r.status_int for r in refused] == [409, 409, 409]
    assert deleted.status_int == 204
    assert _sent(sub) == []


def test_filters_select_the_notifications(client, receiver):
    ours = _made(client, receiver.url, filter={'vnfdId': ['vnfd-1']})
    theirs = _made(client, receiver.url, filter={'vnfdId': ['vnfd-2']})
    deletions = _made(
        client, receiver.url, filter={'operationalState': ['ENABLED']}
    )
    pkg = make_package('vnfd-1')

    client.pkg(
        'PATCH', f'/vnf_packages/{pkg["id"]}', {'operationalState': 'DISABLED'}
    )

    assert [p['vnfPkgId'] for p in _sent(ours)] == [pkg['id']]
    assert _sent(theirs) == [] and _sent(deletions) == []


def test_lcm_subscriptions_hear_nothing_of_packages(client, receiver):
    lcm = client.lcm('POST', '/subscriptions', {'callbackUri': receiver.url})
    pkg = make_package('vnfd-1')

    client.pkg(
        'PATCH', f'/vnf_packages/{pkg["id"]}', {'operationalState': 'DISABLED'}
    )

    assert _sent(json_of(lcm)) == []


# -- api_versions ------------------------------------------------------------


@pytest.mark.parametrize(
    'path,prefix',
    [
        ('/vnfpkgm/api_versions', '/vnfpkgm'),
        ('/vnfpkgm/v1/api_versions', '/vnfpkgm/v1'),
    ],
)
def test_api_versions(client, path, prefix):
    resp = client.request('GET', path)

    assert resp.status_int == 200
    assert json_of(resp) == {
        'uriPrefix': prefix,
        'apiVersions': [{'version': '2.0.0', 'isDeprecated': False}],
    }
