"""Modify VNF information: merge-patch, new package, dry run, hooks'
reports, rollback."""

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.db import api as db
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt import base as mgmt_base
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.drivers.mgmt.script import ScriptMgmtDriver
from vnfm.lcm.driver import LcmDriver

from .fixtures import instantiated
from .fixtures import make_flaky_lcm
from .fixtures import make_lcm
from .fixtures import new_instance
from .fixtures import onboarded_package
from .fixtures import recorded_hooks
from .fixtures import run_op
from .fixtures import user_rolls_back


def test_modify_merges_metadata_and_replaces_name(db_url, hook_record):
    pkg = onboarded_package()
    inst = new_instance(
        pkg, metadata={'a': 1, 'b': {'c': 2, 'd': 3}}, extensions={'x': 'y'}
    )
    lcm, noop = make_lcm()

    op = run_op(
        lcm,
        inst,
        'MODIFY_INFO',
        {
            'vnfInstanceName': 'renamed',
            'metadata': {'a': None, 'b': {'c': 20}, 'e': 'new'},
        },
    )

    assert op['operation_state'] == 'COMPLETED', op['error']
    inst = db.instance_get(inst['id'])
    assert inst['vnf_instance_name'] == 'renamed'
    assert inst['metadata'] == {'b': {'c': 20, 'd': 3}, 'e': 'new'}
    assert inst['extensions'] == {'x': 'y'}
    assert op['changed_info'] == {
        'vnfInstanceName': 'renamed',
        'metadata': {'a': None, 'b': {'c': 20}, 'e': 'new'},
    }
    assert noop.calls == []  # no VIM involved
    assert recorded_hooks(hook_record) == [
        'modify_information_start',
        'modify_information_end',
    ]


def test_modify_with_new_vnfd_id_switches_package(db_url, hook_record):
    old = onboarded_package('noop_vnf')
    new = onboarded_package('noop_vnf_v2')
    inst = instantiated(old)
    lcm, _ = make_lcm()

    op = run_op(lcm, inst, 'MODIFY_INFO', {'vnfdId': new['vnfd_id']})

    assert op['operation_state'] == 'COMPLETED', op['error']
    inst = db.instance_get(inst['id'])
    assert inst['vnfd_id'] == new['vnfd_id']
    assert inst['vnf_pkg_id'] == new['id']
    assert inst['vnf_software_version'] == '2.0'
    assert op['changed_info']['vnfdId'] == new['vnfd_id']
    assert op['changed_info']['vnfSoftwareVersion'] == '2.0'
    assert db.package_get(new['id'])['usage_state'] == 'IN_USE'
    assert db.package_get(old['id'])['usage_state'] == 'NOT_IN_USE'


def test_modify_vim_connection_info_is_masked_in_changed_info(
    db_url, hook_record
):
    inst = new_instance(onboarded_package())
    lcm, _ = make_lcm()

    op = run_op(
        lcm,
        inst,
        'MODIFY_INFO',
        {
            'vimConnectionInfo': {
                'v2': {
                    'vimType': 'VNFM.NOOP.V_1',
                    'accessInfo': {'password': 'pw2', 'username': 'u'},
                }
            }
        },
    )

    assert op['operation_state'] == 'COMPLETED', op['error']
    stored = db.instance_get(inst['id'])['vim_connection_info']
    assert crypto.unseal_vim_connection_info(stored)['v2']['accessInfo'] == {
        'password': 'pw2',
        'username': 'u',
    }
    shown = op['changed_info']['vimConnectionInfo']['v2']['accessInfo']
    assert shown == {'password': '********', 'username': 'u'}


def test_rollback_of_modify_restores_previous_values(db_url, hook_record):
    old = onboarded_package('noop_vnf')
    new = onboarded_package('noop_vnf_v2')
    inst = new_instance(old, metadata={'k': 'v'})
    lcm, _ = make_flaky_lcm('modify_information_end')
    op = run_op(
        lcm,
        inst,
        'MODIFY_INFO',
        {
            'vnfdId': new['vnfd_id'],
            'metadata': {'k': 'changed'},
            'vnfInstanceName': 'other',
        },
    )
    assert op['operation_state'] == 'FAILED_TEMP'

    user_rolls_back(op['id'])
    lcm.start(op['id'])

    assert db.op_get(op['id'])['operation_state'] == 'ROLLED_BACK'
    after = db.instance_get(inst['id'])
    assert after['metadata'] == {'k': 'v'}
    assert after['vnfd_id'] == old['vnfd_id']
    assert after['vnf_instance_name'] == 'vnf1'


# --- A built-in MgmtDriver on modify_information_end (cnf_update_v1/v2) ---

POD_BEFORE, POD_UPDATED, POD_RESTORED = (
    'vdu1-update-aaaaa',
    'vdu1-update-bbbbb',
    'vdu1-update-ccccc',
)
REPORT = 'vnfm_container_update'


def _vnfc_info(pod: str) -> dict:
    """instantiatedVnfInfo VNFC entries naming ``pod``."""
    return {
        'vnfcResourceInfo': [
            {
                'id': 'vnfc-1',
                'vduId': 'VDU1',
                'computeResource': {
                    'resourceId': pod,
                    'vimLevelResourceType': 'Deployment',
                },
            }
        ],
        'vnfcInfo': [
            {
                'id': 'VDU1-vnfc-1',
                'vduId': 'VDU1',
                'vnfcResourceInfoId': 'vnfc-1',
                'vnfcState': 'STARTED',
            }
        ],
    }


def _affected(pod: str) -> dict:
    return {
        'affectedVnfcs': [
            {
                'id': 'vnfc-1',
                'vduId': 'VDU1',
                'changeType': 'MODIFIED',
                'computeResource': {'resourceId': pod},
            }
        ]
    }


class FakeContainerUpdate(mgmt_base.MgmtDriver):
    """Stands in for container_update: no Kubernetes, the same shapes."""

    name = 'container_update'

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.calls: list[tuple[str, bool]] = []
        self.rollback_work: dict | None = None

    def modify_information_end(self, ctx):
        dry = mgmt_base.is_dry_run(ctx.request)
        self.calls.append((ctx.hook, dry))
        report = {
            'replaced': ['ConfigMap/cm-data'],
            'restarted': ['Deployment/vdu1-update'],
        }
        if dry:
            return mgmt_base.HookResult(
                changes={
                    'changedInfo': {
                        'metadata': {REPORT: dict(report, dryRun=True)}
                    }
                }
            )
        ctx.work['snapshot'] = {'ConfigMap/cm-data': 'old'}
        ctx.save_work()
        if self.fail:  # the Pods were restarted, then the update broke
            raise exceptions.OperationFailed(f'{ctx.hook} hook: broke')
        return mgmt_base.HookResult(
            changes={
                'instantiatedVnfInfo': _vnfc_info(POD_UPDATED),
                'resourceChanges': _affected(POD_UPDATED),
                'changedInfo': {'metadata': {REPORT: report}},
            }
        )

    def rollback_modify_information_end(self, ctx):
        self.calls.append((f'rollback_{ctx.hook}', False))
        self.rollback_work = dict(ctx.work)
        return mgmt_base.HookResult(
            changes={
                'instantiatedVnfInfo': _vnfc_info(POD_RESTORED),
                'resourceChanges': _affected(POD_RESTORED),
                'changedInfo': {'metadata': {REPORT: {'rolledBack': True}}},
            }
        )


def _update_setup(fail: bool = False):
    """(v1 package, v2 package, INSTANTIATED v1 instance, lcm, fake)."""
    v1 = onboarded_package('cnf_update_v1')
    v2 = onboarded_package('cnf_update_v2')
    info = dict(
        _vnfc_info(POD_BEFORE),
        flavourId='simple',
        vnfState='STARTED',
        metadata={'namespace': 'default'},
    )
    inst = new_instance(
        v1,
        instantiation_state='INSTANTIATED',
        instantiated_vnf_info=info,
        metadata={'k': 'v'},
    )
    fake = FakeContainerUpdate(fail=fail)
    lcm = LcmDriver(
        'c1',
        InfraDrivers({}),
        MgmtRunner({'script': ScriptMgmtDriver(), 'container_update': fake}),
    )
    return v1, v2, inst, lcm, fake


def test_dry_run_runs_only_end_hook_and_changes_nothing(db_url):
    v1, v2, inst, lcm, fake = _update_setup()

    op = run_op(
        lcm,
        inst,
        'MODIFY_INFO',
        {
            'vnfdId': v2['vnfd_id'],
            'vnfInstanceName': 'other',
            'metadata': {'vnfm_dry_run': True, 'k': 'changed'},
        },
    )

    assert op['operation_state'] == 'COMPLETED', op['error']
    assert fake.calls == [('modify_information_end', True)]
    after = db.instance_get(inst['id'])
    for column in (
        'vnfd_id',
        'vnf_pkg_id',
        'vnf_instance_name',
        'metadata',
        'instantiated_vnf_info',
        'vnf_software_version',
    ):
        assert after[column] == inst[column], column
    assert op['changed_info'] == {
        'metadata': {
            REPORT: {
                'replaced': ['ConfigMap/cm-data'],
                'restarted': ['Deployment/vdu1-update'],
                'dryRun': True,
            }
        }
    }
    assert op['resource_changes'] is None
    assert db.package_get(v2['id'])['usage_state'] == 'NOT_IN_USE'


def test_dry_run_skips_the_start_hook(db_url, hook_record):
    inst = new_instance(onboarded_package('noop_vnf'))
    new = onboarded_package('noop_vnf_v2')
    lcm, _ = make_lcm()

    op = run_op(
        lcm,
        inst,
        'MODIFY_INFO',
        {'vnfdId': new['vnfd_id'], 'metadata': {'vnfm_dry_run': 'true'}},
    )

    assert op['operation_state'] == 'COMPLETED', op['error']
    assert recorded_hooks(hook_record) == ['modify_information_end']
    assert db.instance_get(inst['id'])['vnfd_id'] == inst['vnfd_id']


def test_hook_changed_info_is_merged_into_the_ops(db_url):
    v1, v2, inst, lcm, fake = _update_setup()

    op = run_op(
        lcm,
        inst,
        'MODIFY_INFO',
        {'vnfdId': v2['vnfd_id'], 'metadata': {'k': 'changed'}},
    )

    assert op['operation_state'] == 'COMPLETED', op['error']
    assert op['changed_info']['vnfdId'] == v2['vnfd_id']
    assert op['changed_info']['metadata'] == {
        'k': 'changed',
        REPORT: {
            'replaced': ['ConfigMap/cm-data'],
            'restarted': ['Deployment/vdu1-update'],
        },
    }
    assert op['resource_changes'] == _affected(POD_UPDATED)
    after = db.instance_get(inst['id'])
    assert after['metadata'] == {'k': 'changed'}  # the report is not kept
    vnfcs = after['instantiated_vnf_info']['vnfcResourceInfo']
    assert vnfcs[0]['computeResource']['resourceId'] == POD_UPDATED


def test_rollback_applies_what_the_undoing_hook_returns(db_url):
    v1, v2, inst, lcm, fake = _update_setup(fail=True)
    op = run_op(
        lcm,
        inst,
        'MODIFY_INFO',
        {'vnfdId': v2['vnfd_id'], 'vnfInstanceName': 'other'},
    )
    assert op['operation_state'] == 'FAILED_TEMP'

    user_rolls_back(op['id'])
    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'ROLLED_BACK', op['error']
    assert fake.rollback_work == {'snapshot': {'ConfigMap/cm-data': 'old'}}
    after = db.instance_get(inst['id'])
    assert after['vnfd_id'] == v1['vnfd_id']
    assert after['vnf_instance_name'] == 'vnf1'
    info = after['instantiated_vnf_info']
    # The live Pod, not the one before the update (it was restarted).
    assert info['vnfcResourceInfo'][0]['computeResource']['resourceId'] == (
        POD_RESTORED
    )
    assert info['vnfcInfo'] == _vnfc_info(POD_RESTORED)['vnfcInfo']
    assert info['flavourId'] == 'simple'
    assert info['metadata'] == {'namespace': 'default'}
    assert op['resource_changes'] == _affected(POD_RESTORED)
    assert op['changed_info'] == {'metadata': {REPORT: {'rolledBack': True}}}


class _WaitingHook(ScriptMgmtDriver):
    """Scripts that, in modify_information_end, show what they wait for."""

    def __init__(self) -> None:
        self.warnings: list[object] = []

    def _shown(self, op_id: str) -> object:
        from vnfm.objects import op_occ

        return op_occ.to_sol(db.op_get(op_id)).get('warnings')

    def run_hook(self, ctx):
        if ctx.hook == 'modify_information_end':
            op_id = ctx.vnf_lcm_op_occ['id']
            ctx.show_waiting(
                'waiting for eviction of Pod ns/p, blocked by '
                'PodDisruptionBudget ns/b'
            )
            self.warnings.append(self._shown(op_id))
            ctx.show_waiting(None)
            self.warnings.append(self._shown(op_id))
        return super().run_hook(ctx)


def test_what_a_hook_waits_for_is_shown_while_it_runs(db_url, hook_record):
    pkg = onboarded_package()
    inst = new_instance(pkg)
    hooks = _WaitingHook()
    lcm = LcmDriver('c1', InfraDrivers({}), MgmtRunner({'script': hooks}))

    op = run_op(lcm, inst, 'MODIFY_INFO', {'vnfInstanceName': 'x'})

    assert op['operation_state'] == 'COMPLETED', op['error']
    assert hooks.warnings == [
        [
            'waiting for eviction of Pod ns/p, blocked by PodDisruptionBudget '
            'ns/b'
        ],
        None,
    ]


def test_request_flags_are_not_kept_in_the_instance_metadata(
    db_url, hook_record
):
    pkg = onboarded_package()
    inst = new_instance(pkg, metadata={'a': 1})
    lcm, _ = make_lcm()

    op = run_op(
        lcm,
        inst,
        'MODIFY_INFO',
        {'metadata': {mgmt_base.DISRUPTION_ALLOWED: True, 'b': 2}},
    )

    assert op['operation_state'] == 'COMPLETED', op['error']
    assert db.instance_get(inst['id'])['metadata'] == {'a': 1, 'b': 2}
    assert op['changed_info'] == {'metadata': {'b': 2}}
