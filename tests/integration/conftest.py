"""Integration fixtures: vnfm-api and two vnfm-conductors on real RabbitMQ
and PostgreSQL, the real ``openstack`` client, and the sample packages built
into zips.

Nothing here is skipped: RabbitMQ (127.0.0.1:5672) and PostgreSQL
(127.0.0.1:5432) always run on the test machines. Every session gets its own
vhost and database, removed afterwards.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import pytest
import requests

from vnfm.conf import CONF
from vnfm.csar.build import build_csar
from vnfm_testbed import procs
from vnfm_testbed.client import TackerClient

from . import truth

T = TypeVar('T')

SAMPLES = Path(__file__).resolve().parents[2] / 'samples' / 'packages'
V1_VNFD_ID = 'b1bb0ce7-ebca-4fa7-95ed-4840d70a1177'
V2_VNFD_ID = '5f5a0a9e-6d2b-4b4f-9a7c-4840d70a1278'
FLAVOURS_VNFD_ID = '3d0c8f5e-2a4b-4c7d-9e1f-6b5a4c3d2e10'
SECRET = 's3cret-never-shown'
# Alertmanager's bearer token for vnfm's receiver ([fault_management]).
ALERT_TOKEN = 'it-alertmanager-token'
FINAL = {'COMPLETED', 'FAILED', 'ROLLED_BACK'}
# The running services, by fixture name: a failed test using one gets the
# tails of its logs in the report.
LOGGED_SERVICES: dict[str, procs.VnfmServices] = {}

# The sample script fails the hook named by fail_hook on every run; retry
# needs a hook that fails until the test fixes the cause. This variant fails
# only while the file named by ``fail_marker`` exists.
_FAIL_LINE = '    if params.get("fail_hook") == hook:'
_FAIL_WHILE_MARKER = (
    '    marker = params.get("fail_marker")\n'
    '    if params.get("fail_hook") == hook and (\n'
    '            not marker or os.path.exists(marker)):'
)


def wait_for(
    probe: Callable[[], T], timeout: float, what: str, interval: float = 0.1
) -> T:
    """Call ``probe`` until it returns something truthy and return that;
    fail the test naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        last = probe()
        if last:
            return last
        if time.monotonic() >= deadline:
            pytest.fail(
                f'timed out after {timeout}s waiting for {what}; '
                f'last: {last!r}'
            )
        time.sleep(interval)


def package_variant(
    src: Path, dst: Path, vnfd_id: str, *, fail_marker: bool = False
) -> Path:
    """Copy sample package ``src`` to ``dst`` with descriptor id ``vnfd_id``
    (unique among onboarded packages); with ``fail_marker`` patch the hook
    script as described above."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns('__pycache__'))
    old_id = V2_VNFD_ID if 'v2' in src.name else V1_VNFD_ID
    for path in (dst / 'Definitions').glob('*.yaml'):
        path.write_text(path.read_text().replace(old_id, vnfd_id))
    if fail_marker:
        script = dst / 'Scripts' / 'record_hook.py'
        text = script.read_text()
        assert _FAIL_LINE in text, (
            'record_hook.py changed: update package_variant()'
        )
        script.write_text(text.replace(_FAIL_LINE, _FAIL_WHILE_MARKER))
    return dst


def zip_scripts_sha256(data: bytes) -> set[str]:
    """SHA-256 of every Scripts/ file of a package zip (for the
    allow-list)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {
            hashlib.sha256(zf.read(n)).hexdigest()
            for n in zf.namelist()
            if n.startswith('Scripts/')
        }


class Zip(NamedTuple):
    """A built package zip and the vnfdId of its VNFD."""

    path: Path
    vnfd_id: str


@pytest.fixture(autouse=True)
def _vims_on_loopback() -> Iterator[None]:
    """In-process code reaches the local Kubernetes' API server on
    loopback, which the outbound policy denies: open it to VIMs, as the
    services procs starts have it open ([outbound] allowed_networks)."""
    CONF.set_override(
        'vim_allowed_networks', procs.LOOPBACK.split(','), group='outbound'
    )
    yield
    CONF.clear_override('vim_allowed_networks', group='outbound')


@pytest.fixture(scope='session')
def zips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Zip]:
    """Package zips by name: v1, v2 (the samples), retry (fails while a
    marker exists), pkg_a and pkg_b (v1 with their own vnfdIds, for the
    package tests), flavours (cnf_flavours, failing while a marker
    exists)."""
    root = tmp_path_factory.mktemp('packages')
    sources = {
        'v1': (SAMPLES / 'noop_vnf', V1_VNFD_ID),
        'v2': (SAMPLES / 'noop_vnf_v2', V2_VNFD_ID),
    }
    for name in ('retry', 'pkg_a', 'pkg_b'):
        vnfd_id = str(uuid.uuid4())
        src = package_variant(
            SAMPLES / 'noop_vnf',
            root / f'src-{name}',
            vnfd_id,
            fail_marker=name == 'retry',
        )
        sources[name] = (src, vnfd_id)
    # Two flavours, its hooks failing while a marker exists (its vnfdId is
    # the sample's: no other test onboards it).
    sources['flavours'] = (
        package_variant(
            SAMPLES / 'cnf_flavours',
            root / 'src-flavours',
            FLAVOURS_VNFD_ID,
            fail_marker=True,
        ),
        FLAVOURS_VNFD_ID,
    )
    out = {}
    for name, (src, vnfd_id) in sources.items():
        path = root / f'{name}.zip'
        path.write_bytes(build_csar(str(src)))
        out[name] = Zip(path, vnfd_id)
    return out


@pytest.fixture(scope='session')
def hook_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The file the sample hook script appends its calls to."""
    return tmp_path_factory.mktemp('hooks') / 'hooks.jsonl'


@contextlib.contextmanager
def running(
    fixture: str, svc: procs.VnfmServices, conductors: int
) -> Iterator[procs.VnfmServices]:
    """Run ``svc`` (a failed test using ``fixture`` gets its log tails);
    stop it at the end."""
    LOGGED_SERVICES[fixture] = svc
    try:
        svc.start(conductors=conductors)
        yield svc
    finally:
        svc.stop()
        LOGGED_SERVICES.pop(fixture, None)


@pytest.fixture(scope='session')
def services(
    tmp_path_factory: pytest.TempPathFactory,
    zips: dict[str, Zip],
    hook_record: Path,
) -> Iterator[procs.VnfmServices]:
    """vnfm-api and two conductors; only the sample hook scripts' digests
    are allowed."""
    allowed = sorted(
        set().union(
            *(zip_scripts_sha256(z.path.read_bytes()) for z in zips.values())
        )
    )
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('vnfm'),
        conf={
            'mgmt_driver': {'allowed_script_sha256': ','.join(allowed)},
            'fault_management': {'receiver_token': ALERT_TOKEN},
            'performance_management': {
                'autoscale_cooldown': 0,
                'rule_dir': str(tmp_path_factory.mktemp('pm-rules')),
                'rule_sync_interval': 0.5,
            },
        },
        env={'VNFM_HOOK_RECORD': str(hook_record)},
    )
    with running('services', svc, conductors=2):
        yield svc


@pytest.fixture
def two_conductors(
    services: procs.VnfmServices,
) -> Iterator[procs.VnfmServices]:
    """The services with two live conductors, restored after the test."""
    _ensure_conductors(services, 2)
    yield services
    _ensure_conductors(services, 2)


def _ensure_conductors(services: procs.VnfmServices, n: int) -> None:
    missing = n - len(services.conductors())
    if missing > 0:
        services.start_conductors(missing)


@pytest.fixture(autouse=True)
def truth_clouds(request: pytest.FixtureRequest) -> None:
    """Register the local Kubernetes and local cloud a test uses, so
    ``Api.wait_op`` compares the instances on them with what they have."""
    for name in truth.CLOUD_FIXTURES:
        if name in request.fixturenames:
            truth.register(request.getfixturevalue(name))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo
) -> Iterator[None]:
    """Attach the tails of the service logs to a failed test's report."""
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    for fixture, svc in LOGGED_SERVICES.items():
        if fixture in getattr(item, 'fixturenames', ()):
            report.sections.append(('vnfm service logs', svc.log_tails()))


@pytest.fixture(scope='session')
def client(services: procs.VnfmServices) -> TackerClient:
    """The real ``openstack`` client pointed at vnfm-api."""
    return TackerClient(services.api_url)


class Api:
    """Raw HTTP to vnfm-api, for set-up, polling, and checks below the
    client; also carries the test helpers (conftest is not importable)."""

    SECRET = SECRET
    ALERT_TOKEN = ALERT_TOKEN
    V1_VNFD_ID = V1_VNFD_ID
    V2_VNFD_ID = V2_VNFD_ID
    SAMPLES = SAMPLES
    wait_for = staticmethod(wait_for)
    package_variant = staticmethod(package_variant)

    def __init__(self, base: str, hook_record: Path) -> None:
        self.base = base
        self.hook_record = hook_record
        self.http = requests.Session()

    def request(
        self,
        method: str,
        path: str,
        *,
        version: str | None = '2.0.0',
        **kw: Any,
    ) -> requests.Response:
        """``method path`` with a ``Version`` header (None: without)."""
        headers = dict(kw.pop('headers', None) or {})
        if version:
            headers.setdefault('Version', version)
        kw.setdefault('timeout', 30)
        return self.http.request(
            method, self.base + path, headers=headers, **kw
        )

    def lcm(self, method: str, path: str, **kw: Any) -> requests.Response:
        """A /vnflcm/v2 request."""
        return self.request(method, '/vnflcm/v2' + path, **kw)

    def configure(self, inst_id: str, **properties: Any) -> None:
        """Set vnfConfigurableProperties of an instance (PATCH, waiting
        for the op to complete)."""
        r = self.lcm(
            'PATCH',
            f'/vnf_instances/{inst_id}',
            json={'vnfConfigurableProperties': properties},
            headers={'Content-Type': 'application/merge-patch+json'},
        )
        assert r.status_code == 202, r.text
        self.wait_op(r.headers['Location'].rsplit('/', 1)[1], 'COMPLETED')

    def post_alerts(self, *alerts: dict) -> dict:
        """POST ``alerts`` to the receiver as Alertmanager's webhook does;
        its answer."""
        # Not the session: posts may come from several threads at once.
        r = requests.post(
            self.base + '/alert',
            json={'version': '4', 'status': 'firing', 'alerts': list(alerts)},
            headers={'Authorization': f'Bearer {ALERT_TOKEN}'},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        return r.json()

    def ok(
        self, method: str, path: str, status: int, **kw: Any
    ) -> requests.Response:
        """A /vnflcm/v2 request that must answer ``status``."""
        r = self.lcm(method, path, **kw)
        assert r.status_code == status, (
            f'{method} {path}: {r.status_code} {r.text}'
        )
        return r

    def op(self, op_id: str) -> dict:
        """The op occurrence ``op_id``."""
        return self.ok('GET', f'/vnf_lcm_op_occs/{op_id}', 200).json()

    def ops(self, inst_id: str) -> list[dict]:
        """The op occurrences of instance ``inst_id``."""
        return self.ok(
            'GET',
            '/vnf_lcm_op_occs',
            200,
            params={'filter': f'(eq,vnfInstanceId,{inst_id})'},
        ).json()

    def latest_op(self, inst_id: str, operation: str) -> dict:
        """The newest op occurrence of ``operation`` on the instance."""
        ops = self.ops(inst_id)
        ours = [o for o in ops if o['operation'] == operation]
        assert ours, ops
        return max(ours, key=lambda o: o['startTime'])

    def wait_op(
        self, op_id: str, states: set[str] | str, timeout: float = 30.0
    ) -> dict:
        """Poll op ``op_id`` until its operationState is in ``states``."""
        states = {states} if isinstance(states, str) else states

        def probe() -> dict | None:
            op = self.op(op_id)
            if op['operationState'] in states:
                return op
            assert op['operationState'] not in FINAL - states, op
            return None

        op = wait_for(probe, timeout, f'op {op_id} in {sorted(states)}')
        if op['operationState'] == 'COMPLETED':
            truth.check(self, op)
        return op

    def instance(self, inst_id: str) -> dict:
        """The VNF instance ``inst_id``."""
        return self.ok('GET', f'/vnf_instances/{inst_id}', 200).json()

    def create_instance(self, vnfd_id: str, name: str = 'it') -> str:
        """Create a VNF instance of ``vnfd_id``; return its id."""
        body = {'vnfdId': vnfd_id, 'vnfInstanceName': name}
        return self.ok('POST', '/vnf_instances', 201, json=body).json()['id']

    def start(self, inst_id: str, task: str, body: dict) -> str:
        """POST a task (instantiate, terminate, ...); return the op id from
        the Location header."""
        r = self.ok('POST', f'/vnf_instances/{inst_id}/{task}', 202, json=body)
        return r.headers['Location'].rstrip('/').rsplit('/', 1)[1]

    def onboard(self, zip_path: Path, timeout: float = 30.0) -> dict:
        """Create a package, upload ``zip_path``, wait until ONBOARDED;
        return its VnfPkgInfo."""
        pkg = self.request(
            'POST', '/vnfpkgm/v1/vnf_packages', version=None, json={}
        ).json()
        r = self.request(
            'PUT',
            f'/vnfpkgm/v1/vnf_packages/{pkg["id"]}/package_content',
            version=None,
            data=zip_path.read_bytes(),
            headers={'Content-Type': 'application/zip'},
        )
        assert r.status_code == 202, r.text

        def probe() -> dict | None:
            info = self.request(
                'GET', f'/vnfpkgm/v1/vnf_packages/{pkg["id"]}', version=None
            ).json()
            assert info['onboardingState'] != 'ERROR', info
            return info if info['onboardingState'] == 'ONBOARDED' else None

        return wait_for(probe, timeout, f'package {zip_path.name} ONBOARDED')

    @staticmethod
    def instantiate_request(**additional: Any) -> dict:
        """An InstantiateVnfRequest for the noop VIM, with a secret in
        accessInfo."""
        return {
            'flavourId': 'simple',
            'vimConnectionInfo': {
                'vim1': {
                    'vimType': 'VNFM.NOOP.V_1',
                    'accessInfo': {'password': SECRET},
                }
            },
            'additionalParams': additional,
        }

    def hooks(self, inst_id: str) -> list[dict]:
        """The hook calls the sample script recorded for ``inst_id``, in
        order."""
        if not self.hook_record.exists():
            return []
        lines = self.hook_record.read_text().splitlines()
        return [
            r
            for r in map(json.loads, lines)
            if r.get('vnf_instance_id') == inst_id
        ]


@pytest.fixture(scope='session')
def api(services: procs.VnfmServices, hook_record: Path) -> Api:
    """Raw HTTP access to vnfm-api."""
    return Api(services.api_url, hook_record)


@pytest.fixture(scope='session')
def pkg_v1(api: Api, zips: dict[str, Zip]) -> dict:
    """The noop_vnf sample, onboarded."""
    return api.onboard(zips['v1'].path)


@pytest.fixture(scope='session')
def pkg_v2(api: Api, zips: dict[str, Zip]) -> dict:
    """The noop_vnf_v2 sample, onboarded."""
    return api.onboard(zips['v2'].path)


@pytest.fixture(scope='session')
def pkg_retry(api: Api, zips: dict[str, Zip]) -> dict:
    """noop_vnf whose fail_hook fails only while
    additionalParams.fail_marker exists."""
    return api.onboard(zips['retry'].path)


@pytest.fixture
def noop_instance(api: Api, pkg_v2: dict) -> Iterator[str]:
    """An instantiated noop_vnf_v2 instance; terminated (once no op runs
    on it) and deleted afterwards."""
    inst_id = api.create_instance(api.V2_VNFD_ID, name='it-noop')
    op_id = api.start(inst_id, 'instantiate', api.instantiate_request())
    api.wait_op(op_id, 'COMPLETED')
    yield inst_id
    api.wait_for(
        lambda: all(
            o['operationState'] in ('COMPLETED', 'FAILED', 'ROLLED_BACK')
            for o in api.ops(inst_id)
        ),
        60,
        'no op in progress',
    )
    op_id = api.start(inst_id, 'terminate', {'terminationType': 'FORCEFUL'})
    api.wait_op(op_id, 'COMPLETED')
    api.ok('DELETE', f'/vnf_instances/{inst_id}', 204)
