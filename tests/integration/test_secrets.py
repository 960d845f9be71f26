"""Secrets never leak: the integration flows run with recognisable secret
values, then every place they could show up is searched for them.

vnfm-api and two vnfm-conductors (debug logging on, as an operator
chasing a problem would run them) on RabbitMQ and PostgreSQL. The flows:
VIMs registered with a bearer token, a password and an OIDC client secret;
instances instantiated (v2 and v1) with passwords and tokens in
vimConnectionInfo (and one in additionalParams), one that fails and is
rolled back, one that uses a registered VIM; subscriptions with BASIC and
OAuth 2.0 credentials (and one refused for wrong ones) receiving the
notifications; packages
uploaded from URIs with a password (in the request and in the URI) and a
token in the URI's query.

Searched, for every secret (and the ``user:password`` forms of BASIC
credentials, base64 included): every line the services logged, every API
response (status line, headers and body), every notification delivered
(body and headers other than the Authorization it is meant to carry), what
the real client printed, every message published on the conductors'
exchange (a queue bound to it keeps a copy), and every row of the
database (where credentials are kept sealed).
"""

from __future__ import annotations

import base64
import http.server
import json
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import requests

from tests.integration.conftest import SAMPLES
from tests.integration.conftest import Api
from tests.integration.conftest import Zip
from tests.integration.conftest import package_variant
from tests.integration.conftest import wait_for
from tests.integration.conftest import zip_scripts_sha256
from tests.unit.conductor.receiver import Receiver
from vnfm.common import rpc
from vnfm.csar.build import build_csar
from vnfm_testbed import procs
from vnfm_testbed.client import TackerClient
from vnfm_testbed.k8s import certs

pytestmark = pytest.mark.timeout(300)


def _secret(kind: str) -> str:
    return f'SeKrit-{kind}-{uuid.uuid4().hex[:12]}'


VIM_TOKEN = _secret('vim-token')
VIM_PASSWORD = _secret('vim-password')
VIM_CLIENT_SECRET = _secret('vim-oidc')
INSTANCE_PASSWORD = _secret('access-password')
INSTANCE_TOKEN = _secret('access-token')
V1_PASSWORD = _secret('v1-password')
PARAMS_PASSWORD = _secret('params-password')
BASIC_PASSWORD = _secret('basic')
OAUTH_SECRET = _secret('oauth2')
WRONG_PASSWORD = _secret('wrong')
UPLOAD_PASSWORD = _secret('upload')
URI_PASSWORD = _secret('uri-password')
QUERY_TOKEN = _secret('query')
SECRETS = [
    VIM_TOKEN,
    VIM_PASSWORD,
    VIM_CLIENT_SECRET,
    INSTANCE_PASSWORD,
    INSTANCE_TOKEN,
    V1_PASSWORD,
    PARAMS_PASSWORD,
    BASIC_PASSWORD,
    OAUTH_SECRET,
    WRONG_PASSWORD,
    UPLOAD_PASSWORD,
    URI_PASSWORD,
    QUERY_TOKEN,
]
USER = 'nfvo'
PEEK_QUEUE = 'secrets-peek'


def _needles() -> dict[str, str]:
    """What to search for: each secret, and the BASIC forms of those sent
    as ``user:password`` (plain and base64)."""
    needles = {s: s for s in SECRETS}
    for secret in (
        BASIC_PASSWORD,
        WRONG_PASSWORD,
        UPLOAD_PASSWORD,
        URI_PASSWORD,
        OAUTH_SECRET,
    ):
        pair = f'{USER}:{secret}'
        needles[f'base64({pair})'] = base64.b64encode(pair.encode()).decode()
    return needles


def _hits(text: str) -> list[str]:
    return [name for name, needle in _needles().items() if needle in text]


# -- a package server that wants BASIC credentials -----------------------


class _PackageServer(NamedTuple):
    base: str
    files: dict
    seen: list


@pytest.fixture(scope='module')
def package_server() -> Iterator[_PackageServer]:
    """Serves ``files`` (path -> bytes) on 127.0.0.1 to requests carrying
    the BASIC credentials of USER and one of the upload passwords."""
    files: dict[str, bytes] = {}
    seen: list[tuple[str, str | None]] = []
    accepted = {
        'Basic ' + base64.b64encode(f'{USER}:{pw}'.encode()).decode()
        for pw in (UPLOAD_PASSWORD, URI_PASSWORD)
    }

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server API)
            auth = self.headers.get('Authorization')
            seen.append((self.path, auth))
            path = self.path.split('?')[0]
            status = (
                401 if auth not in accepted else 200 if path in files else 404
            )
            body = files.get(path, b'') if status == 200 else b''
            self.send_response(status)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    threading.Thread(
        target=server.serve_forever, args=(0.05,), daemon=True
    ).start()
    yield _PackageServer(
        f'http://127.0.0.1:{server.server_address[1]}', files, seen
    )
    server.shutdown()
    server.server_close()


# -- the services, and what the flows leave behind --------------------------


@pytest.fixture(scope='module')
def services(
    tmp_path_factory: pytest.TempPathFactory, zips: dict[str, Zip]
) -> Iterator[procs.VnfmServices]:
    """vnfm-api and two conductors logging at debug level; a queue bound
    to the conductors' exchange keeps a copy of every message."""
    allowed = sorted(
        set().union(
            *(zip_scripts_sha256(z.path.read_bytes()) for z in zips.values())
        )
    )
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('vnfm-secrets'),
        conf={
            'DEFAULT': {'debug': True},
            'mgmt_driver': {'allowed_script_sha256': ','.join(allowed)},
            # The registered Kubernetes VIM's flow must reach a conductor
            # (the API refuses a vimType no enabled driver serves).
            'infra': {'enabled_infra_drivers': 'noop,kubernetes'},
        },
    )
    try:
        svc.start(conductors=2)
        procs.copy_queue(svc.transport_url, PEEK_QUEUE, rpc.CONTROL_EXCHANGE)
        yield svc
    finally:
        svc.stop()


class Seen(NamedTuple):
    """Everything the flows showed, to be searched."""

    responses: list[str]
    notifications: list[str]
    printed: str
    messages: list[str]
    logs: dict[str, str]
    rows: list[str]


def _record_responses(api: Api) -> list[str]:
    texts: list[str] = []

    def hook(resp: requests.Response, *args: Any, **kwargs: Any) -> None:
        texts.append(
            f'{resp.status_code} {resp.reason}\n'
            f'{json.dumps(dict(resp.headers))}\n{resp.text}'
        )

    api.http.hooks['response'].append(hook)
    return texts


@pytest.fixture(scope='module')
def seen(
    services: procs.VnfmServices,
    zips: dict[str, Zip],
    package_server: _PackageServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Seen]:
    """Run every flow, then collect what could show a secret."""
    api = Api(services.api_url, tmp_path_factory.mktemp('hooks') / 'h')
    responses = _record_responses(api)
    basic, oauth = Receiver().start(), Receiver().start()
    client = TackerClient(services.api_url)
    try:
        _vims(api)
        _packages(
            api, zips, package_server, tmp_path_factory.mktemp('uri-packages')
        )
        name = f'secrets-{uuid.uuid4().hex[:8]}'
        _subscriptions(
            api, client, basic, oauth, name, tmp_path_factory.mktemp('subsc')
        )
        _lifecycle(api, name)
        _all_delivered(services)
        notifications = [
            json.dumps(
                {
                    'body': r['body'],
                    'headers': {
                        k: v
                        for k, v in r['headers'].items()
                        if k.lower() != 'authorization'
                    },
                }
            )
            for rcv in (basic, oauth)
            for r in rcv.received
        ]
        yield Seen(
            responses,
            notifications,
            client.printed(),
            _messages(services),
            _logs(services),
            _rows(services),
        )
    finally:
        basic.stop()
        oauth.stop()


def _all_delivered(services: procs.VnfmServices) -> None:
    """Wait until no notification is left to send; none was given up."""

    def states() -> dict[str, int] | None:
        rows = dict(
            services.sql(
                'SELECT state, count(*) FROM notifications GROUP BY state'
            )
        )
        return None if rows.get('PENDING') else rows

    assert 'FAILED' not in wait_for(states, 60, 'every notification sent')


def _messages(services: procs.VnfmServices) -> list[str]:
    return procs.drain_queue(services.transport_url, PEEK_QUEUE)


def _rows(services: procs.VnfmServices) -> list[str]:
    """Every row of every table of vnfm's database, as JSON text."""
    tables = [
        t
        for (t,) in services.sql(
            'SELECT table_name FROM information_schema.tables '
            "WHERE table_schema = 'public'"
        )
    ]
    return [
        f'{table}: {row}'
        for table in tables
        for (row,) in services.sql(
            f'SELECT row_to_json(t)::text FROM "{table}" t'
        )
    ]


def _logs(services: procs.VnfmServices) -> dict[str, str]:
    return {
        name: path.read_text(errors='replace')
        for name, path in services.logs.items()
    }


# -- the flows ---------------------------------------------------------------


def _vims(api: Api) -> None:
    """Register, show, list and update VIMs with credentials."""
    ca = certs.make_ca().cert_pem.decode()
    k8s = _ok(
        api.request(
            'POST',
            '/v1.0/vims',
            version=None,
            json={
                'vim': {
                    'name': f'k8s-{uuid.uuid4().hex[:6]}',
                    'type': 'kubernetes',
                    'auth_url': 'https://127.0.0.1:6443',
                    'vim_project': {'name': 'default'},
                    'auth_cred': {
                        'bearer_token': VIM_TOKEN,
                        'ssl_ca_cert': ca,
                    },
                }
            },
        ),
        201,
    )
    # No Keystone listens there: the conductor's check of the credentials
    # fails, and the 400 (and every log on the way) must not show them.
    _ok(
        api.request(
            'POST',
            '/v1.0/vims',
            version=None,
            json={
                'vim': {
                    'name': f'os-{uuid.uuid4().hex[:6]}',
                    'type': 'openstack',
                    'auth_url': 'http://127.0.0.1:5000/v3',
                    'vim_project': {'name': 'demo'},
                    'auth_cred': {
                        'username': 'admin',
                        'password': VIM_PASSWORD,
                    },
                }
            },
        ),
        400,
    )
    _ok(
        api.request(
            'PUT',
            f'/v1.0/vims/{k8s["vim"]["id"]}',
            version=None,
            json={
                'vim': {
                    'auth_cred': {
                        'oidc_token_url': 'https://127.0.0.1:8443/token',
                        'client_id': USER,
                        'client_secret': VIM_CLIENT_SECRET,
                        'username': USER,
                        'password': VIM_PASSWORD,
                        'ssl_ca_cert': ca,
                    }
                }
            },
        ),
        200,
    )
    _ok(api.request('GET', '/v1.0/vims', version=None), 200)
    api.k8s_vim_id = k8s['vim']['id']  # type: ignore[attr-defined]


def _ok(resp: requests.Response, status: int) -> Any:
    assert resp.status_code == status, f'{resp.status_code} {resp.text}'
    return resp.json() if resp.content else None


def _upload_from_uri(api: Api, body: dict) -> str:
    pkg = _ok(
        api.request('POST', '/vnfpkgm/v1/vnf_packages', version=None, json={}),
        201,
    )
    _ok(
        api.request(
            'POST',
            f'/vnfpkgm/v1/vnf_packages/{pkg["id"]}/package_content/'
            'upload_from_uri',
            version=None,
            json=body,
        ),
        202,
    )
    return pkg['id']


def _final_package(api: Api, pkg_id: str) -> dict:
    def probe() -> dict | None:
        info = _ok(
            api.request(
                'GET', f'/vnfpkgm/v1/vnf_packages/{pkg_id}', version=None
            ),
            200,
        )
        done = info['onboardingState'] in ('ONBOARDED', 'ERROR')
        return info if done else None

    return wait_for(probe, 60, f'package {pkg_id} onboarded or in error')


def _packages(
    api: Api, zips: dict[str, Zip], server: _PackageServer, tmp: Path
) -> None:
    """Onboard the samples; upload two packages from URIs with passwords
    (one in the request, one in the URI) and fail one whose URI carries a
    token in its query."""
    api.onboard(zips['v1'].path)
    api.onboard(zips['v2'].path)
    for name in ('a', 'b'):
        src = package_variant(
            SAMPLES / 'noop_vnf', tmp / name, str(uuid.uuid4())
        )
        server.files[f'/{name}.zip'] = build_csar(str(src))
    in_body = _upload_from_uri(
        api,
        {
            'addressInformation': f'{server.base}/a.zip',
            'userName': USER,
            'password': UPLOAD_PASSWORD,
        },
    )
    in_uri = _upload_from_uri(
        api,
        {
            'addressInformation': server.base.replace(
                '//', f'//{USER}:{URI_PASSWORD}@'
            )
            + '/b.zip'
        },
    )
    missing = _upload_from_uri(
        api,
        {
            'addressInformation': (
                f'{server.base}/none.zip?token={QUERY_TOKEN}'
            ),
            'userName': USER,
            'password': UPLOAD_PASSWORD,
        },
    )
    assert _final_package(api, in_body)['onboardingState'] == 'ONBOARDED'
    assert _final_package(api, in_uri)['onboardingState'] == 'ONBOARDED'
    failed = _final_package(api, missing)
    assert failed['onboardingState'] == 'ERROR'
    assert len([p for p, auth in server.seen if auth]) == 3


def _subscriptions(
    api: Api,
    client: TackerClient,
    basic: Receiver,
    oauth: Receiver,
    name: str,
    tmp: Path,
) -> None:
    """Subscribe ``basic`` (BASIC, with the real client) and ``oauth``
    (OAuth 2.0) to instance ``name``; refuse one with a wrong password."""
    basic.required_auth = (
        'Basic '
        + base64.b64encode(f'{USER}:{BASIC_PASSWORD}'.encode()).decode()
    )
    oauth.clients = {USER: OAUTH_SECRET}
    only = {'vnfInstanceSubscriptionFilter': {'vnfInstanceNames': [name]}}
    body = tmp / 'basic.json'
    body.write_text(
        json.dumps(
            {
                'callbackUri': basic.url,
                'filter': only,
                'authentication': {
                    'authType': ['BASIC'],
                    'paramsBasic': {
                        'userName': USER,
                        'password': BASIC_PASSWORD,
                    },
                },
            }
        )
    )
    sub = client.lcm_json('subsc', 'create', str(body))
    client.lcm('subsc', 'show', sub['ID'])
    api.ok(
        'POST',
        '/subscriptions',
        201,
        json={
            'callbackUri': oauth.url,
            'filter': only,
            'authentication': {
                'authType': ['OAUTH2_CLIENT_CREDENTIALS'],
                'paramsOauth2ClientCredentials': {
                    'clientId': USER,
                    'clientPassword': OAUTH_SECRET,
                    'tokenEndpoint': oauth.token_url,
                },
            },
        },
    )
    refused = api.lcm(
        'POST',
        '/subscriptions',
        json={
            'callbackUri': basic.url + '?other',
            'filter': only,
            'authentication': {
                'authType': ['BASIC'],
                'paramsBasic': {'userName': USER, 'password': WRONG_PASSWORD},
            },
        },
    )
    assert refused.status_code == 422, refused.text
    api.ok('GET', '/subscriptions', 200)


def _lifecycle(api: Api, name: str) -> None:
    """Instantiate (v2, v1), fail and roll back, use a registered VIM,
    terminate; the instances are named ``name`` (the subscriptions')."""
    access = {'password': INSTANCE_PASSWORD, 'bearerToken': INSTANCE_TOKEN}
    request = api.instantiate_request()
    request['vimConnectionInfo']['vim1']['accessInfo'] = access
    inst = api.create_instance(api.V1_VNFD_ID, name=name)
    api.wait_op(api.start(inst, 'instantiate', request), 'COMPLETED')

    failing = api.instantiate_request(fail_hook='instantiate_end')
    failing['vimConnectionInfo']['vim1']['accessInfo'] = access
    bad = api.create_instance(api.V1_VNFD_ID, name=name)
    op = api.start(bad, 'instantiate', failing)
    api.wait_op(op, 'FAILED_TEMP')
    api.ok('POST', f'/vnf_lcm_op_occs/{op}/rollback', 202)
    api.wait_op(op, 'ROLLED_BACK')

    registered = api.create_instance(api.V1_VNFD_ID, name=name)
    op = api.start(
        registered,
        'instantiate',
        {
            'flavourId': 'simple',
            'vimConnectionInfo': {
                'vim1': {
                    'vimId': api.k8s_vim_id,  # type: ignore[attr-defined]
                    'vimType': 'ETSINFV.KUBERNETES.V_1',
                }
            },
        },
    )
    api.wait_op(op, {'ROLLED_BACK', 'FAILED_TEMP', 'COMPLETED'})

    v1 = {'Version': '1.3.0'}
    created = api.request(
        'POST',
        '/vnflcm/v1/vnf_instances',
        version=None,
        headers=v1,
        json={'vnfdId': api.V1_VNFD_ID, 'vnfInstanceName': name},
    )
    v1_id = _ok(created, 201)['id']
    started = api.request(
        'POST',
        f'/vnflcm/v1/vnf_instances/{v1_id}/instantiate',
        version=None,
        headers=v1,
        json={
            'flavourId': 'simple',
            'vimConnectionInfo': [
                {
                    'id': 'vim1',
                    'vimType': 'VNFM.NOOP.V_1',
                    'accessInfo': {'password': V1_PASSWORD},
                }
            ],
            # Sealed at rest like vimConnectionInfo, masked in views.
            'additionalParams': {'node': {'password': PARAMS_PASSWORD}},
        },
    )
    _ok(started, 202)
    api.wait_op(started.headers['Location'].rsplit('/', 1)[1], 'COMPLETED')
    api.request(
        'GET', f'/vnflcm/v1/vnf_instances/{v1_id}', version=None, headers=v1
    )

    for inst_id in (inst, bad, registered):
        api.instance(inst_id)
    api.ok('GET', '/vnf_instances', 200)
    api.ok('GET', '/vnf_lcm_op_occs', 200)
    api.wait_op(
        api.start(inst, 'terminate', {'terminationType': 'FORCEFUL'}),
        'COMPLETED',
    )


# -- the searches ------------------------------------------------------------


def test_the_flows_ran(seen: Seen) -> None:
    """The searches below mean something only if the flows did."""
    assert len(seen.responses) > 40
    assert len(seen.notifications) >= 8
    assert seen.messages and any('fetch_package' in m for m in seen.messages)
    assert all(len(text) > 0 for text in seen.logs.values())


@pytest.mark.parametrize(
    'service', ['api', 'conductor-1', 'conductor-2', 'db-manage']
)
def test_no_secret_in_the_logs(seen: Seen, service: str) -> None:
    log = seen.logs[service]
    leaks = [(n, line) for line in log.splitlines() for n in _hits(line)]
    assert leaks == []


def test_no_secret_in_api_responses(seen: Seen) -> None:
    leaks = [(n, text[:300]) for text in seen.responses for n in _hits(text)]
    assert leaks == []


def test_no_secret_in_what_the_client_printed(seen: Seen) -> None:
    assert _hits(seen.printed) == []


def test_no_secret_in_notifications(seen: Seen) -> None:
    leaks = [
        (n, text[:300]) for text in seen.notifications for n in _hits(text)
    ]
    assert leaks == []


def test_no_secret_in_clear_in_the_database(seen: Seen) -> None:
    """Credentials are stored sealed (the upload password until its
    download ended, then not at all)."""
    assert any(row.startswith('vims: ') for row in seen.rows)
    leaks = [(n, text[:300]) for text in seen.rows for n in _hits(text)]
    assert leaks == []


def test_no_secret_on_the_message_bus(seen: Seen) -> None:
    leaks = [(n, text[:300]) for text in seen.messages for n in _hits(text)]
    assert leaks == []
