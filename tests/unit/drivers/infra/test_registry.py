"""The infra driver registry: one driver per vimType, chosen by the
instance's vimConnectionInfo, loaded by entry point with clear errors."""

import pytest

from vnfm.drivers import loader
from vnfm.drivers.infra.noop.driver import VIM_TYPE
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.infra.registry import NoInfraDriver
from vnfm.objects import infra


def test_registry_selects_by_vim_type():
    noop = NoopInfraDriver()
    drivers = InfraDrivers({'noop': noop})
    vims = {
        'a': {'vimType': 'ETSINFV.OPENSTACK_KEYSTONE.V_3'},
        'b': {'vimType': VIM_TYPE},
    }

    driver, served = drivers.select(vims)

    assert driver is noop and list(served) == ['b']


def test_registry_ignores_a_vim_the_instance_provides():
    noop = NoopInfraDriver()
    drivers = InfraDrivers({'noop': noop})
    vims = {
        'runs_on': {'vimType': VIM_TYPE},
        'provides': {'vimType': VIM_TYPE, 'extra': {infra.PROVIDED_VIM: True}},
    }

    driver, served = drivers.select(vims)

    assert driver is noop and list(served) == ['runs_on']


def test_registry_without_matching_vim_says_what_is_served():
    drivers = InfraDrivers({'noop': NoopInfraDriver()})
    with pytest.raises(NoInfraDriver) as e:
        drivers.select({'a': {'vimType': 'kubernetes'}})
    assert e.value.status == 400
    assert 'served: VNFM.NOOP.V_1; given: kubernetes' in e.value.detail
    with pytest.raises(NoInfraDriver):
        drivers.select(None)


def test_two_drivers_for_one_vim_type_are_refused():
    with pytest.raises(loader.DriverLoadError):
        InfraDrivers({'a': NoopInfraDriver(), 'b': NoopInfraDriver()})


def test_load_by_entry_point_and_clear_error_for_typos():
    assert InfraDrivers.load(['noop']).vim_types() == [VIM_TYPE]
    with pytest.raises(loader.DriverLoadError) as e:
        InfraDrivers.load(['nopo'])
    assert e.value.detail.startswith(
        "No driver named 'nopo' in vnfm.infra_drivers; installed: "
    )
    assert 'noop' in e.value.detail


def test_a_driver_must_publish_what_it_declares(monkeypatch):
    monkeypatch.setattr(infra, 'NOOP', infra.Capabilities(('OTHER.V_1',)))
    with pytest.raises(loader.DriverLoadError) as e:
        InfraDrivers.load(['noop'])
    assert "Infra driver 'noop' declares" in e.value.detail
    assert 'they must be equal' in e.value.detail


def test_a_driver_publishing_nothing_does_not_load(monkeypatch):
    monkeypatch.setattr(infra, 'declared', _publishes_nothing)
    with pytest.raises(loader.DriverLoadError) as e:
        InfraDrivers.load(['noop'])
    assert e.value.detail == (
        'x Publish its Capabilities there under the same name, so the API '
        'knows what it serves.'
    )


def _publishes_nothing(name):
    raise infra.UnknownDriver('x')
