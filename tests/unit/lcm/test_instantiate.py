"""Instantiate: hooks, infra driver, one commit; failure, retry, rollback."""

import json
import os
import shutil

from vnfm.common import crypto
from vnfm.csar.build import build_csar
from vnfm.db import api as db
from vnfm.objects import op_occ as op_view

from .fixtures import NOOP_VIM
from .fixtures import SAMPLES
from .fixtures import instantiate_params
from .fixtures import make_flaky_lcm
from .fixtures import make_lcm
from .fixtures import new_instance
from .fixtures import new_op
from .fixtures import onboarded_csar
from .fixtures import onboarded_package
from .fixtures import recorded_hooks
from .fixtures import user_retries
from .fixtures import user_rolls_back


def test_instantiate_completes_with_hooks_and_vnf_info(db_url, hook_record):
    pkg = onboarded_package()
    inst = new_instance(pkg)
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    lcm, noop = make_lcm()

    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'COMPLETED', op['error']
    assert op['owner'] is None and op['active_instance_id'] is None
    assert op['grant_id']
    inst = db.instance_get(inst['id'])
    assert inst['instantiation_state'] == 'INSTANTIATED'
    info = inst['instantiated_vnf_info']
    assert info['flavourId'] == 'simple'
    assert info['vnfState'] == 'STARTED'
    [vnfc] = info['vnfcResourceInfo']
    assert vnfc['computeResource'] == {
        'vimConnectionId': 'vim1',
        'resourceId': 'noop-VDU1-0',
        'vimLevelResourceType': 'noop',
    }
    assert info['scaleStatus'] == [
        {'aspectId': 'vdu1_aspect', 'scaleLevel': 0}
    ]
    # Stored sealed: the password is encrypted, and masked for views.
    stored = inst['vim_connection_info']
    assert stored['vim1']['accessInfo']['password'] == '********'
    assert crypto.unseal_vim_connection_info(stored) == NOOP_VIM
    assert recorded_hooks(hook_record) == [
        'instantiate_start',
        'instantiate_end',
    ]
    assert [c['method'] for c in noop.calls] == ['instantiate']
    assert op['resource_changes']['affectedVnfcs'][0]['changeType'] == 'ADDED'


def test_instantiation_level_sets_vnfc_count(db_url, hook_record):
    pkg = onboarded_package()
    inst = new_instance(pkg)
    op = new_op(
        inst,
        'INSTANTIATE',
        instantiate_params(instantiationLevelId='instantiation_level_2'),
    )
    lcm, _ = make_lcm()

    lcm.start(op['id'])

    info = db.instance_get(inst['id'])['instantiated_vnf_info']
    assert len(info['vnfcResourceInfo']) == 4
    assert info['scaleStatus'][0]['scaleLevel'] == 3


def test_end_hook_failure_is_failed_temp_with_script_stderr(
    db_url, hook_record
):
    pkg = onboarded_package()
    inst = new_instance(pkg)
    op = new_op(
        inst,
        'INSTANTIATE',
        instantiate_params(additionalParams={'fail_hook': 'instantiate_end'}),
    )
    lcm, noop = make_lcm()

    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    assert op['owner'] is None
    assert op['active_instance_id'] == inst['id']
    detail = op['error']['detail']
    assert detail.startswith(
        'instantiate_end hook Scripts/record_hook.py exited with 1: '
    )
    assert 'failed on purpose' in detail
    assert db.instance_get(inst['id'])['instantiation_state'] == (
        'NOT_INSTANTIATED'
    )


def test_retry_after_failed_temp_completes_without_redoing_infra(
    db_url, hook_record
):
    pkg = onboarded_package()
    inst = new_instance(pkg)
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    lcm, noop = make_flaky_lcm('instantiate_end')
    lcm.start(op['id'])
    failed = db.op_get(op['id'])
    assert failed['operation_state'] == 'FAILED_TEMP'
    assert failed['error']['detail'] == 'instantiate_end hook: flaky'

    user_retries(op['id'])
    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'COMPLETED', op['error']
    assert op['error'] is None
    assert db.instance_get(inst['id'])['instantiation_state'] == (
        'INSTANTIATED'
    )
    # The VIM step ran once; the hooks that had finished were not re-run.
    assert [c['method'] for c in noop.calls] == ['instantiate']
    assert recorded_hooks(hook_record) == [
        'instantiate_start',
        'instantiate_end',
    ]


def test_rollback_of_instantiate_removes_resources(db_url, hook_record):
    pkg = onboarded_package()
    inst = new_instance(pkg)
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    lcm, noop = make_flaky_lcm('instantiate_end')
    lcm.start(op['id'])

    user_rolls_back(op['id'])
    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'ROLLED_BACK'
    assert op['active_instance_id'] is None and op['owner'] is None
    inst = db.instance_get(inst['id'])
    assert inst['instantiation_state'] == 'NOT_INSTANTIATED'
    assert inst['instantiated_vnf_info'] is None
    assert [c['method'] for c in noop.calls] == [
        'instantiate',
        'rollback_instantiate',
    ]


def test_rollback_when_infra_never_ran_calls_no_driver(db_url, hook_record):
    pkg = onboarded_package()
    inst = new_instance(pkg)
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    lcm, noop = make_flaky_lcm('instantiate_start')
    lcm.start(op['id'])
    user_rolls_back(op['id'])
    lcm.start(op['id'])

    assert db.op_get(op['id'])['operation_state'] == 'ROLLED_BACK'
    assert noop.calls == []


def test_infra_failure_names_the_step(db_url, hook_record):
    pkg = onboarded_package()
    inst = new_instance(pkg)
    op = new_op(
        inst,
        'INSTANTIATE',
        instantiate_params(additionalParams={'noop_fail': 'instantiate'}),
    )
    lcm, _ = make_lcm()

    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    assert op['error']['detail'].startswith(
        'infra driver instantiate: noop infra driver: instantiate failed'
    )
    # The end hook never ran.
    assert recorded_hooks(hook_record) == ['instantiate_start']


def test_no_matching_vim_aborts_to_rolled_back(db_url, hook_record):
    pkg = onboarded_package()
    inst = new_instance(pkg)
    op = new_op(inst, 'INSTANTIATE', {'flavourId': 'simple'})
    lcm, noop = make_lcm()

    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'ROLLED_BACK'
    assert op['error']['status'] == 400
    assert 'vimConnectionInfo' in op['error']['detail']
    assert 'VNFM.NOOP.V_1' in op['error']['detail']
    assert op['active_instance_id'] is None
    assert noop.calls == [] and recorded_hooks(hook_record) == []


def test_failed_op_is_not_run_again(db_url, hook_record):
    pkg = onboarded_package()
    inst = new_instance(pkg)
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    lcm, noop = make_flaky_lcm('instantiate_start')
    lcm.start(op['id'])
    db.op_update(
        op['id'], {'operation_state': 'FAILED', 'active_instance_id': None}
    )

    lcm.start(op['id'])

    assert db.op_get(op['id'])['operation_state'] == 'FAILED'
    assert noop.calls == []


def test_hooks_and_driver_get_secrets_in_clear_views_stay_masked(db_url):
    from vnfm.drivers.infra.noop.driver import NoopInfraDriver
    from vnfm.drivers.infra.registry import InfraDrivers
    from vnfm.drivers.mgmt import base
    from vnfm.drivers.mgmt.runner import MgmtRunner
    from vnfm.lcm.driver import LcmDriver

    seen = []

    class Capture(base.MgmtDriver):
        def run_hook(self, ctx):
            seen.append(ctx)
            return base.HookResult()

    lcm = LcmDriver(
        'c1',
        InfraDrivers({'noop': NoopInfraDriver()}),
        MgmtRunner({'script': Capture()}),
    )
    inst = new_instance(onboarded_package())
    # As the API stores it: sealed.
    op = new_op(
        inst,
        'INSTANTIATE',
        instantiate_params(
            vimConnectionInfo=crypto.seal_vim_connection_info(NOOP_VIM)
        ),
    )

    lcm.start(op['id'])

    assert db.op_get(op['id'])['operation_state'] == 'COMPLETED'
    ctx = seen[-1]
    assert ctx.vim_connection_info == NOOP_VIM
    assert 'secret-pw' not in str(ctx.vnf_instance)
    assert 'secret-pw' not in str(ctx.vnf_lcm_op_occ)


# The sample's hook, made to print the credentials it was given and ~1 MiB
# of noise before it fails.
_LEAK = (
    '    print("vim:", doc["vim_connection_info"], "request:", request,\n'
    '          file=sys.stderr)\n'
    '    sys.stderr.write("noise " * 170000 + "\\n")\n'
    '    print("giving up, password was",\n'
    '          request["additionalParams"]["db"]["password"],\n'
    '          file=sys.stderr)\n'
    '    return 1\n'
)


def _leaky_package(tmp_path) -> dict:
    src = tmp_path / 'leaky'
    shutil.copytree(os.path.join(SAMPLES, 'noop_vnf'), src)
    script = src / 'Scripts' / 'record_hook.py'
    text = script.read_text()
    anchor = '    request = doc.get("request") or {}\n'
    assert anchor in text, 'record_hook.py changed: update _leaky_package'
    script.write_text(text.replace(anchor, anchor + _LEAK))
    return onboarded_csar(build_csar(str(src)))


def test_hook_stderr_in_the_op_error_is_bounded_and_has_no_secret(
    db_url, hook_record, tmp_path
):
    pkg = _leaky_package(tmp_path)
    inst = new_instance(pkg)
    op = new_op(
        inst,
        'INSTANTIATE',
        instantiate_params(
            additionalParams={'db': {'password': 'db-pass-in-request'}}
        ),
    )
    lcm, _ = make_lcm()

    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    detail = op_view.to_sol(op)['error']['detail']
    assert len(detail) < 5000
    assert 'stderr cut' in detail
    assert detail.endswith('giving up, password was ********')
    assert 'secret-pw' not in json.dumps(op['error'])
    assert 'db-pass-in-request' not in detail
