"""VIMs registered and deleted by MgmtDriver hooks, committed with the op."""

from __future__ import annotations

import pytest

from vnfm.common import crypto
from vnfm.db import api as db
from vnfm.db import registry
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.lcm.driver import LcmDriver
from vnfm.objects import vim as vim_obj

from .fixtures import NOOP_VIM
from .fixtures import instantiate_params
from .fixtures import instantiated
from .fixtures import new_instance
from .fixtures import new_op
from .fixtures import onboarded_package
from .fixtures import run_op
from .fixtures import user_retries

CLUSTER_VIM = '7b0f2a4c-8a57-4b6a-9d0e-3c1f6b2f7d11'


def cluster_vim(name: str = 'cluster1') -> dict:
    return {
        'id': CLUSTER_VIM,
        'name': name,
        'type': 'kubernetes',
        'auth_url': 'https://198.18.0.10:6443',
        'auth_cred': {'bearer_token': 'tok-1', 'ssl_ca_cert': 'PEM'},
        'vim_project': {'name': 'default'},
    }


class NoHooks(base.MgmtDriver):
    """Every hook changes nothing."""

    def __getattr__(self, name: str):
        if name.endswith(('_start', '_end')):
            return lambda ctx: base.HookResult()
        raise AttributeError(name)


class ClusterHooks(NoHooks):
    """Registers a VIM at instantiate_end, deletes it at terminate_end and
    refuses terminate_start while another instance uses it."""

    def __init__(self, name: str = 'cluster1') -> None:
        self.vim_name = name
        self.users: list[dict] = []

    def instantiate_end(self, ctx: base.HookContext) -> base.HookResult:
        entry = {
            'vimId': CLUSTER_VIM,
            'vimType': 'ETSINFV.KUBERNETES.V_1',
            'interfaceInfo': {'endpoint': 'https://198.18.0.10:6443'},
            'accessInfo': {'bearer_token': 'tok-1'},
            'extra': {'vnfm_provided_vim': True},
        }
        return base.HookResult(
            {
                'vims': {'register': [cluster_vim(self.vim_name)]},
                'vimConnectionInfo': {'cluster': entry},
            }
        )

    def terminate_start(self, ctx: base.HookContext) -> base.HookResult:
        self.users = ctx.instances_using(CLUSTER_VIM)
        return base.HookResult()

    def terminate_end(self, ctx: base.HookContext) -> base.HookResult:
        return base.HookResult({'vims': {'delete': [CLUSTER_VIM]}})


def lcm_with(hooks: base.MgmtDriver) -> LcmDriver:
    return LcmDriver(
        'c1',
        InfraDrivers({'noop': NoopInfraDriver()}),
        MgmtRunner({'script': hooks}),
    )


def test_instantiate_registers_the_vim_in_the_instances_project(db_url):
    package = onboarded_package()

    inst = instantiated(package, lcm_with(ClusterHooks()))

    row = registry.vim_get(CLUSTER_VIM)
    assert row['name'] == 'cluster1'
    assert row['project_id'] == inst['project_id']
    assert row['status'] == vim_obj.ACTIVE and row['is_default'] is False
    assert crypto.decrypt(row['auth_cred'])['bearer_token'] == 'tok-1'


def test_the_token_is_not_kept_in_clear_with_the_op(db_url):
    package = onboarded_package()
    inst = instantiated(package, lcm_with(ClusterHooks()))

    ops = db.op_list({'vnf_instance_id': inst['id']})

    assert 'tok-1' not in repr([op['work'] for op in ops])
    stored = db.instance_get(inst['id'])['vim_connection_info']
    assert 'tok-1' not in repr(stored)
    clear = crypto.unseal_vim_connection_info(stored)
    assert clear['cluster']['accessInfo'] == {'bearer_token': 'tok-1'}


def test_terminate_deletes_the_vim_and_sees_who_uses_it(db_url):
    package = onboarded_package()
    hooks = ClusterHooks()
    cluster = instantiated(package, lcm_with(hooks))
    vci = {'k8s': {'vimId': CLUSTER_VIM, 'vimType': 'kubernetes'}}
    cnf = instantiated(
        package, lcm_with(NoHooks()), vimConnectionInfo={**NOOP_VIM, **vci}
    )

    op = run_op(lcm_with(hooks), cluster, 'TERMINATE')

    assert op['operation_state'] == 'COMPLETED', op['error']
    assert hooks.users == [
        {'id': cnf['id'], 'vnfInstanceName': cnf['vnf_instance_name']}
    ]
    assert registry.vim_list({'id': CLUSTER_VIM}) == []


def test_a_taken_name_fails_the_op_and_a_retry_registers_it(db_url):
    package = onboarded_package()
    taken = registry.vim_create(
        {
            'name': 'cluster1',
            'type': 'kubernetes',
            'status': vim_obj.ACTIVE,
            'auth_cred': crypto.encrypt({}),
        }
    )
    lcm = lcm_with(ClusterHooks())
    inst = new_instance(package)
    op = new_op(inst, 'INSTANTIATE', instantiate_params())
    lcm.start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    assert "a VIM named 'cluster1' already exists" in op['error']['detail']
    assert db.instance_get(inst['id'])['instantiation_state'] == (
        'NOT_INSTANTIATED'
    )
    assert registry.vim_list({'id': CLUSTER_VIM}) == []

    registry.vim_delete(taken['id'])
    user_retries(op['id'])
    lcm.start(op['id'])

    assert db.op_get(op['id'])['operation_state'] == 'COMPLETED'
    assert registry.vim_get(CLUSTER_VIM)['name'] == 'cluster1'


class SeesInfo(NoHooks):
    """Records the instantiatedVnfInfo instantiate_end sees."""

    def __init__(self) -> None:
        self.seen: list = []

    def instantiate_end(self, ctx: base.HookContext) -> base.HookResult:
        self.seen.append(ctx.vnf_instance.get('instantiatedVnfInfo'))
        return base.HookResult()


def test_the_end_hook_sees_what_the_infra_driver_made(db_url):
    hooks = SeesInfo()

    instantiated(onboarded_package(), lcm_with(hooks))

    [info] = hooks.seen
    assert info['vnfcResourceInfo'], info


class DeletesAVim(NoHooks):
    """instantiate_end deletes (or overwrites) the VIM ``vim_id``."""

    def __init__(self, vim_id: str, overwrite: bool) -> None:
        self.vim_id, self.overwrite = vim_id, overwrite

    def instantiate_end(self, ctx: base.HookContext) -> base.HookResult:
        if self.overwrite:
            body = dict(cluster_vim('mine'), id=self.vim_id)
            return base.HookResult({'vims': {'register': [body]}})
        return base.HookResult({'vims': {'delete': [self.vim_id]}})


@pytest.mark.parametrize('overwrite', [False, True])
def test_a_hook_never_deletes_or_overwrites_another_projects_vim(
    db_url, overwrite
):
    theirs = registry.vim_create(
        {
            'name': 'theirs',
            'type': 'kubernetes',
            'project_id': 'p1',
            'status': vim_obj.ACTIVE,
            'auth_url': 'https://198.18.0.20:6443',
            'auth_cred': crypto.encrypt({'bearer_token': 'p1-token'}),
        }
    )
    inst = new_instance(onboarded_package(), project_id='p2')
    op = new_op(inst, 'INSTANTIATE', instantiate_params(), project_id='p2')

    lcm_with(DeletesAVim(theirs['id'], overwrite)).start(op['id'])

    op = db.op_get(op['id'])
    assert op['operation_state'] == 'FAILED_TEMP'
    assert f'VIM {theirs["id"]}' in op['error']['detail']
    kept = registry.vim_get(theirs['id'])
    assert (kept['name'], kept['project_id']) == ('theirs', 'p1')
    assert crypto.decrypt(kept['auth_cred']) == {'bearer_token': 'p1-token'}
