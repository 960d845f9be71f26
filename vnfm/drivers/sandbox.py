"""Python code from a package, run in a subprocess: the one sandbox for
MgmtDriver hook scripts and Heat user-data classes.

The code runs as ``python -I -- <absolute path>`` (isolated mode: no
environment, no user site, not the script's directory on sys.path, so files
of the package cannot shadow what it imports, and a file name is never read
as an option), in a private temporary directory holding the extracted
package (its working directory) and a HOME. It reads one JSON document on
stdin and writes one JSON object to stdout; stderr is its log. A non-zero
exit, a timeout or output that is not a JSON object fails the operation
with the tail of stderr (at most DETAIL_STDERR characters), from which the
given secret values are removed, as they are from the log. stdout and
stderr are capped at ``[mgmt_driver] max_output_bytes``.

Only code whose SHA-256 is in ``[mgmt_driver] allowed_script_sha256`` runs
(unless ``allow_any_script``): the program starts under
``sandboxlib/vnfm_sandbox.py``, which holds every module the code imports
from its package to the same allow-list (Python source only, checked by
digest; the package's bytecode never runs). When vnfm runs as root, the
code runs as ``[mgmt_driver] sandbox_user`` (its private directory handed
to that user), without root's privileges. The environment holds PATH,
HOME, LANG and, when the conductor has it, VNFM_HOOK_RECORD. While the
code runs, a FORCEFUL cancel of its op occurrence kills it
(``processes``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import logging
import os
import pwd
import signal
import subprocess  # nosec B404 - fixed argv, no shell
import sys
import tempfile
import threading
from collections.abc import Callable
from typing import IO, Any

from vnfm.common import exceptions
from vnfm.common import scrub
from vnfm.conf import CONF
from vnfm.csar import bounded
from vnfm.drivers import processes
from vnfm.drivers import sandboxlib
from vnfm.drivers.package_files import PackageFiles

LOG = logging.getLogger(__name__)
PASSED_ENV = ('VNFM_HOOK_RECORD',)
GUARD = os.path.join(os.path.dirname(sandboxlib.__file__), 'vnfm_sandbox.py')
# Characters of a script's stderr kept in an error detail (the tail: the
# last lines say why it failed); the log keeps up to max_output_bytes.
DETAIL_STDERR = 4096


def run(
    where: str,
    package: PackageFiles,
    path: str,
    document: Callable[[str], dict[str, Any]],
    timeout: float,
    secrets: set[str],
    op_id: str | None = None,
    program: str | None = None,
    instance_id: str | None = None,
) -> dict[str, Any]:
    """Run the package's file ``path`` (or ``program``, vnfm's own runner
    of that file) on ``document(package_dir)``; its JSON object output.

    The allow-list is checked on ``path`` either way.
    """
    if path not in package:
        raise exceptions.OperationFailed(
            f'{where}: the script is not in package {package.package_id}.'
        )
    check_allowed(where, package.read(path))
    user = _sandbox_user(where)
    with tempfile.TemporaryDirectory(prefix='vnfm-script-') as tmp:
        package_dir = os.path.join(tmp, 'package')
        os.mkdir(package_dir)
        os.mkdir(os.path.join(tmp, 'home'))
        package.extract_to(package_dir)
        doc = json.dumps(document(package_dir)).encode('utf-8')
        command = _command(
            _manifest(tmp, package_dir),
            program or os.path.join(package_dir, path),
        )
        if user is not None:
            _hand_over(tmp, user)
        rc, out, err = _run(
            where,
            command,
            doc,
            package_dir,
            _environment(tmp),
            timeout,
            secrets,
            op_id=op_id,
            user=user,
        )
    if err.text:
        LOG.info(
            '%s (vnf instance %s) stderr:\n%s', where, instance_id, err.text
        )
    if rc != 0:
        raise exceptions.OperationFailed(
            f'{where} exited with {rc}: {err.tail()}'
        )
    return json_object(where, out, secrets)


def json_object(where: str, out: bytes, secrets: set[str]) -> dict[str, Any]:
    """The JSON object a script wrote ({} for no output)."""
    if not out.strip():
        return {}
    try:
        doc = bounded.load_json('output', out)
    except bounded.BadDocument as e:
        raise exceptions.OperationFailed(
            f'{where} wrote {e.detail}: '
            f'{scrub.scrub(_text(out), secrets)[:200]}'
        ) from None
    if not isinstance(doc, dict):
        raise exceptions.OperationFailed(
            f'{where} wrote JSON that is not an object.'
        )
    return doc


def _allowed() -> set[str]:
    return {d.strip().lower() for d in CONF.mgmt_driver.allowed_script_sha256}


def check_allowed(where: str, script: bytes) -> None:
    """OperationFailed unless ``script`` may run by the allow-list."""
    digest = hashlib.sha256(script).hexdigest()
    if CONF.mgmt_driver.allow_any_script or digest in _allowed():
        return
    raise exceptions.OperationFailed(
        f'{where} is not allowed to run: its SHA-256 {digest} is not in '
        '[mgmt_driver] allowed_script_sha256.'
    )


def _python() -> str:
    return CONF.mgmt_driver.python_executable or sys.executable


def _manifest(tmp: str, package_dir: str) -> str:
    """Write what the guard holds the package's imports to; its path."""
    path = os.path.join(tmp, 'manifest.json')
    with open(path, 'w', encoding='utf-8') as f:
        json.dump(
            {
                'package_dir': package_dir,
                'allowed': sorted(_allowed()),
                'any': CONF.mgmt_driver.allow_any_script,
            },
            f,
        )
    return path


def _command(manifest: str, program: str) -> list[str]:
    """The interpreter's argv: isolated mode, the guard by absolute path
    after ``--`` (so no file name is ever read as an option), then its
    manifest and the program."""
    return [_python(), '-I', '--', GUARD, manifest, program]


def _environment(tmp: str) -> dict[str, str]:
    env = {
        'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
        'HOME': os.path.join(tmp, 'home'),
        'LANG': os.environ.get('LANG', 'C.UTF-8'),
    }
    env.update({k: os.environ[k] for k in PASSED_ENV if k in os.environ})
    return env


def _text(data: bytes) -> str:
    return data.decode('utf-8', 'replace').strip()


class _Capture(threading.Thread):
    """Reads a pipe to its end keeping at most ``limit`` bytes: the head
    (stdout: more is an error) or the tail (stderr: the latest lines)."""

    def __init__(
        self, pipe: io.BufferedReader, limit: int, keep_tail: bool
    ) -> None:
        super().__init__(daemon=True)
        self.pipe, self.limit, self.keep_tail = pipe, limit, keep_tail
        self.data = bytearray()
        self.overflow = False

    def run(self) -> None:
        while chunk := self.pipe.read1(65536):
            self.data += chunk
            if len(self.data) > self.limit:
                self.overflow = True
                if self.keep_tail:
                    del self.data[: len(self.data) - self.limit]
                else:
                    del self.data[self.limit :]


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except BrokenPipeError:
        pass  # the script exits without reading stdin: allowed


class Stderr:
    """A script's stderr as it may be logged and stored: scrubbed of the
    secrets the script was given, and cut to its tail for error details."""

    def __init__(self, data: bytes, cut: bool, secrets: set[str]) -> None:
        text = _text(data)
        self.text = (
            scrub.scrub_cut(text, secrets)
            if cut
            else scrub.scrub(text, secrets)
        )
        self.cut = cut

    def tail(self) -> str:
        """At most DETAIL_STDERR characters, saying so when cut."""
        if not self.cut and len(self.text) <= DETAIL_STDERR:
            return self.text
        tail = self.text[-DETAIL_STDERR:]
        return f'[stderr cut, its last {len(tail)} characters follow] {tail}'


def _run(
    where: str,
    cmd: list[str],
    doc: bytes,
    cwd: str,
    env: dict[str, str],
    timeout: float,
    secrets: set[str],
    op_id: str | None = None,
    user: pwd.struct_passwd | None = None,
) -> tuple[int, bytes, Stderr]:
    """Run ``cmd`` (as ``user``, if given) in its own process group; kill
    the group on timeout. While it runs, a FORCEFUL cancel of ``op_id`` can
    kill it (``processes``)."""
    try:
        proc = subprocess.Popen(  # nosec B603: fixed argv, no shell
            cmd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
            **_identity(user),
        )
    except OSError as e:
        raise exceptions.OperationFailed(
            f'{where} could not start {cmd[0]}'
            + (f' as user {user.pw_name}' if user else '')
            + f': {e.strerror}.'
        ) from None
    processes.started(op_id, proc)
    try:
        return _wait(where, proc, doc, timeout, secrets)
    finally:
        processes.finished(op_id, proc)


def _wait(
    where: str,
    proc: subprocess.Popen,
    doc: bytes,
    timeout: float,
    secrets: set[str],
) -> tuple[int, bytes, Stderr]:
    limit = CONF.mgmt_driver.max_output_bytes
    # PIPE with the default buffering: buffered binary readers.
    assert isinstance(proc.stdout, io.BufferedReader)
    assert isinstance(proc.stderr, io.BufferedReader)
    out = _Capture(proc.stdout, limit, keep_tail=False)
    err = _Capture(proc.stderr, limit, keep_tail=True)
    feeder = threading.Thread(
        target=_feed, args=(proc.stdin, doc), daemon=True
    )
    for thread in (out, err, feeder):
        thread.start()
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        err.join(5)
        stderr = Stderr(bytes(err.data), err.overflow, secrets)
        raise exceptions.DeadlineExceeded(
            f'{where} did not finish within {timeout:.0f}s and was killed: '
            f'{stderr.tail()}'
        ) from None
    # Children the script left behind may hold the pipes open.
    out.join(5)
    err.join(5)
    if out.is_alive() or err.is_alive():
        _kill_group(proc)
    if out.overflow:
        raise exceptions.OperationFailed(
            f'{where} wrote more than {limit} bytes to stdout.'
        )
    return rc, bytes(out.data), Stderr(bytes(err.data), err.overflow, secrets)


def _sandbox_user(where: str) -> pwd.struct_passwd | None:
    """The user ``[mgmt_driver] sandbox_user`` names (None: vnfm's own)."""
    name = CONF.mgmt_driver.sandbox_user
    if not name:
        if os.geteuid() == 0:
            LOG.warning(
                '%s runs as root: set [mgmt_driver] sandbox_user', where
            )
        return None
    try:
        user = pwd.getpwnam(name)
    except KeyError:
        raise exceptions.OperationFailed(
            f'{where} cannot run as user {name} ([mgmt_driver] '
            'sandbox_user): there is no such user on this host.'
        ) from None
    return None if user.pw_uid == os.geteuid() else user


def _hand_over(tmp: str, user: pwd.struct_passwd) -> None:
    """Give the run's private directory to ``user``."""
    for parent, dirs, files in os.walk(tmp):
        for name in (parent, *(os.path.join(parent, n) for n in dirs + files)):
            os.chown(name, user.pw_uid, user.pw_gid)


def _identity(user: pwd.struct_passwd | None) -> dict[str, Any]:
    """Popen's arguments that run the child as ``user``, in its primary
    group only."""
    if user is None:
        return {}
    return {'user': user.pw_uid, 'group': user.pw_gid, 'extra_groups': []}


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
