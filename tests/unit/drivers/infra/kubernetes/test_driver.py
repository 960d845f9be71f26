"""KubernetesInfraDriver: loaded by its name, it serves the Kubernetes
vimType, runs each operation it declares (and its rollback) with the
module that does it, and refuses what it does not declare."""

from __future__ import annotations

import time

import pytest

from vnfm.common import exceptions
from vnfm.drivers import loader
from vnfm.drivers.infra import base
from vnfm.drivers.infra.kubernetes import change
from vnfm.drivers.infra.kubernetes import driver
from vnfm.drivers.infra.kubernetes import flavour
from vnfm.drivers.infra.kubernetes import heal
from vnfm.drivers.infra.kubernetes import lifecycle
from vnfm.drivers.infra.kubernetes import operate
from vnfm.drivers.infra.kubernetes import scale
from vnfm.drivers.infra.kubernetes import sync
from vnfm.objects import infra

# Driver method -> (module, function) that runs it.
RUNS = {
    'instantiate': (lifecycle, 'instantiate'),
    'terminate': (lifecycle, 'terminate'),
    'rollback_instantiate': (lifecycle, 'rollback_instantiate'),
    'scale': (scale, 'scale'),
    'rollback_scale': (scale, 'rollback_scale'),
    'heal': (heal, 'heal'),
    'change_vnfpkg': (change, 'change_vnfpkg'),
    'rollback_change_vnfpkg': (change, 'rollback_change_vnfpkg'),
    'change_flavour': (flavour, 'change_flavour'),
    'rollback_change_flavour': (flavour, 'rollback_change_flavour'),
    'operate': (operate, 'operate'),
    'rollback_operate': (operate, 'rollback_operate'),
}
INSTANCE = {'id': 'inst-1', 'instantiatedVnfInfo': {'flavourId': 'simple'}}
VIM = {'vimType': 'ETSINFV.KUBERNETES.V_1'}


def _ctx(operation: str) -> base.InfraContext:
    return base.InfraContext(
        operation=operation,
        vnf_instance=INSTANCE,
        request={},
        vnfd={},
        flavour_id='simple',
        vim_connection_info={'vim-1': VIM},
        package=None,  # type: ignore[arg-type]
        deadline=time.monotonic() + 60,
    )


def test_it_loads_by_name_and_serves_the_kubernetes_vim_type() -> None:
    loaded = loader.load_driver(
        'vnfm.infra_drivers',
        'kubernetes',
        base.InfraDriver,  # type: ignore[type-abstract]
    )
    assert isinstance(loaded, driver.KubernetesInfraDriver)
    assert loaded.vim_types == ('ETSINFV.KUBERNETES.V_1',)
    # What the API advertises is what the driver runs.
    assert infra.declared('kubernetes') == loaded.capabilities
    assert {'OPERATE', 'CHANGE_FLAVOUR'} <= loaded.capabilities.operations
    assert 'CHANGE_EXT_CONN' not in loaded.capabilities.operations


@pytest.mark.parametrize('method', sorted(RUNS))
def test_each_operation_runs_its_module(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, function = RUNS[method]
    result = base.InfraResult()
    seen = []

    def run(ctx: base.InfraContext) -> base.InfraResult:
        seen.append(ctx)
        return result

    monkeypatch.setattr(module, function, run)
    ctx = _ctx(method.upper())
    assert getattr(driver.KubernetesInfraDriver(), method)(ctx) is result
    assert seen == [ctx]


@pytest.mark.parametrize(
    'method', ['change_ext_conn', 'rollback_change_ext_conn']
)
def test_an_undeclared_operation_fails_saying_so(method: str) -> None:
    with pytest.raises(
        exceptions.OperationFailed,
        match='KubernetesInfraDriver cannot change external connectivity',
    ):
        getattr(driver.KubernetesInfraDriver(), method)(
            _ctx('CHANGE_EXT_CONN')
        )


def test_sync_compares_the_instance_on_its_vim(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple] = []

    def recorder(name: str, answer: object) -> object:
        def record(*args: object) -> object:
            calls.append((name, *args))
            return answer

        return record

    monkeypatch.setattr(sync, 'synced_info', recorder('info', None))
    monkeypatch.setattr(sync, 'vim_vnfcs', recorder('vnfcs', {}))
    monkeypatch.setattr(
        sync, 'sync_vnfc_resource_info', recorder('resources', [])
    )
    ctx = base.SyncContext(
        vnf_instance=INSTANCE,
        vim_connection_info={'vim-1': VIM},
        deadline=time.monotonic() + 60,
    )
    k8s = driver.KubernetesInfraDriver()
    info = INSTANCE['instantiatedVnfInfo']

    assert k8s.sync(ctx) is None
    assert k8s.vim_vnfcs(ctx, {'VDU1'}) == {}
    assert k8s.sync_vnfc_resource_info('vim-1', VIM, INSTANCE) == []
    assert calls == [
        ('info', 'vim-1', VIM, 'inst-1', info),
        ('vnfcs', VIM, 'inst-1', info, {'VDU1'}),
        ('resources', 'vim-1', VIM, 'inst-1', info),
    ]
