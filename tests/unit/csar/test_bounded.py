"""The one bounded parser of YAML and JSON from outside."""

from __future__ import annotations

import time

import pytest

from tests.unit import hostile_values
from vnfm.csar import bounded


def test_an_alias_bomb_is_refused_before_it_expands():
    start = time.monotonic()
    with pytest.raises(bounded.TooManyNodes, match='^m.yaml: YAML of more'):
        bounded.load_yaml('m.yaml', hostile_values.yaml_bomb(levels=12))
    assert time.monotonic() - start < 5


def test_the_node_limit_holds_for_a_whole_stream():
    doc = 'a: [' + ','.join(['1'] * 90) + ']\n'
    limits = bounded.Limits(max_nodes=1000)
    assert len(bounded.load_yaml_all('s', '---\n' + doc * 1, limits)) == 1
    with pytest.raises(bounded.TooManyNodes):
        bounded.load_yaml_all('s', ('---\n' + doc) * 20, limits)


@pytest.mark.parametrize(
    'text, words',
    [
        ('[' * 200 + ']' * 200, 'JSON nested too deeply (over 100 levels)'),
        ('["' + 'x' * (2 << 20) + '"]', 'JSON with a string of 2097152'),
        ('[1, 2', 'not valid JSON'),
        (' ' * (9 << 20), 'larger than the limit of 8388608 bytes'),
    ],
    ids=['deep', 'huge-string', 'syntax', 'huge'],
)
def test_json_out_of_bounds_is_named(text: str, words: str):
    with pytest.raises(bounded.BadDocument) as e:
        bounded.load_json('answer', text)
    assert e.value.detail.startswith('answer: ') and words in e.value.detail


def test_documents_come_back_as_json_data():
    doc = bounded.load_yaml('d', 'when: 2024-01-01\n1: [a, {b: null}]\n')
    assert doc == {'when': '2024-01-01', '1': ['a', {'b': None}]}
    assert bounded.load_json('j', b'{"a": [1, 2.5, true]}') == {
        'a': [1, 2.5, True]
    }
