"""/vnflcm/v2/subscriptions."""

from __future__ import annotations

from tests.unit.server.conftest import json_of
from vnfm.db import registry

REQUEST = {
    'callbackUri': 'http://example.com/notify',
    'filter': {'operationTypes': ['INSTANTIATE'],
               'notificationTypes': ['VnfLcmOperationOccurrenceNotification']},
    'authentication': {'authType': ['BASIC'], 'paramsBasic': {
        'userName': 'u', 'password': 'SECRET-PW'}},
}


def test_create_show_list_delete(client):
    resp = client.lcm('POST', '/subscriptions', REQUEST)
    assert resp.status_int == 201
    body = json_of(resp)
    assert body['callbackUri'] == REQUEST['callbackUri']
    assert body['verbosity'] == 'FULL'
    assert 'authentication' not in body
    assert resp.headers['Location'] == body['_links']['self']['href']
    row = registry.subscription_get(body['id'])
    assert 'SECRET' not in str(row)
    assert json_of(client.lcm('GET', f"/subscriptions/{body['id']}")) == body
    listed = json_of(client.lcm(
        'GET', '/subscriptions?filter=(eq,callbackUri,'
        "'http://example.com/notify')"))
    assert [s['id'] for s in listed] == [body['id']]
    assert client.lcm('DELETE',
                      f"/subscriptions/{body['id']}").status_int == 204
    assert client.lcm('GET',
                      f"/subscriptions/{body['id']}").status_int == 404


def test_duplicate_is_303_to_existing(client):
    first = json_of(client.lcm('POST', '/subscriptions', REQUEST))
    resp = client.lcm('POST', '/subscriptions', REQUEST)
    assert resp.status_int == 303
    assert resp.headers['Location'].endswith(first['id'])


def test_bad_filter_value_is_400(client):
    resp = client.lcm('POST', '/subscriptions', {
        'callbackUri': 'http://x', 'filter': {'operationTypes': ['NOPE']}})
    assert resp.status_int == 400
    assert json_of(resp)['detail'].startswith('filter/operationTypes/0:')
