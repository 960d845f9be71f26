"""vnfm.objects.infra: what the infra drivers publish for the API."""

from __future__ import annotations

import pytest

from vnfm.drivers import loader
from vnfm.lcm import driver as lcm_driver
from vnfm.objects import infra

BUILT_IN = loader.installed('vnfm.infra_drivers')


@pytest.mark.parametrize('name', BUILT_IN)
def test_every_infra_driver_publishes_what_its_class_declares(name):
    driver = loader.load_driver('vnfm.infra_drivers', name, object)
    assert infra.declared(name) == type(driver).capabilities


@pytest.mark.parametrize('name', BUILT_IN)
def test_declared_operations_are_ones_the_lcm_driver_runs(name):
    """A driver that declares an operation makes the API accept it: the
    conductor must then run it."""
    declared = {op.value for op in infra.declared(name).operations}
    assert declared <= set(lcm_driver.OPERATIONS)


def test_unknown_driver():
    with pytest.raises(infra.UnknownDriver) as e:
        infra.declared('nopo')
    assert str(e.value) == (
        "Infra driver 'nopo' publishes no capabilities "
        'in vnfm.infra_capabilities.'
    )


def test_operations_by_vim_type():
    enabled = infra.Enabled(
        {
            'A': infra.Capabilities(('A',)),
            'B': infra.Capabilities(
                ('B',),
                infra.BASE_OPERATIONS | {infra.states.LcmOperation.OPERATE},
            ),
        }
    )
    assert enabled.vim_types() == ['A', 'B']
    assert 'OPERATE' not in enabled.operations(['A'])
    assert 'OPERATE' in enabled.operations(['B'])
    # An instance naming no served vimType: what any driver runs.
    assert 'OPERATE' in enabled.operations(['C'])
    assert 'OPERATE' in enabled.operations()
    assert enabled.serves('A') and not enabled.serves('kubernetes')


def test_enabled_is_the_union_of_the_named_drivers():
    enabled = infra.enabled(('noop', 'kubernetes'))
    assert enabled.vim_types() == ['ETSINFV.KUBERNETES.V_1', 'VNFM.NOOP.V_1']
    assert enabled.operations(['ETSINFV.KUBERNETES.V_1']) == {
        'INSTANTIATE',
        'TERMINATE',
        'SCALE',
        'SCALE_TO_LEVEL',
        'HEAL',
        'OPERATE',
        'CHANGE_FLAVOUR',
        'CHANGE_VNFPKG',
    }


def test_openstack_changes_flavour_but_does_not_operate():
    # Servers are started and stopped through Nova, which the cloud vnfm
    # is tested on has not: OPERATE is not offered for OpenStack VIMs.
    enabled = infra.enabled(('openstack',))
    ops = enabled.operations(['ETSINFV.OPENSTACK_KEYSTONE.V_3'])
    assert 'CHANGE_FLAVOUR' in ops
    assert 'OPERATE' not in ops


def test_the_driver_serving_a_vim_type_by_name():
    enabled = infra.enabled(('noop', 'kubernetes'))
    assert enabled.driver_name('ETSINFV.KUBERNETES.V_1') == 'kubernetes'
    assert enabled.driver_name('VNFM.NOOP.V_1') == 'noop'
    assert enabled.driver_name('ETSINFV.OPENSTACK_KEYSTONE.V_3') == ''
