"""JSON Merge Patch (RFC 7396) of metadata, extensions and
vnfConfigurableProperties, as a PATCH of an instance applies it."""

from __future__ import annotations

import copy

import pytest

from vnfm.lcm import merge


@pytest.mark.parametrize(
    'target,patch,result',
    [
        # RFC 7396 appendix A, the cases SOL003 requests can carry.
        ({'a': 'b'}, {'a': 'c'}, {'a': 'c'}),
        ({'a': 'b'}, {'b': 'c'}, {'a': 'b', 'b': 'c'}),
        ({'a': 'b'}, {'a': None}, {}),
        ({'a': 'b', 'b': 'c'}, {'a': None}, {'b': 'c'}),
        ({'a': ['b']}, {'a': 'c'}, {'a': 'c'}),
        ({'a': 'c'}, {'a': ['b']}, {'a': ['b']}),
        (
            {'a': {'b': 'c'}},
            {'a': {'b': 'd', 'c': None}},
            {'a': {'b': 'd'}},
        ),
        ({'a': [{'b': 'c'}]}, {'a': [1]}, {'a': [1]}),
        (['a', 'b'], ['c', 'd'], ['c', 'd']),
        ({'a': 'b'}, ['c'], ['c']),
        ({'e': None}, {'a': 1}, {'e': None, 'a': 1}),
        ([1, 2], {'a': 'b', 'c': None}, {'a': 'b'}),
        ({}, {'a': {'bb': {'ccc': None}}}, {'a': {'bb': {}}}),
        (None, {'a': 'b'}, {'a': 'b'}),
    ],
)
def test_merge_patch_follows_rfc_7396(target, patch, result):
    assert merge.merge_patch(target, patch) == result


def test_merge_patch_changes_neither_argument():
    target = {'a': {'b': [1, 2]}, 'gone': 'x'}
    patch = {'a': {'c': {'d': 1}}, 'gone': None}
    before = copy.deepcopy((target, patch))

    result = merge.merge_patch(target, patch)
    result['a']['b'].append(3)
    result['a']['c']['d'] = 2

    assert (target, patch) == before


def test_request_properties_merge_only_what_the_request_gives():
    instance = {
        'extensions': {'keep': 1, 'drop': 2},
        'vnf_configurable_properties': {'isAutoscaleEnabled': True},
        'metadata': {'owner': 'a'},
    }

    values = merge.request_properties(
        instance, {'extensions': {'drop': None, 'new': 3}}
    )

    assert values == {'extensions': {'keep': 1, 'new': 3}}


def test_request_properties_of_an_instance_without_them():
    values = merge.request_properties(
        {'extensions': None},
        {
            'extensions': {'a': 1},
            'vnfConfigurableProperties': {'isAutohealEnabled': False},
        },
    )

    assert values == {
        'extensions': {'a': 1},
        'vnf_configurable_properties': {'isAutohealEnabled': False},
    }


def test_request_properties_of_a_request_without_them_is_empty():
    instance = {'extensions': {'a': 1}}

    assert merge.request_properties(instance, {'metadata': {'x': 1}}) == {}
    assert merge.request_properties(instance, {'extensions': None}) == {}
