"""/vnflcm/v1/subscriptions over the shared v2 path."""

from __future__ import annotations

from tests.unit.server.conftest import json_of
from vnfm.db import registry

from .calls import v1


def test_subscriptions(client, receiver):
    sub = {
        'callbackUri': receiver.url,
        'authentication': {
            'authType': ['BASIC'],
            'paramsBasic': {'userName': 'u', 'password': 'SECRET'},
        },
    }
    resp = v1(client, 'POST', '/subscriptions', sub)
    assert resp.status_int == 201
    body = json_of(resp)
    href = f'http://localhost/vnflcm/v1/subscriptions/{body["id"]}'
    assert resp.headers['Location'] == href
    assert body == {
        'id': body['id'],
        'callbackUri': receiver.url,
        '_links': {'self': {'href': href}},
    }
    # The callbackUri was tested with the v1 API version.
    assert [t['headers']['Version'] for t in receiver.tests] == ['1.3.0']
    assert registry.subscription_get(body['id'])['api_version'] == '1'
    again = v1(client, 'POST', '/subscriptions', sub)
    assert again.status_int == 303 and again.headers['Location'] == href
    # A v2 subscription with the same callback is another subscription,
    # not shown by /vnflcm/v1.
    v2 = client.lcm('POST', '/subscriptions', sub)
    assert v2.status_int == 201
    v2_id = json_of(v2)['id']
    assert [s['id'] for s in json_of(v1(client, 'GET', '/subscriptions'))] == [
        body['id']
    ]
    assert v1(client, 'GET', f'/subscriptions/{v2_id}').status_int == 404
    assert json_of(v1(client, 'GET', f'/subscriptions/{body["id"]}')) == body
    assert (
        v1(client, 'DELETE', f'/subscriptions/{body["id"]}').status_int == 204
    )
    assert v1(client, 'GET', '/subscriptions').body == b'[]'
