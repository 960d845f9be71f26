"""How many VNFCs of each VDU (the vm_simple sample: VDU1 1..3 in steps
of 1 by aspect VDU1_scale, VDU2 exactly 1): at an instantiation level and
after a scale (counted from the instance as it was), always within the
vdu_profile."""

from __future__ import annotations

import pytest

from vnfm.common import exceptions
from vnfm.drivers.infra.openstack import capacity

from .utils import sample_flavour


def instance(level: int, vdu1: int | None = None) -> dict:
    info: dict = {
        'scaleStatus': [{'aspectId': 'VDU1_scale', 'scaleLevel': level}]
    }
    if vdu1 is not None:
        info['vnfcResourceInfo'] = [{'vduId': 'VDU1'}] * vdu1 + [
            {'vduId': 'VDU2'}
        ]
    return {'instantiatedVnfInfo': info}


def test_the_default_level_and_a_named_one():
    f = sample_flavour()

    assert (
        capacity.level_of(f, None)
        == f.instantiation_levels['instantiation_level_1']
    )
    level = capacity.level_of(f, 'instantiation_level_2')
    assert capacity.at_level(f, 'VDU1', level) == 3
    assert capacity.at_level(f, 'VDU2', level) == 1
    assert capacity.at_level(f, 'VDU1', None) == 1


def test_an_unknown_level_names_the_known_ones():
    with pytest.raises(exceptions.OperationFailed) as e:
        capacity.level_of(sample_flavour(), 'huge')

    assert str(e.value) == (
        'Flavour simple has no instantiation level huge (it has: '
        'instantiation_level_1, instantiation_level_2).'
    )


def test_a_count_outside_the_vdu_profile_is_refused():
    with pytest.raises(exceptions.OperationFailed) as e:
        capacity.checked(sample_flavour(), 'VDU1', 4)

    assert str(e.value) == (
        'VDU VDU1 would have 4 instances, outside its vdu_profile (1 to 3).'
    )


def test_scale_out_and_in_from_the_recorded_count():
    f = sample_flavour()
    out = {'type': 'SCALE_OUT', 'aspectId': 'VDU1_scale', 'numberOfSteps': 2}
    back = {'type': 'SCALE_IN', 'aspectId': 'VDU1_scale'}

    assert capacity.scaled(f, instance(0, vdu1=1), out) == {'VDU1': 3}
    assert capacity.scaled(f, instance(2, vdu1=3), back) == {'VDU1': 2}
    # Without vnfcResourceInfo: counted from the aspect's level.
    assert capacity.scaled(f, instance(1), back) == {'VDU1': 1}


def test_a_scale_beyond_the_aspect_is_refused_saying_where_it_would_go():
    request = {
        'type': 'SCALE_OUT',
        'aspectId': 'VDU1_scale',
        'numberOfSteps': 3,
    }

    with pytest.raises(exceptions.OperationFailed) as e:
        capacity.scaled(sample_flavour(), instance(0, vdu1=1), request)

    assert str(e.value) == (
        'Scaling aspect VDU1_scale from level 0 by 3 steps would reach '
        'level 3, outside 0 to 2.'
    )


def test_an_unknown_aspect_is_refused():
    with pytest.raises(exceptions.OperationFailed, match='no scaling aspect'):
        capacity.scaled(sample_flavour(), instance(0), {'aspectId': 'nope'})


def test_recorded_counts_are_a_rollbacks_target():
    f = sample_flavour()

    assert capacity.recorded(f, instance(1, vdu1=2), ['VDU1', 'VDU2']) == {
        'VDU1': 2,
        'VDU2': 1,
    }
    assert capacity.recorded(f, instance(2), ['VDU1', 'VDU2']) == {
        'VDU1': 3,
        'VDU2': 1,
    }
