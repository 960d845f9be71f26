"""Drivers named in the configuration are loaded by entry point; a typo
or a wrong kind of driver stops the start with a message that says what
is installed."""

from __future__ import annotations

import pytest

from vnfm.drivers import loader
from vnfm.drivers.infra.base import InfraDriver
from vnfm.drivers.mgmt.base import MgmtDriver

INFRA = 'vnfm.infra_drivers'


def test_installed_lists_the_built_in_drivers():
    assert {'kubernetes', 'noop', 'openstack'} <= set(loader.installed(INFRA))
    assert loader.installed(INFRA) == sorted(loader.installed(INFRA))


def test_a_driver_loads_as_an_instance_of_its_kind():
    driver = loader.load_driver(INFRA, 'noop', InfraDriver)

    assert isinstance(driver, InfraDriver)


def test_a_typo_names_what_is_installed():
    with pytest.raises(loader.DriverLoadError) as e:
        loader.load_driver(INFRA, 'kubernets', InfraDriver)

    assert str(e.value) == (
        f"No driver named 'kubernets' in {INFRA}; installed: "
        f'{", ".join(loader.installed(INFRA))}.'
    )


def test_an_empty_namespace_says_none_is_installed():
    with pytest.raises(loader.DriverLoadError) as e:
        loader.load_driver('vnfm.no_such_drivers', 'x', InfraDriver)

    assert str(e.value).endswith('installed: none.')


def test_a_driver_of_another_kind_is_refused():
    with pytest.raises(loader.DriverLoadError) as e:
        loader.load_driver(INFRA, 'noop', MgmtDriver)

    assert str(e.value) == (
        f"Driver 'noop' of {INFRA} is a NoopInfraDriver, not a MgmtDriver."
    )
