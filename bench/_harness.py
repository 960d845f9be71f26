"""Shared parts of the benchmarks: the services, a keep-alive HTTP client,
sample packages with fresh VNFD ids, figures.

The services are real processes (``vnfm_testbed.procs.VnfmServices``):
vnfm-api (cheroot) and vnfm-conductor(s) on a fresh RabbitMQ vhost and a
fresh PostgreSQL database, both removed at the end.
"""

from __future__ import annotations

import base64
import contextlib
import datetime
import hashlib
import http.client
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib import parse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from vnfm.csar.build import build_csar  # noqa: E402
from vnfm_testbed.procs import VnfmServices  # noqa: E402

SAMPLE = ROOT / 'samples' / 'packages' / 'noop_vnf'
SAMPLE_DESCRIPTOR_ID = 'b1bb0ce7-ebca-4fa7-95ed-4840d70a1177'
V2 = {'Version': '2.0.0'}
FINAL_OP_STATES = ('COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLED_BACK')

# Production defaults for the conductor (VnfmServices tunes them for tests).
_CONDUCTOR_DEFAULTS = {
    'lease_seconds': 30,
    'heartbeat_interval': 5,
    'sweep_interval': 5,
    'unclaimed_grace_seconds': 10,
}


def script_sha256() -> str:
    """SHA-256 of the sample's hook script (allow-listed in the services)."""
    return hashlib.sha256(
        (SAMPLE / 'Scripts' / 'record_hook.py').read_bytes()
    ).hexdigest()


@contextlib.contextmanager
def services(
    conductors: int = 1, conf: dict | None = None
) -> Iterator[VnfmServices]:
    """vnfm-api and ``conductors`` conductors on a fresh vhost and database
    (``conf``: more option groups)."""
    work = Path(tempfile.mkdtemp(prefix='vnfm-bench-'))
    svc = VnfmServices(
        work,
        conf={
            'conductor': dict(_CONDUCTOR_DEFAULTS),
            'mgmt_driver': {'allowed_script_sha256': script_sha256()},
            **(conf or {}),
        },
    )
    try:
        svc.start(conductors=conductors)
        yield svc
    except BaseException:
        print(svc.log_tails(), file=sys.stderr)
        raise
    finally:
        svc.stop()
        shutil.rmtree(work, ignore_errors=True)


class Client:
    """One kept-alive HTTP/1.1 connection to vnfm-api."""

    def __init__(self, base_url: str) -> None:
        host, port = base_url.split('//', 1)[1].split(':')
        self.conn = http.client.HTTPConnection(host, int(port), timeout=60)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | dict | None = None,
        headers: dict | None = None,
    ) -> tuple[int, dict, bytes]:
        """Send one request; (status, headers, body bytes)."""
        hdrs = dict(headers or {})
        if isinstance(body, dict):
            body = json.dumps(body).encode()
            hdrs.setdefault('Content-Type', 'application/json')
        self.conn.request(method, path, body=body, headers=hdrs)
        resp = self.conn.getresponse()
        data = resp.read()
        return resp.status, dict(resp.getheaders()), data

    def json(
        self,
        method: str,
        path: str,
        body: dict | None = None,
        headers: dict | None = None,
        expect: int = 200,
    ):
        """Send one request expecting ``expect``; the decoded JSON body."""
        status, _, data = self.request(method, path, body, headers)
        if status != expect:
            raise RuntimeError(f'{method} {path}: {status} {data[:500]!r}')
        return json.loads(data) if data else None

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


def make_package(
    descriptor_id: str | None = None, hooks: bool = True, pad_to: int = 0
) -> tuple[bytes, str]:
    """The sample CSAR with a fresh VNFD id; (zip bytes, vnfdId).

    ``hooks=False`` drops the Vnflcm interface and the script; ``pad_to``
    adds an incompressible file until the zip is about that many bytes.
    """
    descriptor_id = descriptor_id or str(uuid.uuid4())
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / 'pkg'
        shutil.copytree(SAMPLE, src)
        for path in (src / 'Definitions').glob('*.yaml'):
            path.write_text(
                path.read_text().replace(SAMPLE_DESCRIPTOR_ID, descriptor_id)
            )
        if not hooks:
            _drop_hooks(src)
        data = build_csar(str(src))
        if pad_to > len(data):
            (src / 'Files').mkdir(exist_ok=True)
            # base64 of n random bytes deflates to about n bytes.
            raw = os.urandom(pad_to - len(data))
            (src / 'Files' / 'padding.txt').write_bytes(base64.b64encode(raw))
            data = build_csar(str(src))
    return data, descriptor_id


def _drop_hooks(src: Path) -> None:
    df = src / 'Definitions' / 'noop_df_simple.yaml'
    doc = yaml.safe_load(df.read_text())
    vnf = doc['topology_template']['node_templates']['VNF']
    vnf.pop('interfaces', None)
    vnf.pop('artifacts', None)
    df.write_text(yaml.safe_dump(doc, sort_keys=False))
    shutil.rmtree(src / 'Scripts')


def onboard(
    client: Client, data: bytes, timeout: float = 30.0
) -> tuple[str, float]:
    """Create and upload a package, wait for ONBOARDED; (id, ms from the
    start of the upload to ONBOARDED seen)."""
    pkg = client.json('POST', '/vnfpkgm/v1/vnf_packages', {}, expect=201)
    path = f'/vnfpkgm/v1/vnf_packages/{pkg["id"]}'
    start = time.perf_counter()
    status, _, body = client.request(
        'PUT',
        path + '/package_content',
        data,
        {'Content-Type': 'application/zip'},
    )
    if status != 202:
        raise RuntimeError(f'upload: {status} {body[:500]!r}')
    deadline = start + timeout
    while True:
        state = client.json('GET', path)['onboardingState']
        if state == 'ONBOARDED':
            return pkg['id'], (time.perf_counter() - start) * 1000
        if state == 'ERROR' or time.perf_counter() > deadline:
            raise RuntimeError(f'package {pkg["id"]} is {state}')
        time.sleep(0.002)


def create_instance(client: Client, vnfd_id: str) -> str:
    """POST a VNF instance; its id."""
    return client.json(
        'POST',
        '/vnflcm/v2/vnf_instances',
        {'vnfdId': vnfd_id, 'vnfInstanceName': 'bench'},
        V2,
        expect=201,
    )['id']


def percentiles(ms: list[float]) -> dict[str, float]:
    """p50/p90/p99/max of a list of milliseconds, rounded."""
    s = sorted(ms)

    def pct(p: float) -> float:
        return round(s[min(len(s) - 1, int(p * len(s)))], 2)

    return {
        'n': len(s),
        'p50_ms': round(statistics.median(s), 2),
        'p90_ms': pct(0.90),
        'p99_ms': pct(0.99),
        'max_ms': round(s[-1], 2),
    }


def emit(figures: dict) -> None:
    """Print the figures as one JSON object."""
    print(json.dumps(figures, indent=2, sort_keys=False))


def epoch(iso: str) -> float:
    """Epoch seconds of an API timestamp (ISO 8601, microseconds, Z)."""
    value = datetime.datetime.strptime(iso, '%Y-%m-%dT%H:%M:%S.%fZ')
    return value.replace(tzinfo=datetime.timezone.utc).timestamp()


def run_op(client: Client, inst: str, action: str, body: dict) -> dict:
    """POST an LCM task and wait for COMPLETED; the op and when it was
    posted (epoch seconds)."""
    posted = time.time()
    status, headers, data = client.request(
        'POST',
        f'/vnflcm/v2/vnf_instances/{inst}/{action}',
        body,
        {**V2, 'Content-Type': 'application/json'},
    )
    if status != 202:
        raise RuntimeError(f'{action}: {status} {data[:300]!r}')
    path = parse.urlsplit(headers['Location']).path
    deadline = time.monotonic() + 300
    while True:
        op = client.json('GET', path, headers=V2)
        if op['operationState'] in FINAL_OP_STATES:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f'{action} of {inst} still running')
        time.sleep(0.005)
    if op['operationState'] != 'COMPLETED':
        raise RuntimeError(
            f'{action} ended {op["operationState"]}: {op.get("error")}'
        )
    op['_posted'] = posted
    op['_completed'] = epoch(op['stateEnteredTime'])
    return op
