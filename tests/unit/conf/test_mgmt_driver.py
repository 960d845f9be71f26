"""[mgmt_driver] defaults: the built-in MgmtDrivers are enabled, and a
package's hook scripts run only as the operator allows."""

from __future__ import annotations

from vnfm.conf import CONF
from vnfm.drivers import loader


def test_every_enabled_driver_is_installed():
    installed = set(loader.installed('vnfm.mgmt_drivers'))

    assert set(CONF.mgmt_driver.enabled_builtin_drivers) <= installed
    assert 'script' in CONF.mgmt_driver.enabled_builtin_drivers


def test_any_script_needs_the_operators_consent():
    assert CONF.mgmt_driver.allow_any_script is False


def test_a_container_update_may_take_longer_than_one_script():
    mgmt = CONF.mgmt_driver

    assert mgmt.container_update_timeout >= mgmt.script_timeout
