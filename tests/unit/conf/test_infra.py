"""vnfm.conf.infra: the defaults give a working deployment."""

from vnfm.conf import CONF
from vnfm.drivers import loader

# Drivers of no real VIM: enabled only where asked for (tests, the demo).
NOT_REAL = {'noop'}


def test_every_built_in_real_driver_is_enabled_by_default():
    default = CONF.infra.enabled_infra_drivers
    real = set(loader.installed('vnfm.infra_drivers')) - NOT_REAL
    assert set(default) == real
    assert 'kubernetes' in default and 'noop' not in default
