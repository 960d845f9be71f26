"""The outbound policy end to end: vnfm-api and a conductor whose
``[outbound]`` opens 127.0.0.1 only, so the rest of loopback (127.0.0.2)
stands for every denied address (the unit tests cover the metadata and
private addresses, and names resolving to them, without sending anything).

For each of the three addresses a user gives (callbackUri, tokenEndpoint,
upload_from_uri, the last also through a redirect), vnfm answers "refused
by policy" and a listener on the denied address never sees a connection.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.integration.conftest import Api
from tests.integration.conftest import wait_for
from tests.unit.clients import webserver
from tests.unit.conductor.receiver import Receiver
from vnfm_testbed import procs

pytestmark = pytest.mark.timeout(180)

DENIED = '127.0.0.2'
web = webserver.web  # the fixture


@pytest.fixture(scope='module')
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """vnfm-api and one conductor that may connect to 127.0.0.1 only."""
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('vnfm-outbound'),
        conf={'outbound': {'allowed_networks': '127.0.0.1/32'}},
    )
    try:
        svc.start(conductors=1)
        yield Api(svc.api_url, tmp_path_factory.mktemp('hooks') / 'h')
    finally:
        svc.stop()


@pytest.fixture
def denied_port() -> Iterator[int]:
    """A port listening on the denied address; the test fails if anything
    connected to it."""
    with socket.socket() as listener:
        listener.bind((DENIED, 0))
        listener.listen(8)
        listener.setblocking(False)
        yield listener.getsockname()[1]
        with pytest.raises(BlockingIOError):
            listener.accept()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    rcv = Receiver().start()
    yield rcv
    rcv.stop()


def _refused_subscription(api: Api, body: dict) -> str:
    resp = api.lcm('POST', '/subscriptions', json=body)
    assert resp.status_code == 422, resp.text
    assert api.ok('GET', '/subscriptions', 200).json() == []
    return resp.json()['detail']


def test_callback_uri_on_a_denied_address(api, denied_port):
    uri = f'http://{DENIED}:{denied_port}/callback'

    detail = _refused_subscription(api, {'callbackUri': uri})

    assert f'GET {uri} refused by policy' in detail


def test_token_endpoint_on_a_denied_address(api, receiver, denied_port):
    token = f'http://{DENIED}:{denied_port}/token'

    detail = _refused_subscription(
        api,
        {
            'callbackUri': receiver.url,
            'authentication': {
                'authType': ['OAUTH2_CLIENT_CREDENTIALS'],
                'paramsOauth2ClientCredentials': {
                    'clientId': 'nfvo',
                    'clientPassword': 'pw',
                    'tokenEndpoint': token,
                },
            },
        },
    )

    assert f'POST {token} (token) refused by policy' in detail
    assert receiver.tests == []


def _upload_from_uri(api: Api, uri: str) -> dict:
    pkg = api.request(
        'POST', '/vnfpkgm/v1/vnf_packages', version=None, json={}
    ).json()
    resp = api.request(
        'POST',
        f'/vnfpkgm/v1/vnf_packages/{pkg["id"]}/package_content/'
        'upload_from_uri',
        version=None,
        json={'addressInformation': uri},
    )
    assert resp.status_code == 202, resp.text

    def failed() -> dict | None:
        info = api.request(
            'GET', f'/vnfpkgm/v1/vnf_packages/{pkg["id"]}', version=None
        ).json()
        assert info['onboardingState'] != 'ONBOARDED', info
        return info if info['onboardingState'] == 'ERROR' else None

    return wait_for(failed, 30, 'the upload in ERROR')


def test_upload_from_a_denied_address(api, denied_port):
    uri = f'http://{DENIED}:{denied_port}/p.zip'

    info = _upload_from_uri(api, uri)

    assert info['onboardingFailureDetails']['detail'].startswith(
        f'GET {uri} refused by policy'
    )


def test_upload_redirected_to_a_denied_address(api, web, denied_port):
    target = f'http://{DENIED}:{denied_port}/p.zip'
    web.routes['/p.zip'] = (302, {'Location': target}, b'')

    info = _upload_from_uri(api, f'{web.base}/p.zip')

    assert info['onboardingFailureDetails']['detail'].startswith(
        f'GET {target} refused by policy'
    )
    assert [path for path, _ in web.seen] == ['/p.zip']
