"""Hook scripts in a subprocess: allow-list, protocol, failures, timeout."""

import hashlib
import importlib.util
import json
import logging
import pwd
import py_compile
import time

import pytest

from vnfm.common import exceptions
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver
from vnfm.drivers.package_files import PackageFiles

RECORDER = b"""
import json, os, sys
doc = json.load(sys.stdin)
print("log line", file=sys.stderr)
json.dump({"changes": {"metadata": {"hook": doc["hook"],
                                    "cwd_has_script": os.path.exists(
                                        "Scripts/hook.py"),
                                    "env": sorted(os.environ)}}},
          sys.stdout)
"""


def ctx(script: bytes, timeout: float = 10, **kwargs) -> base.HookContext:
    files = PackageFiles(
        'pkg1', {'Scripts/hook.py': script, 'Definitions/x.yaml': b'a: 1'}
    )
    values = dict(
        hook='instantiate_end',
        operation='INSTANTIATE',
        vnf_instance={'id': 'i1'},
        vnf_lcm_op_occ={'id': 'o1'},
        request={'flavourId': 'simple'},
        vim_connection_info={'v': {'accessInfo': {'password': 'pw'}}},
        vnfd={},
        package=files,
        definition={
            'name': 'instantiate_end',
            'file': 'Scripts/hook.py',
            'builtin': None,
        },
        deadline=time.monotonic() + timeout,
    )
    values.update(kwargs)
    return base.HookContext(**values)


@pytest.fixture
def allowed(conf):
    conf('allow_any_script', True, 'mgmt_driver')


def test_script_gets_document_and_returns_changes(allowed, monkeypatch):
    monkeypatch.setenv('VNFM_HOOK_RECORD', '/dev/null')
    monkeypatch.setenv('SECRET_TOKEN', 'x')

    result = ScriptMgmtDriver().run_hook(ctx(RECORDER))

    meta = result.changes['metadata']
    assert meta['hook'] == 'instantiate_end'
    assert meta['cwd_has_script'] is True
    # A minimal environment: the conductor's secrets stay out.
    assert set(meta['env']) - {'LC_CTYPE'} == {
        'HOME',
        'LANG',
        'PATH',
        'VNFM_HOOK_RECORD',
    }


def test_script_receives_secrets_separately():
    script = (
        b'import json, sys\n'
        b'doc = json.load(sys.stdin)\n'
        b'print(json.dumps({"changes": {"extensions": {'
        b'"pw": doc["vim_connection_info"]["v"]["accessInfo"]'
        b'["password"], "keys": sorted(doc)}}}))\n'
    )
    digest = hashlib.sha256(script).hexdigest()
    from vnfm.conf import CONF

    CONF.set_override('allowed_script_sha256', [digest], 'mgmt_driver')
    try:
        result = ScriptMgmtDriver().run_hook(ctx(script))
    finally:
        CONF.clear_override('allowed_script_sha256', 'mgmt_driver')
    assert result.changes['extensions'] == {
        'pw': 'pw',
        'keys': [
            'hook',
            'operation',
            'package_dir',
            'request',
            'vim_connection_info',
            'vnf_instance',
            'vnf_lcm_op_occ',
        ],
    }


def test_script_not_allowed_fails_without_running(conf, tmp_path):
    marker = tmp_path / 'ran'
    script = f'open({str(marker)!r}, "w")\n'.encode()

    with pytest.raises(exceptions.OperationFailed) as e:
        ScriptMgmtDriver().run_hook(ctx(script))

    digest = hashlib.sha256(script).hexdigest()
    assert e.value.detail == (
        f'instantiate_end hook Scripts/hook.py is not allowed to run: its '
        f'SHA-256 {digest} is not in [mgmt_driver] allowed_script_sha256.'
    )
    assert not marker.exists()


def test_non_zero_exit_fails_with_stderr_tail(allowed):
    script = (
        b'import sys\nprint("boom: disk full", file=sys.stderr)\nsys.exit(3)\n'
    )

    with pytest.raises(exceptions.OperationFailed) as e:
        ScriptMgmtDriver().run_hook(ctx(script))

    assert e.value.detail == (
        'instantiate_end hook Scripts/hook.py exited with 3: boom: disk full'
    )


def test_stderr_is_cut_to_max_output_bytes(allowed, conf):
    conf('max_output_bytes', 1024, 'mgmt_driver')
    script = (
        b'import sys\nsys.stderr.write("a" * 100000 + "END")\nsys.exit(1)\n'
    )

    with pytest.raises(exceptions.OperationFailed) as e:
        ScriptMgmtDriver().run_hook(ctx(script))

    assert e.value.detail == (
        'instantiate_end hook Scripts/hook.py exited with 1: [stderr cut, '
        'its last 1024 characters follow] ' + 'a' * 1021 + 'END'
    )


# A hook that prints the credentials it was given, then ~1 MiB of noise,
# then the credentials again.
LEAKER = b"""
import json, sys
doc = json.load(sys.stdin)
secrets = [doc["vim_connection_info"]["v"]["accessInfo"]["password"],
           doc["request"]["additionalParams"]["db"]["password"]]
print("start", *secrets, json.dumps(doc), file=sys.stderr)
sys.stderr.write("x" * (1000 * 1024) + "\\n")
print("failed with", *secrets, file=sys.stderr)
print("LAST LINE", file=sys.stderr)
sys.exit(2)
"""
VIM_PASSWORD = 'vim-pass-4242'
DB_PASSWORD = 'db-pass-1717'


def test_stderr_in_the_detail_is_a_scrubbed_bounded_tail(allowed, caplog):
    caplog.set_level(logging.INFO)
    vim = {'v': {'accessInfo': {'username': 'u', 'password': VIM_PASSWORD}}}
    request = {
        'flavourId': 'simple',
        'additionalParams': {'db': {'password': DB_PASSWORD}},
    }

    with pytest.raises(exceptions.OperationFailed) as e:
        ScriptMgmtDriver().run_hook(
            ctx(LEAKER, vim_connection_info=vim, request=request)
        )

    detail = e.value.detail
    assert detail.startswith(
        'instantiate_end hook Scripts/hook.py exited '
        'with 2: [stderr cut, its last 4096 characters '
        'follow] '
    )
    assert len(detail) < 4096 + 200
    assert detail.endswith('failed with ******** ********\nLAST LINE')
    for secret in (VIM_PASSWORD, DB_PASSWORD):
        assert secret not in detail
        assert secret not in caplog.text
    # The log keeps the whole captured stderr, scrubbed.
    assert 'start ******** ********' in caplog.text


def test_stderr_of_a_killed_script_is_scrubbed_and_bounded(allowed, conf):
    conf('script_timeout', 1, 'mgmt_driver')
    script = (
        b'import sys, time\n'
        + f'print("{VIM_PASSWORD}", "y" * 100000, '.encode()
        + b'file=sys.stderr, flush=True)\ntime.sleep(60)\n'
    )
    vim = {'v': {'accessInfo': {'password': VIM_PASSWORD}}}

    with pytest.raises(exceptions.DeadlineExceeded) as e:
        ScriptMgmtDriver().run_hook(ctx(script, vim_connection_info=vim))

    assert VIM_PASSWORD not in e.value.detail
    assert len(e.value.detail) < 4096 + 200


def _package_ctx(files: dict[str, bytes], hook_file: str) -> base.HookContext:
    return ctx(
        b'',
        package=PackageFiles('pkg1', files),
        definition={
            'name': 'instantiate_end',
            'file': hook_file,
            'builtin': None,
        },
    )


def test_option_like_file_name_runs_the_file_not_its_name(conf, tmp_path):
    # Defect: the relative path was given to Python as an argument, so a
    # name starting with "-c" ran the code in the name, whatever the file.
    marker = tmp_path / 'ran'
    name = f'-cimport os;open({str(marker)!r},"w")'
    script = b'print("{}")\n'
    conf(
        'allowed_script_sha256',
        [hashlib.sha256(script).hexdigest()],
        'mgmt_driver',
    )

    result = ScriptMgmtDriver().run_hook(_package_ctx({name: script}, name))

    assert result.changes == {}
    assert not marker.exists()


def test_package_modules_cannot_shadow_what_the_script_imports(conf, tmp_path):
    marker = tmp_path / 'ran'
    script = b'import json\nprint(json.dumps({}))\n'
    evil = f'open({str(marker)!r}, "w")\n'.encode()
    conf(
        'allowed_script_sha256',
        [hashlib.sha256(script).hexdigest()],
        'mgmt_driver',
    )

    ScriptMgmtDriver().run_hook(
        _package_ctx(
            {
                'Scripts/hook.py': script,
                'Scripts/json.py': evil,
                'json.py': evil,
            },
            'Scripts/hook.py',
        )
    )

    assert not marker.exists()


def _allow(conf, *contents: bytes) -> None:
    conf(
        'allowed_script_sha256',
        [hashlib.sha256(c).hexdigest() for c in contents],
        'mgmt_driver',
    )


IMPORTS_HELPER = (
    b'import os, sys\n'
    b'sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n'
    b'import helper\n'
    b'print(helper.OUT)\n'
)


def test_a_module_the_script_imports_from_its_package_must_be_allowed(
    conf, tmp_path
):
    # Defect: only the hook file was checked; whatever it imported from
    # its package ran unchecked.
    marker = tmp_path / 'ran'
    helper = f'open({str(marker)!r}, "w")\nOUT = "{{}}"\n'.encode()
    _allow(conf, IMPORTS_HELPER)
    files = {'Scripts/hook.py': IMPORTS_HELPER, 'Scripts/helper.py': helper}

    with pytest.raises(exceptions.OperationFailed) as e:
        ScriptMgmtDriver().run_hook(_package_ctx(files, 'Scripts/hook.py'))

    assert not marker.exists()
    digest = hashlib.sha256(helper).hexdigest()
    assert (
        f'Scripts/helper.py (module helper) is not allowed to run: its '
        f'SHA-256 {digest} is not in [mgmt_driver] allowed_script_sha256'
    ) in e.value.detail
    _allow(conf, IMPORTS_HELPER, helper)
    assert ScriptMgmtDriver().run_hook(
        _package_ctx(files, 'Scripts/hook.py')
    ) == base.HookResult(changes={})
    assert marker.exists()


def test_bytecode_in_the_package_never_runs(conf, tmp_path):
    # An unchecked-hash .pyc beside an allowed module is what Python's
    # own loader would run instead of the module's source.
    helper = b'OUT = "{}"\n'
    evil = tmp_path / 'evil.py'
    evil.write_text('OUT = "{\\"changes\\": {\\"metadata\\": 1}}"\n')
    cached = tmp_path / 'evil.pyc'
    py_compile.compile(
        str(evil),
        str(cached),
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    pyc = importlib.util.cache_from_source('Scripts/helper.py')
    pyc_data = cached.read_bytes()
    _allow(conf, IMPORTS_HELPER, helper)
    files = {
        'Scripts/hook.py': IMPORTS_HELPER,
        'Scripts/helper.py': helper,
        pyc: pyc_data,
    }

    result = ScriptMgmtDriver().run_hook(
        _package_ctx(files, 'Scripts/hook.py')
    )

    assert result == base.HookResult(changes={})
    # Bytecode with no source beside it: Python would run it as is.
    files = {'Scripts/hook.py': IMPORTS_HELPER, 'Scripts/helper.pyc': pyc_data}
    with pytest.raises(exceptions.OperationFailed) as e:
        ScriptMgmtDriver().run_hook(_package_ctx(files, 'Scripts/hook.py'))
    assert (
        'Scripts/helper.pyc (module helper) is not allowed to run: only '
        'Python source files of a package are imported'
    ) in e.value.detail


WHO = b"""
import json, os
try:
    open('/etc/shadow', 'rb').close()
    shadow = 'read'
except OSError as e:
    shadow = type(e).__name__
print(json.dumps({'changes': {'metadata': {
    'uid': os.getuid(), 'gid': os.getgid(), 'groups': os.getgroups(),
    'shadow': shadow,
    'home_writable': os.access(os.environ['HOME'], os.W_OK),
}}}))
"""


def test_a_root_vnfm_runs_scripts_as_the_sandbox_user(allowed, conf):
    # Defect: scripts ran with the conductor's privileges, root included.
    # (Tests run as root, as the local cloud needs; Debian's interpreter is
    # one that nobody can run, unlike a virtualenv's under /root.)
    conf('sandbox_user', 'nobody', 'mgmt_driver')
    conf('python_executable', '/usr/bin/python3', 'mgmt_driver')
    nobody = pwd.getpwnam('nobody')

    changes = ScriptMgmtDriver().run_hook(ctx(WHO)).changes

    assert changes['metadata'] == {
        'uid': nobody.pw_uid,
        'gid': nobody.pw_gid,
        'groups': [],
        'shadow': 'PermissionError',
        'home_writable': True,
    }


def test_an_unknown_sandbox_user_fails_saying_so(allowed, conf):
    conf('sandbox_user', 'no-such-user-here', 'mgmt_driver')

    with pytest.raises(exceptions.OperationFailed) as e:
        ScriptMgmtDriver().run_hook(ctx(WHO))

    assert e.value.detail == (
        'instantiate_end hook Scripts/hook.py cannot run as user '
        'no-such-user-here ([mgmt_driver] sandbox_user): there is no such '
        'user on this host.'
    )


def test_invalid_json_output_fails(allowed):
    with pytest.raises(exceptions.OperationFailed) as e:
        ScriptMgmtDriver().run_hook(ctx(b'print("hello")\n'))
    assert 'wrote output: not valid JSON' in e.value.detail


def test_invalid_json_output_is_scrubbed(allowed):
    script = (
        b'import json, sys\ndoc = json.load(sys.stdin)\n'
        b'print("oops", doc["vim_connection_info"])\n'
    )
    vim = {'v': {'accessInfo': {'password': VIM_PASSWORD}}}

    with pytest.raises(exceptions.OperationFailed) as e:
        ScriptMgmtDriver().run_hook(ctx(script, vim_connection_info=vim))

    assert "'password': '********'" in e.value.detail
    assert VIM_PASSWORD not in e.value.detail


def test_unknown_change_keys_fail(allowed):
    script = b'import json\nprint(json.dumps({"changes": {"oops": 1}}))\n'
    with pytest.raises(exceptions.OperationFailed) as e:
        ScriptMgmtDriver().run_hook(ctx(script))
    assert 'unknown changes oops' in e.value.detail


def test_timeout_kills_the_process_group(allowed, conf, tmp_path):
    conf('script_timeout', 1, 'mgmt_driver')
    pidfile = tmp_path / 'child.pid'
    script = (
        b'import subprocess, sys, time\n'
        b'child = subprocess.Popen([sys.executable, "-c", '
        b'"import time; time.sleep(60)"])\n'
        + f'open({str(pidfile)!r}, "w").write(str(child.pid))\n'.encode()
        + b'print("started", file=sys.stderr, flush=True)\n'
        b'time.sleep(60)\n'
    )
    started = time.monotonic()

    with pytest.raises(exceptions.DeadlineExceeded) as e:
        ScriptMgmtDriver().run_hook(ctx(script))

    assert time.monotonic() - started < 5
    assert e.value.detail.startswith(
        'instantiate_end hook Scripts/hook.py did not finish within 1s and '
        'was killed: started'
    )
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while _alive(child):
        assert time.monotonic() < deadline, 'child survived the kill'
        time.sleep(0.01)


def _alive(pid: int) -> bool:
    try:
        with open(f'/proc/{pid}/stat') as f:
            return f.read().split()[2] != 'Z'
    except FileNotFoundError:
        return False


def test_op_deadline_bounds_the_script(allowed):
    with pytest.raises(exceptions.DeadlineExceeded):
        ScriptMgmtDriver().run_hook(ctx(b'pass\n', timeout=-1))


class Builtin(base.MgmtDriver):
    name = 'builtin_test'

    def instantiate_end(self, ctx):
        return base.HookResult(changes={'metadata': {'by': self.name}})

    def rollback_instantiate_end(self, ctx):
        return base.HookResult(changes={'metadata': {'undone': True}})


def test_runner_calls_enabled_builtin_driver():
    runner = MgmtRunner({'builtin_test': Builtin()})
    definition = {
        'name': 'instantiate_end',
        'file': None,
        'builtin': 'builtin_test',
    }

    result = runner.run(ctx(b'', definition=definition))
    undone = runner.rollback(ctx(b'', definition=definition))

    assert result.changes == {'metadata': {'by': 'builtin_test'}}
    assert undone.changes == {'metadata': {'undone': True}}


def test_builtin_without_the_hook_fails():
    runner = MgmtRunner({'builtin_test': Builtin()})
    definition = {'file': None, 'builtin': 'builtin_test'}
    with pytest.raises(exceptions.OperationFailed) as e:
        runner.run(ctx(b'', hook='heal_start', definition=definition))
    assert e.value.detail == (
        'heal_start hook: built-in MgmtDriver '
        'builtin_test does not implement heal_start.'
    )


def test_runner_refuses_disabled_drivers():
    runner = MgmtRunner({'script': ScriptMgmtDriver()})
    definition = {'file': None, 'builtin': 'container_update'}
    with pytest.raises(exceptions.OperationFailed) as e:
        runner.run(ctx(b'', definition=definition))
    assert e.value.detail == (
        'instantiate_end hook: the VNFD names built-in MgmtDriver '
        "'container_update', but 'container_update' is not in [mgmt_driver] "
        'enabled_builtin_drivers (enabled: script).'
    )
    with pytest.raises(exceptions.OperationFailed) as e:
        MgmtRunner({}).run(ctx(b''))
    assert "script Scripts/hook.py, but 'script' is not" in e.value.detail


def test_script_entry_point_loads():
    runner = MgmtRunner.load(['script'])
    assert isinstance(runner._drivers['script'], ScriptMgmtDriver)


def test_changes_document_is_json():
    assert json.dumps(base.HookResult(changes={'a': 1}).to_dict())
