"""A conductor killed in the middle of an op and started again: with the
same host name its ops fail at start-up (the restart is named), with
another host name they fail once the lease runs out; in both cases a retry
completes. For vnfm-all (SQLite, in-process bus) and for a vnfm-conductor
beside vnfm-api (RabbitMQ, PostgreSQL).

The lease is long here (LEASE): before the fix, a restart under the same
name renewed the dead process's ops, and they stayed PROCESSING forever.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from vnfm.csar.build import build_csar
from vnfm_testbed import allinone
from vnfm_testbed import procs

from .conftest import SAMPLES
from .conftest import Api
from .conftest import Zip
from .conftest import package_variant
from .conftest import zip_scripts_sha256

pytestmark = pytest.mark.timeout(240)

LEASE = 15
# The hook outlives the kill, the restart and, before the fix, the lease.
HOOK_SLEEP = 120
RESTARTED = 'restarted'


_SLEEP = '        time.sleep(sleep[hook])\n'
_SLEEP_WHILE_MARKER = (
    '        marker = params.get("sleep_marker")\n'
    '        end = time.monotonic() + sleep[hook]\n'
    '        while time.monotonic() < end and (\n'
    '                not marker or os.path.exists(marker)):\n'
    '            time.sleep(0.1)\n'
)


def sleepy_package(root: Path) -> Zip:
    """noop_vnf whose hook_sleep ends early once the file named by
    additionalParams.sleep_marker is gone (a retry need not sleep)."""
    vnfd_id = str(uuid.uuid4())
    src = package_variant(SAMPLES / 'noop_vnf', root / 'src-sleepy', vnfd_id)
    script = src / 'Scripts' / 'record_hook.py'
    text = script.read_text()
    assert _SLEEP in text, 'record_hook.py changed: update sleepy_package()'
    script.write_text(text.replace(_SLEEP, _SLEEP_WHILE_MARKER))
    path = root / 'sleepy.zip'
    path.write_bytes(build_csar(str(src)))
    return Zip(path, vnfd_id)


@pytest.fixture(scope='module')
def sleepy(tmp_path_factory: pytest.TempPathFactory) -> Zip:
    """The sleepy package zip."""
    return sleepy_package(tmp_path_factory.mktemp('sleepy'))


def _conf(sleepy: Zip) -> dict[str, dict[str, object]]:
    allowed = zip_scripts_sha256(sleepy.path.read_bytes())
    return {
        'conductor': {'lease_seconds': LEASE},
        'mgmt_driver': {'allowed_script_sha256': ','.join(sorted(allowed))},
    }


class Split:
    """vnfm-api and one vnfm-conductor named h1."""

    def __init__(self, svc: procs.VnfmServices) -> None:
        self.svc = svc
        self.api_url = svc.api_url

    def start(self, host: str) -> None:
        self.svc.start_conductors(hosts=[host])

    def kill(self, host: str) -> None:
        self.svc.kill(host)

    def owner(self, op_id: str) -> str:
        [(owner,)] = self.svc.sql(
            'SELECT owner FROM vnf_lcm_op_occs WHERE id = %s', (op_id,)
        )
        return owner

    def log_tails(self) -> str:
        return self.svc.log_tails()


class AllInOne:
    """One vnfm-all, first named h1."""

    def __init__(self, proc: allinone.VnfmAll) -> None:
        self.proc = proc
        self.api_url = proc.api_url

    def start(self, host: str) -> None:
        self.proc.start(host)

    def kill(self, host: str) -> None:
        self.proc.kill()

    def owner(self, op_id: str) -> str:
        [(owner,)] = self.proc.sql(
            'SELECT owner FROM vnf_lcm_op_occs WHERE id = ?', (op_id,)
        )
        return owner

    def log_tails(self) -> str:
        return self.proc.log_tail()


@pytest.fixture(params=['vnfm-all', 'split'])
def deployment(
    request, tmp_path: Path, sleepy: Zip, hook_record: Path
) -> Iterator[Split | AllInOne]:
    """vnfm with conductor h1 running, as vnfm-all or split."""
    env = {'VNFM_HOOK_RECORD': str(hook_record)}
    if request.param == 'split':
        svc = procs.VnfmServices(tmp_path, conf=_conf(sleepy), env=env)
        try:
            svc.start(conductors=0)
            deployment: Split | AllInOne = Split(svc)
            deployment.start('h1')
            yield deployment
        finally:
            svc.stop()
    else:
        proc = allinone.VnfmAll(tmp_path, conf=_conf(sleepy), env=env)
        try:
            deployment = AllInOne(proc)
            deployment.start('h1')
            yield deployment
        finally:
            proc.stop()


@pytest.mark.parametrize('restart_as', ['h1', 'h2'])
def test_op_of_a_killed_conductor_fails_and_retries(
    deployment: Split | AllInOne,
    restart_as: str,
    sleepy: Zip,
    hook_record: Path,
    tmp_path: Path,
) -> None:
    api = Api(deployment.api_url, hook_record)
    api.onboard(sleepy.path)
    inst_id = api.create_instance(sleepy.vnfd_id, 'restart')
    marker = tmp_path / 'sleeping'
    marker.touch()
    op_id = api.start(
        inst_id,
        'instantiate',
        api.instantiate_request(
            hook_sleep={'instantiate_start': HOOK_SLEEP},
            sleep_marker=str(marker),
        ),
    )
    api.wait_for(
        lambda: [
            h for h in api.hooks(inst_id) if h['hook'] == 'instantiate_start'
        ],
        30,
        'the instantiate_start hook running',
    )
    assert deployment.owner(op_id).split('/')[0] == 'h1'

    deployment.kill('h1')
    deployment.start(restart_as)

    if restart_as == 'h1':
        # Failed by the start-up itself (no other conductor runs to reap
        # it), before the API answers again.
        op = api.op(op_id)
        assert op['operationState'] == 'FAILED_TEMP', op
        assert f'Conductor h1 {RESTARTED}' in op['error']['detail'], op
    else:
        op = api.wait_op(op_id, 'FAILED_TEMP', timeout=LEASE + 10)
        detail = op['error']['detail']
        assert 'h1' in detail and 'lease' in detail, op
    assert deployment.owner(op_id) is None

    # The retry runs the hook again: without its sleep this time.
    marker.unlink()
    api.ok('POST', f'/vnf_lcm_op_occs/{op_id}/retry', 202)
    api.wait_op(op_id, 'COMPLETED', timeout=30)
    assert api.instance(inst_id)['instantiationState'] == 'INSTANTIATED'
