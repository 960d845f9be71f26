"""The hooks of the newer operations: scale to level runs scale_start and
scale_end, operate runs operate_start and operate_end; a failing hook
leaves the op FAILED_TEMP and retry finishes it."""

from __future__ import annotations

import shutil
from pathlib import Path

from vnfm.conductor import packages
from vnfm.csar.build import build_csar
from vnfm.db import api as db

from .fixtures import SAMPLES
from .fixtures import instantiated
from .fixtures import make_flaky_lcm
from .fixtures import make_lcm
from .fixtures import recorded_hooks
from .fixtures import run_op
from .fixtures import user_retries

_HOOKS = ''.join(
    f'          {h}:\n            implementation: record-hook\n'
    for h in ('scale_start', 'scale_end', 'operate_start', 'operate_end')
)


def _hooked_package(tmp_path: Path) -> dict:
    src = tmp_path / 'pkg'
    shutil.copytree(Path(SAMPLES) / 'noop_vnf', src)
    df = src / 'Definitions' / 'noop_df_simple.yaml'
    text = df.read_text()
    anchor = '        Vnflcm:\n'
    assert anchor in text
    df.write_text(text.replace(anchor, anchor + _HOOKS, 1))
    row = db.package_create(
        {
            'onboarding_state': 'CREATED',
            'operational_state': 'DISABLED',
            'usage_state': 'NOT_IN_USE',
        }
    )
    db.package_content_put(row['id'], build_csar(str(src)))
    db.package_update(row['id'], {'onboarding_state': 'PROCESSING'})
    packages.onboard(row['id'])
    row = db.package_get(row['id'])
    assert row['onboarding_state'] == 'ONBOARDED', row
    return row


def test_scale_to_level_and_operate_run_their_hooks(
    db_url, hook_record, tmp_path
):
    inst = instantiated(_hooked_package(tmp_path))
    lcm, _ = make_lcm()
    before = len(recorded_hooks(hook_record))

    op = run_op(
        lcm,
        inst,
        'SCALE_TO_LEVEL',
        {'instantiationLevelId': 'instantiation_level_2'},
    )
    assert op['operation_state'] == 'COMPLETED', op['error']
    op = run_op(lcm, inst, 'OPERATE', {'changeStateTo': 'STOPPED'})
    assert op['operation_state'] == 'COMPLETED', op['error']

    assert recorded_hooks(hook_record)[before:] == [
        'scale_start',
        'scale_end',
        'operate_start',
        'operate_end',
    ]


def test_failing_operate_hook_then_retry(db_url, hook_record, tmp_path):
    inst = instantiated(_hooked_package(tmp_path))
    lcm, noop = make_flaky_lcm('operate_end')

    op = run_op(lcm, inst, 'OPERATE', {'changeStateTo': 'STOPPED'})
    assert op['operation_state'] == 'FAILED_TEMP'
    assert 'operate_end hook: flaky' in op['error']['detail']
    assert (
        db.instance_get(inst['id'])['instantiated_vnf_info']['vnfState']
        == 'STARTED'
    )
    user_retries(op['id'])
    lcm.start(op['id'])
    assert db.op_get(op['id'])['operation_state'] == 'COMPLETED'
    assert [c['method'] for c in noop.calls].count('operate') == 1
    assert (
        db.instance_get(inst['id'])['instantiated_vnf_info']['vnfState']
        == 'STOPPED'
    )
