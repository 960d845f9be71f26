"""Scale VNF to Level: target levels and the per-aspect steps."""

from __future__ import annotations

import pytest

from vnfm.objects import scale_level

FLAVOUR = {
    'flavour_id': 'simple',
    'scaling_aspects': {
        'a': {'max_scale_level': 3},
        'b': {'max_scale_level': 2},
        'c': {'max_scale_level': 1},
    },
    'instantiation_levels': {
        'small': {'scale_info': {'a': {'scale_level': 0}}},
        'big': {
            'scale_info': {'a': {'scale_level': 3}, 'b': {'scale_level': 2}}
        },
    },
}
CURRENT = {'a': 1, 'b': 1, 'c': 1}


def test_level_by_instantiation_level_sets_every_aspect():
    target = scale_level.target_levels(
        FLAVOUR, CURRENT, {'instantiationLevelId': 'big'}
    )
    # Aspects the level does not name are at level 0 in it.
    assert target == {'a': 3, 'b': 2, 'c': 0}


def test_level_by_scale_info_keeps_unnamed_aspects():
    target = scale_level.target_levels(
        FLAVOUR, CURRENT, {'scaleInfo': [{'aspectId': 'b', 'scaleLevel': 0}]}
    )
    assert target == {'a': 1, 'b': 0, 'c': 1}


def test_steps_scale_in_first_and_skip_unchanged():
    steps = scale_level.steps(CURRENT, {'a': 3, 'b': 1, 'c': 0})
    assert steps == [
        {'type': 'SCALE_IN', 'aspectId': 'c', 'numberOfSteps': 1},
        {'type': 'SCALE_OUT', 'aspectId': 'a', 'numberOfSteps': 2},
    ]
    assert scale_level.steps(CURRENT, CURRENT) == []


@pytest.mark.parametrize(
    'request_,words,unknown_level',
    [
        ({'instantiationLevelId': 'huge'}, 'instantiationLevelId huge', True),
        (
            {'scaleInfo': [{'aspectId': 'z', 'scaleLevel': 1}]},
            'aspectId z',
            False,
        ),
        (
            {'scaleInfo': [{'aspectId': 'b', 'scaleLevel': 3}]},
            'outside 0..2',
            False,
        ),
    ],
)
def test_unreachable_target_is_named(request_, words, unknown_level):
    with pytest.raises(scale_level.LevelError) as e:
        scale_level.target_levels(FLAVOUR, CURRENT, request_)
    assert words in e.value.detail
    assert e.value.unknown_level is unknown_level


def test_current_levels_of_instantiated_vnf_info():
    info = {'scaleStatus': [{'aspectId': 'a', 'scaleLevel': 2}]}
    assert scale_level.current_levels(info) == {'a': 2}
    assert scale_level.current_levels(None) == {}
