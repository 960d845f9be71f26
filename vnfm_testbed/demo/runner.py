"""The machinery of vnfm-demo: a vnfm-all child process (``VnfmAll``) and
the step runner (``Demo``) that prints and checks each ``openstack`` client
command, run in a fork of this process or as its own process.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess  # nosec B404 - runs vnfm-all and the openstack client
import sys
import time
import traceback
from pathlib import Path
from typing import Any
from urllib import error as urlerror
from urllib import request as urlrequest

V2 = ['--os-tacker-api-version', '2']
_FINAL_OP_STATES = ('COMPLETED', 'FAILED_TEMP', 'FAILED', 'ROLLED_BACK')


class StepFailed(Exception):
    """A step of the demo did not have its expected outcome."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 just now."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return int(s.getsockname()[1])


def wait(what: str, probe, timeout: float = 30.0):
    """Call ``probe`` until it returns a truthy value or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise StepFailed(
                f'timed out after {timeout:.0f}s waiting for {what}'
            )
        time.sleep(0.1)


def table_field(output: str, name: str) -> str:
    """The value of row ``name`` in an openstack show table ('' if absent)."""
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) == 2 and cells[0] == name:
            return cells[1]
    return ''


def _openstack_forked(argv: list[str]) -> tuple[int, str]:
    """Run the openstack client's shell in a fork of this process: the same
    code as the ``openstack`` command, without its second of imports per
    call, and without state carried from one command to the next (the
    client keeps the first API version it used)."""
    from openstackclient import shell  # noqa: PLC0415 - demo-only dependency

    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: output into the pipe, never return
        status = 1
        try:
            os.close(read_fd)
            os.dup2(write_fd, 1)
            os.dup2(write_fd, 2)
            status = shell.main(argv)
        except SystemExit as exc:  # argparse errors
            status = exc.code if isinstance(exc.code, int) else 2
        except BaseException:  # noqa: BLE001 - the child's boundary
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    os.close(write_fd)
    with os.fdopen(read_fd, 'rb') as pipe:
        out = pipe.read().decode(errors='replace')
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status), out


class VnfmAll:
    """A vnfm-all child process with its own state directory and config."""

    def __init__(
        self,
        state_dir: Path,
        port: int,
        script_sha256: list[str],
        infra_drivers: str = 'noop',
        extra_conf: str = '',
    ):
        self.state_dir = state_dir
        self.port = port
        self.endpoint = f'http://127.0.0.1:{port}'
        self.log_path = state_dir / 'vnfm-all.log'
        self.hook_record = state_dir / 'hooks.jsonl'
        self.config = state_dir / 'vnfm.conf'
        self.config.write_text(
            '[DEFAULT]\n'
            f'state_path = {state_dir}\n'
            'transport_url = fake://\n'
            f'host = vnfm-demo-{os.getpid()}\n'
            '[api]\n'
            f'host_ip = 127.0.0.1\nport = {port}\n'
            f'[infra]\nenabled_infra_drivers = {infra_drivers}\n'
            '[mgmt_driver]\n'
            # The demo allows exactly the sample's hook script, by digest.
            f'allowed_script_sha256 = {",".join(script_sha256)}\n' + extra_conf
        )
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        """Start vnfm-all and wait until its API answers."""
        env = dict(os.environ, VNFM_HOOK_RECORD=str(self.hook_record))
        with open(self.log_path, 'ab') as log:
            self.proc = subprocess.Popen(  # nosec B603 - fixed argv
                [
                    sys.executable,
                    '-m',
                    'vnfm.cmd.all',
                    '--config-file',
                    str(self.config),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        wait('vnfm-all to answer GET /vnflcm/v2/api_versions', self._ready)

    def _ready(self) -> bool:
        if self.proc is not None and self.proc.poll() is not None:
            raise StepFailed(f'vnfm-all exited with {self.proc.returncode}')
        try:
            return self.get('/vnflcm/v2/api_versions') is not None
        except StepFailed:
            return False

    def get(self, path: str) -> Any:
        """GET ``path`` as JSON (Version 2.0.0 for /vnflcm/v2): a resource
        (dict) or a list of them, as the path says."""
        return self._request('GET', path)[1]

    def post(self, path: str, body: dict) -> tuple[int, Any]:
        """POST ``body`` as JSON to ``path``, printed as the curl command
        that sends the same; (status, the JSON answer or None)."""
        data = json.dumps(body)
        print(
            f"$ curl -X POST -H 'Version: 2.0.0' -H 'Content-Type: "
            f"application/json' -d '{data}' {self.endpoint}{path}",
            flush=True,
        )
        status, answer = self._request('POST', path, data.encode())
        print(
            f'HTTP {status}' + (f' {json.dumps(answer)}' if answer else ''),
            flush=True,
        )
        return status, answer

    def _request(
        self, method: str, path: str, data: bytes | None = None
    ) -> tuple[int, Any]:
        headers = {'Version': '2.0.0', 'Accept': 'application/json'}
        if data is not None:
            headers['Content-Type'] = 'application/json'
        req = urlrequest.Request(
            self.endpoint + path, data=data, headers=headers, method=method
        )
        try:
            with urlrequest.urlopen(req, timeout=10) as resp:  # nosec B310
                raw = resp.read()
                return resp.status, json.loads(raw) if raw else None
        except urlerror.HTTPError as exc:
            raise StepFailed(
                f'{method} {path}: {exc.code} '
                f'{exc.read()[:500].decode(errors="replace")}'
            ) from exc
        except (OSError, ValueError) as exc:
            raise StepFailed(f'{method} {path}: {exc}') from exc

    def stop(self) -> int | None:
        """SIGTERM vnfm-all, wait for it; return its exit status."""
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            # Its whole process group: API workers too.
            os.killpg(self.proc.pid, signal.SIGKILL)
            return self.proc.wait()

    def log_tail(self, lines: int = 40) -> str:
        """The last lines of vnfm-all's log."""
        try:
            text = self.log_path.read_text(errors='replace')
        except OSError:
            return ''
        return '\n'.join(text.splitlines()[-lines:])


class Demo:
    """The steps, each printed and checked; ``results`` feeds the summary."""

    def __init__(
        self, server: VnfmAll, work: Path, exec_client: bool = False
    ) -> None:
        self.server = server
        self.work = work
        self.exec_client = exec_client
        self.results: list[tuple[str, bool, float, str]] = []
        self.openstack = (
            shutil.which(
                'openstack',
                path=os.path.dirname(sys.executable)
                + os.pathsep
                + os.environ.get('PATH', ''),
            )
            or 'openstack'
        )

    def step(self, title: str, func, *args):
        """Run one step, record its outcome; a failure stops the demo."""
        print(f'\n=== {len(self.results) + 1}. {title}', flush=True)
        start = time.monotonic()
        try:
            value = func(*args)
        except StepFailed as exc:
            self.results.append(
                (title, False, time.monotonic() - start, str(exc))
            )
            print(f'--> FAILED: {exc}', flush=True)
            raise
        self.results.append((title, True, time.monotonic() - start, ''))
        return value

    def cli(self, *args: str) -> str:
        """Print and run ``openstack ARGS``; its output, or StepFailed."""
        status, out = self._run_cli(args)
        if status != 0:
            raise StepFailed(f'openstack exited with {status}')
        return out

    def cli_fails(self, *args: str) -> str:
        """Print and run ``openstack ARGS``, which must fail; its output,
        or StepFailed if it succeeded."""
        status, out = self._run_cli(args)
        if status == 0:
            raise StepFailed('openstack succeeded; a refusal was expected')
        print(f'--> refused (exit status {status}), as expected', flush=True)
        return out

    def _run_cli(self, args: tuple[str, ...]) -> tuple[int, str]:
        print('$ openstack ' + ' '.join(args), flush=True)
        argv = [
            '--os-auth-type',
            'none',
            '--os-endpoint',
            self.server.endpoint,
            *args,
        ]
        if self.exec_client:
            proc = subprocess.run(  # nosec B603 - fixed argv
                [self.openstack, *argv],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            status, out = proc.returncode, proc.stdout + proc.stderr
        else:
            status, out = _openstack_forked(argv)
        out = out.rstrip()
        print(out, flush=True)
        return status, out

    @staticmethod
    def expect(output: str, field: str, value: str) -> None:
        """Check that the table row ``field`` reads ``value``."""
        got = table_field(output, field)
        if got != value:
            raise StepFailed(f'{field} is {got!r}, expected {value!r}')
        print(f'--> ok: {field} is {value}', flush=True)

    def write_json(self, name: str, body: dict) -> str:
        """Write a request body file and show it."""
        path = self.work / name
        path.write_text(json.dumps(body, indent=2) + '\n')
        print(f'$ cat {path}\n{path.read_text().rstrip()}', flush=True)
        return str(path)

    def onboard(self, csar: Path) -> tuple[str, str]:
        """Create, upload, wait for ONBOARDED; (package id, vnfdId)."""
        out = self.cli('vnf', 'package', 'create')
        pkg_id = table_field(out, 'ID')
        if not pkg_id:
            raise StepFailed('no ID in the output')
        self.cli('vnf', 'package', 'upload', '--path', str(csar), pkg_id)
        print(
            '... waiting for onboarding (polling GET '
            f'/vnfpkgm/v1/vnf_packages/{pkg_id})',
            flush=True,
        )
        wait(
            'ONBOARDED',
            lambda: (
                self.server.get(f'/vnfpkgm/v1/vnf_packages/{pkg_id}').get(
                    'onboardingState'
                )
                in ('ONBOARDED', 'ERROR')
            ),
        )
        out = self.cli('vnf', 'package', 'show', pkg_id)
        self.expect(out, 'Onboarding State', 'ONBOARDED')
        return pkg_id, table_field(out, 'VNFD ID')

    def create_and_instantiate(
        self, vnfd_id: str, name: str, request: dict, request_file: str
    ) -> str:
        """``vnflcm create`` then ``vnflcm instantiate`` with ``request``
        (written to ``request_file``); the instance id once COMPLETED."""
        out = self.cli('vnflcm', 'create', vnfd_id, '--name', name, *V2)
        inst_id = table_field(out, 'ID')
        body = self.write_json(request_file, request)
        self.run_op(
            inst_id, 'INSTANTIATE', 'vnflcm', 'instantiate', inst_id, body, *V2
        )
        return inst_id

    def run_op(self, inst_id: str, operation: str, *args: str) -> None:
        """Run an LCM command, wait for its op occurrence, show it
        COMPLETED."""
        before = self._op_ids(inst_id)
        self.cli(*args)
        self._completed(inst_id, operation, before)

    def run_http_op(
        self, inst_id: str, operation: str, task: str, body: dict
    ) -> None:
        """POST /vnflcm/v2/vnf_instances/{id}/{task} (no client command
        for it), wait for its op occurrence, show it COMPLETED."""
        before = self._op_ids(inst_id)
        status, _ = self.server.post(
            f'/vnflcm/v2/vnf_instances/{inst_id}/{task}', body
        )
        if status != 202:
            raise StepFailed(f'POST {task} answered {status}, expected 202')
        self._completed(inst_id, operation, before)

    def _op_ids(self, inst_id: str) -> set[str]:
        return {op['id'] for op in self.server.get(_ops_of(inst_id))}

    def _completed(
        self, inst_id: str, operation: str, before: set[str]
    ) -> None:
        print(
            f'... waiting for the {operation} operation (polling GET '
            '/vnflcm/v2/vnf_lcm_op_occs)',
            flush=True,
        )

        def finished() -> str | None:
            for op in self.server.get(_ops_of(inst_id)):
                if (
                    op['id'] not in before
                    and op['operation'] == operation
                    and op['operationState'] in _FINAL_OP_STATES
                ):
                    return op['id']
            return None

        op_id = wait(f'the {operation} op occurrence', finished, 90)
        out = self.cli('vnflcm', 'op', 'show', op_id, *V2)
        self.expect(out, 'Operation State', 'COMPLETED')


def _ops_of(inst_id: str) -> str:
    return f'/vnflcm/v2/vnf_lcm_op_occs?filter=(eq,vnfInstanceId,{inst_id})'
