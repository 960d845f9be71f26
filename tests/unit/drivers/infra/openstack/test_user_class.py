"""A package's own user-data class, run in the hook sandbox, merged with
vnfm's built-in Heat input."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import py_compile
import threading
import time

import pytest
import yaml

from vnfm.common import exceptions
from vnfm.drivers import processes
from vnfm.drivers.infra.openstack import userdata
from vnfm.drivers.package_files import PackageFiles

from .utils import EXT_NET
from .utils import context
from .utils import instantiate_request

PATH = 'UserData/my_userdata.py'

TWEAK = b"""
import vnfm_userdata

class MyUserData:
    @staticmethod
    def instantiate(req, inst, grant_req, grant, csar_dir):
        nfv = vnfm_userdata.builtin()['parameters']['nfv']
        flavour = vnfm_userdata.flavour()
        nfv['VDU']['VDU2']['locationConstraints'] = 'az-' + req['flavourId']
        nfv['VDU']['VDU1']['computeFlavourId'] = (
            flavour['vdus']['VDU2']['compute_flavour'])
        skeleton = vnfm_userdata.init_nfv_dict(
            vnfm_userdata.base_hot()['template'])
        nfv['seen'] = sorted(skeleton['CP'])
        nfv['csar_dir_has_hot'] = __import__('os').path.exists(
            csar_dir + '/BaseHOT/simple/vm_simple_hot.yaml')
        return {'parameters': {'nfv': nfv}}

    @staticmethod
    def scale(req, inst, grant_req, grant, csar_dir):
        return {'parameters': {'extra': grant_req['operation']}}

    @staticmethod
    def heal(req, inst, grant_req, grant, csar_dir):
        from helper_module import TEMPLATE
        return {'template': TEMPLATE, 'nested_templates': {'x.yaml': 'a: 1'}}
"""
HELPER = b"""
TEMPLATE = {'heat_template_version': '2021-04-16', 'resources': {}}
"""
TACKER = b"""
from tacker.sol_refactored.infra_drivers.openstack import userdata_utils

class MyUserData:
    pass
"""


def _ctx(script: bytes, operation='INSTANTIATE', **kwargs):
    req = kwargs.pop('request', None) or instantiate_request()
    req.setdefault('additionalParams', {}).update(
        {
            'lcm-operation-user-data': './' + PATH,
            'lcm-operation-user-data-class': 'MyUserData',
        }
    )
    return context(
        operation,
        req,
        **{PATH: script, 'UserData/helper_module.py': HELPER},
        **kwargs,
    )


@pytest.fixture
def allowed(conf):
    conf('allow_any_script', True, 'mgmt_driver')


def test_class_tweaks_the_builtin_parameters(allowed):
    got = userdata.stack_input(_ctx(TWEAK), 'instantiate')
    nfv = got.parameters['nfv']
    assert nfv['VDU']['VDU2']['locationConstraints'] == 'az-simple'
    assert nfv['VDU']['VDU1']['computeFlavourId'] == 'm1.tiny'
    assert nfv['CP']['VDU1_CP1'] == {'network': EXT_NET}
    assert nfv['seen'] == ['VDU1_CP1', 'VDU2_CP1', 'VDU2_CP2']
    assert nfv['csar_dir_has_hot'] is True
    # It returned no template: the base HOT and its nested ones.
    assert 'AutoScalingGroup' in got.template
    assert list(got.files) == ['VDU1.yaml']


def test_parameters_it_returns_replace_those_of_the_running_stack(allowed):
    ctx = _ctx(TWEAK, 'SCALE')
    ctx.request.update(type='SCALE_OUT', aspectId='VDU1_scale')
    current = {'nfv': {'VDU': {}}, 'other': 'kept'}
    got = userdata.stack_input(ctx, 'scale', current)
    assert got.parameters == {
        'nfv': {'VDU': {}},
        'other': 'kept',
        'extra': 'SCALE',
    }


def test_template_and_nested_templates_it_returns(allowed):
    ctx = _ctx(TWEAK, 'HEAL', request={'vnfcInstanceId': []})
    current = {'nfv': {'VDU': {'VDU1': {'desired_capacity': 2}}}}
    got = userdata.stack_input(ctx, 'heal', current)
    assert yaml.safe_load(got.template) == {
        'heat_template_version': '2021-04-16',
        'resources': {},
    }
    assert got.files == {'VDU1.yaml': got.files['VDU1.yaml'], 'x.yaml': 'a: 1'}
    # No parameters returned: vnfm's (heal keeps the stack's).
    assert got.parameters == current


def test_missing_method(allowed):
    ctx = _ctx(TWEAK, 'CHANGE_VNFPKG', target='vm_simple_v2')
    with pytest.raises(exceptions.OperationFailed) as e:
        userdata.stack_input(ctx, 'change_vnfpkg', {})
    # change_vnfpkg runs the target package's class: it has none there.
    assert 'is not in package vm_simple_v2' in e.value.detail


def test_no_method_for_the_operation(allowed):
    ctx = _ctx(TWEAK, 'SCALE')
    ctx.request.update(type='SCALE_OUT', aspectId='VDU1_scale')
    with pytest.raises(exceptions.OperationFailed) as e:
        userdata.stack_input(ctx, 'scale_rollback', {})
    assert 'has no method scale_rollback' in e.value.detail


def test_tacker_imports_fail_saying_what_to_use(allowed):
    with pytest.raises(exceptions.OperationFailed) as e:
        userdata.stack_input(_ctx(TACKER), 'instantiate')
    detail = e.value.detail
    assert 'exited with 3' in detail
    assert "Tacker's modules are not available in vnfm" in detail
    assert 'StandardUserData' in detail
    assert 'vnfm_userdata' in detail


def test_only_allowed_classes_run(conf):
    digest = hashlib.sha256(TWEAK).hexdigest()
    with pytest.raises(exceptions.OperationFailed) as e:
        userdata.stack_input(_ctx(TWEAK), 'instantiate')
    assert f'its SHA-256 {digest} is not in' in e.value.detail
    conf('allowed_script_sha256', [digest], 'mgmt_driver')
    assert userdata.stack_input(_ctx(TWEAK), 'instantiate').parameters


def test_a_neighbour_the_class_imports_must_be_allowed_too(conf):
    # Defect: the class's directory was on sys.path and only the class's
    # file was checked: any helper module of the package ran unchecked.
    conf('allowed_script_sha256', [_sha(TWEAK)], 'mgmt_driver')
    ctx = _ctx(TWEAK, 'HEAL', request={'vnfcInstanceId': []})

    with pytest.raises(exceptions.OperationFailed) as e:
        userdata.stack_input(ctx, 'heal', {})

    assert (
        'UserData/helper_module.py (module helper_module) is not allowed to '
        f'run: its SHA-256 {_sha(HELPER)} is not in [mgmt_driver] '
        'allowed_script_sha256'
    ) in e.value.detail
    conf('allowed_script_sha256', [_sha(TWEAK), _sha(HELPER)], 'mgmt_driver')
    assert userdata.stack_input(ctx, 'heal', {}).files['x.yaml'] == 'a: 1'


def test_bytecode_cached_for_the_class_never_runs(conf, tmp_path):
    source = tmp_path / 'evil.py'
    source.write_text(
        'class MyUserData:\n'
        '    @staticmethod\n'
        '    def scale(*args):\n'
        "        return {'parameters': {'extra': 'bytecode'}}\n"
    )
    pyc = tmp_path / 'evil.pyc'
    py_compile.compile(
        str(source),
        str(pyc),
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    conf('allowed_script_sha256', [_sha(TWEAK)], 'mgmt_driver')
    ctx = _ctx(TWEAK, 'SCALE')
    ctx.package = PackageFiles(
        ctx.package.package_id,
        {
            **{n: ctx.package.read(n) for n in ctx.package.names()},
            importlib.util.cache_from_source(PATH): pyc.read_bytes(),
        },
    )
    ctx.request.update(type='SCALE_OUT', aspectId='VDU1_scale')

    got = userdata.stack_input(ctx, 'scale', {})

    assert got.parameters['extra'] == 'SCALE'


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(
    'body,match',
    [
        ("return {'files': {}}", 'returned files: only template'),
        ("return {'parameters': [1]}", 'parameters that are not a mapping'),
        ("return {'template': 3}", 'neither a mapping nor YAML text'),
        ('raise RuntimeError("no zones")', 'RuntimeError: no zones'),
    ],
)
def test_bad_results(allowed, body, match):
    script = (
        'class MyUserData:\n    @staticmethod\n'
        '    def instantiate(req, inst, grant_req, grant, csar_dir):\n'
        f'        {body}\n'
    ).encode()
    with pytest.raises(exceptions.OperationFailed, match=match):
        userdata.stack_input(_ctx(script), 'instantiate')


def test_builtin_failure_reaches_the_class_and_matters_only_if_needed(
    allowed,
):
    # No network for the CPs: vnfm cannot compute nfv.
    script = b"""
import json, vnfm_userdata
class MyUserData:
    @staticmethod
    def instantiate(req, inst, grant_req, grant, csar_dir):
        try:
            vnfm_userdata.builtin()
        except vnfm_userdata.UserDataError as e:
            return {'parameters': {'nfv': {'why': str(e)}}}
"""
    ctx = _ctx(script, request={'flavourId': 'simple'})
    got = userdata.stack_input(ctx, 'instantiate')
    assert 'connects CP' in got.parameters['nfv']['why']
    lazy = script.replace(b"return {'parameters'", b"return {'template'")
    with pytest.raises(exceptions.OperationFailed) as e:
        userdata.stack_input(
            _ctx(lazy, request={'flavourId': 'simple'}), 'instantiate'
        )
    assert 'returned no parameters, and vnfm cannot compute it' in (
        e.value.detail
    )


def test_user_data_named_by_the_instance_after_instantiate(allowed):
    ctx = _ctx(TWEAK, 'SCALE', request={'flavourId': 'simple'})
    names = ctx.request.pop('additionalParams')
    ctx.request = {'type': 'SCALE_OUT', 'aspectId': 'VDU1_scale'}
    ctx.vnf_instance = {'id': 'i', 'instantiatedVnfInfo': {'metadata': names}}
    got = userdata.stack_input(ctx, 'scale', {})
    assert got.parameters == {'extra': 'SCALE'}


def test_both_names_are_needed():
    ctx = context(
        request=instantiate_request(
            additionalParams={'lcm-operation-user-data': 'x.py'}
        )
    )
    with pytest.raises(exceptions.OperationFailed, match='must both'):
        userdata.stack_input(ctx, 'instantiate')


def test_path_outside_the_package():
    req = instantiate_request(
        additionalParams={
            'lcm-operation-user-data': '../../etc/passwd',
            'lcm-operation-user-data-class': 'X',
        }
    )
    with pytest.raises(exceptions.OperationFailed, match='outside'):
        userdata.stack_input(context(request=req), 'instantiate')


def test_document_is_json(allowed):
    script = b"""
import json, sys, vnfm_userdata
class MyUserData:
    @staticmethod
    def instantiate(req, inst, grant_req, grant, csar_dir):
        return {'parameters': {'v': vnfm_userdata.vnfd()['vnfd_id'],
                               'op': vnfm_userdata.operation(),
                               'path': sys.path[-1].endswith('UserData')}}
"""
    got = userdata.stack_input(_ctx(script), 'instantiate')
    assert json.loads(json.dumps(got.parameters)) == {
        'v': '6b0b1f3e-2c9d-4f7a-8e51-3a7c9d2e4f10',
        'op': 'instantiate',
        'path': True,
    }


def test_a_forceful_cancel_kills_the_class(allowed):
    script = b"""
import time
class MyUserData:
    @staticmethod
    def instantiate(req, inst, grant_req, grant, csar_dir):
        time.sleep(60)
"""
    ctx = _ctx(script)
    ctx.op_id = 'op-1'
    killed: list[int] = []
    done = threading.Event()

    def cancel() -> None:
        # Until the class runs, there is nothing to kill.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not done.wait(0.05):
            killed.append(processes.kill('op-1'))
            if killed[-1]:
                return

    thread = threading.Thread(target=cancel, daemon=True)
    thread.start()
    with pytest.raises(exceptions.OperationFailed, match='exited with -9'):
        userdata.stack_input(ctx, 'instantiate')
    done.set()
    thread.join(5)
    assert killed[-1] == 1
