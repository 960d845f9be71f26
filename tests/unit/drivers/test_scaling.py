"""Instance counts from the sample CNF's VNFD."""

import pathlib

import pytest

from vnfm.csar import read_csar
from vnfm.csar.build import build_csar
from vnfm.drivers import scaling

SAMPLE = pathlib.Path(__file__).resolve().parents[3] / 'samples' / 'packages'


@pytest.fixture(scope='module')
def flavour():
    vnfd = read_csar(build_csar(str(SAMPLE / 'cnf_simple'))).vnfd.to_dict()
    return scaling.flavour_of(vnfd, 'simple')


def test_instantiation_levels(flavour):
    assert scaling.initial_counts(flavour, None) == {'VDU1': 1, 'VDU2': 1}
    assert scaling.initial_counts(flavour, 'instantiation_level_2') == {
        'VDU1': 2,
        'VDU2': 1,
    }
    assert scaling.initial_levels(flavour, 'instantiation_level_2') == {
        'vdu1_aspect': 1
    }
    with pytest.raises(Exception, match='instantiationLevelId'):
        scaling.initial_counts(flavour, 'nope')


def test_scale_levels_and_counts(flavour):
    levels = scaling.scaled_levels(
        flavour,
        {'vdu1_aspect': 0},
        {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect', 'numberOfSteps': 3},
    )
    assert levels == {'vdu1_aspect': 3}
    assert scaling.counts_at(flavour, 'VDU1', levels) == 4
    with pytest.raises(scaling.ScaleNotPossible, match='outside 0..3'):
        scaling.scaled_levels(
            flavour, levels, {'type': 'SCALE_OUT', 'aspectId': 'vdu1_aspect'}
        )
    with pytest.raises(scaling.ScaleNotPossible, match='outside 0..3'):
        scaling.scaled_levels(
            flavour, {}, {'type': 'SCALE_IN', 'aspectId': 'vdu1_aspect'}
        )
    with pytest.raises(scaling.ScaleNotPossible, match='vdu_profile 1..4'):
        scaling.check_bounds(flavour, {'VDU1': 5})


def test_scale_status(flavour):
    assert scaling.scale_status(flavour, {'vdu1_aspect': 2}) == {
        'scaleStatus': [{'aspectId': 'vdu1_aspect', 'scaleLevel': 2}],
        'maxScaleLevels': [{'aspectId': 'vdu1_aspect', 'scaleLevel': 3}],
    }


def _vnfc(vnfc_id: str, vdu: str, created: str) -> dict:
    return {
        'id': vnfc_id,
        'vduId': vdu,
        'metadata': {'creation_time': created},
    }


INFO = {
    'vnfcResourceInfo': [
        _vnfc('w1', 'worker', '2026-11-26T06:00:00Z'),
        _vnfc('w3', 'worker', '2026-11-26T06:02:00Z'),
        _vnfc('w2', 'worker', '2026-11-26T06:01:00Z'),
        _vnfc('m1', 'master', '2026-11-26T05:00:00Z'),
    ],
    'vnfcInfo': [{'id': 'worker-w1', 'vnfcResourceInfoId': 'w1'}],
}


def test_a_scale_in_removes_the_named_vnfcs_then_the_newest():
    def victims(counts, named=()):
        return [
            e['id']
            for e in scaling.scale_in_victims(INFO, counts, list(named))
        ]

    assert victims({'worker': 2, 'master': 1}) == ['w3']
    assert victims({'worker': 1}) == ['w2', 'w3']
    assert victims({'worker': 2}, ['worker-w1']) == ['w1']
    assert victims({'worker': 1}, ['w1']) == ['w1', 'w3']
    assert victims({'worker': 3}) == []
