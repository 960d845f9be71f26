"""OpenStackInfraDriver: loaded by its name, it serves the OpenStack
vimType, runs each operation it declares (and its rollback) with the
module that does it, and refuses what it does not declare (OPERATE)."""

from __future__ import annotations

import time

import pytest

from vnfm.common import exceptions
from vnfm.drivers import loader
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import change
from vnfm.drivers.infra.openstack import driver
from vnfm.drivers.infra.openstack import extconn
from vnfm.drivers.infra.openstack import flavour
from vnfm.drivers.infra.openstack import heal
from vnfm.drivers.infra.openstack import lifecycle
from vnfm.drivers.infra.openstack import scale
from vnfm.drivers.infra.openstack import sync
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
    'change_ext_conn': (extconn, 'change_ext_conn'),
    'rollback_change_ext_conn': (extconn, 'rollback_change_ext_conn'),
}
VIM = {'vimType': 'ETSINFV.OPENSTACK_KEYSTONE.V_3'}


def _ctx(operation: str) -> base.InfraContext:
    return base.InfraContext(
        operation=operation,
        vnf_instance={'id': 'inst-1'},
        request={},
        vnfd={},
        flavour_id='simple',
        vim_connection_info={'vim-1': VIM},
        package=None,  # type: ignore[arg-type]
        deadline=time.monotonic() + 60,
    )


def test_it_loads_by_name_and_serves_the_openstack_vim_type() -> None:
    loaded = loader.load_driver(
        'vnfm.infra_drivers',
        'openstack',
        base.InfraDriver,  # type: ignore[type-abstract]
    )
    assert isinstance(loaded, driver.OpenStackInfraDriver)
    assert loaded.vim_types == ('ETSINFV.OPENSTACK_KEYSTONE.V_3',)
    # What the API advertises is what the driver runs.
    assert infra.declared('openstack') == loaded.capabilities
    ops = loaded.capabilities.operations
    assert {'CHANGE_FLAVOUR', 'CHANGE_EXT_CONN'} <= ops
    assert 'OPERATE' not in ops


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
    assert getattr(driver.OpenStackInfraDriver(), method)(ctx) is result
    assert seen == [ctx]


@pytest.mark.parametrize('method', ['operate', 'rollback_operate'])
def test_operate_is_refused_saying_so(method: str) -> None:
    with pytest.raises(
        exceptions.OperationFailed,
        match='OpenStackInfraDriver cannot start or stop VNFCs',
    ):
        getattr(driver.OpenStackInfraDriver(), method)(_ctx('OPERATE'))


def test_sync_reads_the_instances_stack(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[tuple] = []

    def synced_info(ctx: base.SyncContext) -> None:
        seen.append(('info', ctx))

    def vim_vnfcs(ctx: base.SyncContext, vdus: set[str]) -> dict:
        seen.append(('vnfcs', ctx, vdus))
        return {'VDU1': []}

    monkeypatch.setattr(sync, 'synced_info', synced_info)
    monkeypatch.setattr(sync, 'vim_vnfcs', vim_vnfcs)
    ctx = base.SyncContext(
        vnf_instance={'id': 'inst-1'},
        vim_connection_info={'vim-1': VIM},
        deadline=time.monotonic() + 60,
    )
    openstack = driver.OpenStackInfraDriver()

    assert openstack.sync(ctx) is None
    assert openstack.vim_vnfcs(ctx, {'VDU1'}) == {'VDU1': []}
    assert seen == [('info', ctx), ('vnfcs', ctx, {'VDU1'})]
