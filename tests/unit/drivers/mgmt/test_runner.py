"""Which MgmtDriver runs a hook, which hook a VNFD declares, and that the
secrets a hook returns are kept encrypted with the op."""

from __future__ import annotations

import json
import time

import pytest

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt import runner
from vnfm.drivers.package_files import PackageFiles

VNFD = {
    'interfaces': {'instantiate_end': {'file': 'Scripts/top.py'}},
    'flavours': {
        'simple': {
            'interfaces': {'instantiate_end': {'file': 'Scripts/simple.py'}}
        },
        'bare': {'interfaces': {}},
    },
}


@pytest.mark.parametrize(
    'flavour,hook,found',
    [
        ('simple', 'instantiate_end', {'file': 'Scripts/simple.py'}),
        ('bare', 'instantiate_end', None),
        (None, 'instantiate_end', {'file': 'Scripts/top.py'}),
        ('unknown', 'instantiate_end', {'file': 'Scripts/top.py'}),
        ('simple', 'heal_start', None),
    ],
)
def test_find_hook_prefers_the_flavours_own(flavour, hook, found):
    assert runner.find_hook(VNFD, flavour, hook) == found


def test_find_hook_of_a_vnfd_without_hooks_is_none():
    assert runner.find_hook({}, 'simple', 'instantiate_end') is None


class Returns(base.MgmtDriver):
    """A built-in driver returning fixed changes."""

    name = 'returns'

    def __init__(self, changes: object) -> None:
        self.changes = changes

    def instantiate_end(self, ctx: base.HookContext) -> base.HookResult:
        return base.HookResult(changes=self.changes)  # type: ignore[arg-type]


def run(changes: object) -> base.HookResult:
    ctx = base.HookContext(
        hook='instantiate_end',
        operation='INSTANTIATE',
        vnf_instance={'id': 'i1'},
        vnf_lcm_op_occ={'id': 'o1'},
        request={},
        vim_connection_info={},
        vnfd={},
        package=PackageFiles('pkg1', {}),
        definition={'name': 'instantiate_end', 'builtin': 'returns'},
        deadline=time.monotonic() + 10,
    )
    return runner.MgmtRunner({'returns': Returns(changes)}).run(ctx)


def test_the_vim_connection_info_a_hook_returns_is_sealed(db_url):
    vci = {
        'k8s': {
            'vimType': 'ETSINFV.KUBERNETES.V_1',
            'accessInfo': {'bearer_token': 'TOKEN-123'},
        }
    }

    result = run({'vimConnectionInfo': vci})

    stored = result.changes['vimConnectionInfo']
    assert 'TOKEN-123' not in json.dumps(stored)
    assert crypto.unseal_vim_connection_info(stored) == vci


def test_the_credentials_of_a_vim_a_hook_registers_are_encrypted(db_url):
    vim = {
        'id': 'v1',
        'name': 'cluster',
        'type': 'kubernetes',
        'auth_url': 'https://198.18.0.10:6443',
        'auth_cred': {'bearer_token': 'TOKEN-456'},
    }

    result = run({'vims': {'register': [vim], 'delete': []}})

    [registered] = result.changes['vims']['register']
    assert 'TOKEN-456' not in json.dumps(registered)
    assert crypto.decrypt(registered['auth_cred']) == vim['auth_cred']
    assert registered['name'] == 'cluster'


def test_changes_a_hook_may_not_make_fail_it():
    with pytest.raises(exceptions.OperationFailed) as e:
        run({'instantiationState': 'NOT_INSTANTIATED'})

    assert str(e.value).startswith(
        'instantiate_end hook returned unknown changes instantiationState; '
        'allowed: '
    )


def test_changes_that_are_not_an_object_fail_the_hook():
    with pytest.raises(exceptions.OperationFailed, match='not a JSON object'):
        run(['metadata'])
