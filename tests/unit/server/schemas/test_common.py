"""The building blocks of request schemas: bounds the database can keep,
unknown attributes allowed (SOL013 4.5)."""

from __future__ import annotations

import pytest

from vnfm.common import schemacheck
from vnfm.server.schemas import common


@pytest.mark.parametrize(
    'schema,valid,invalid',
    [
        (common.IDENTIFIER, ['a', 'x' * 255], ['', 'x' * 256, 7]),
        (common.NAME, ['', 'x' * 255], ['x' * 256, None]),
        (common.URI, ['h', 'x' * 2048], ['', 'x' * 2049]),
        (common.NON_NEGATIVE_INT, [0, 2**31 - 1], [-1, 2**31, 1.5, '1']),
        (common.POSITIVE_INT, [1], [0]),
        (common.KEY_VALUE_PAIRS, [{}, {'a': [1]}], [[], 'a']),
        (common.BOOLEAN, [True, False], [0, 'true']),
    ],
)
def test_bounds(schema, valid, invalid):
    for value in valid:
        assert schemacheck.first_error(schema, value) is None, value
    for value in invalid:
        assert schemacheck.first_error(schema, value) is not None, value


def test_an_object_allows_unknown_attributes_and_requires_its_own():
    schema = common.obj({'a': common.NAME}, required=('a',))

    assert schemacheck.first_error(schema, {'a': 'x', 'vendorExt': 1}) is None
    assert schemacheck.first_error(schema, {'vendorExt': 1}) == (
        'a: is a required property'
    )


def test_min_properties_refuses_an_empty_object():
    schema = common.obj({'a': common.NAME}, min_properties=1)

    assert schemacheck.first_error(schema, {}) is not None
    assert schemacheck.first_error(schema, {'a': ''}) is None


def test_array_of_checks_each_item_and_the_count():
    schema = common.array_of(common.IDENTIFIER, min_items=1)

    assert schemacheck.first_error(schema, ['a', 'b']) is None
    assert schemacheck.first_error(schema, []) is not None
    assert schemacheck.first_error(schema, ['a', '']).startswith('1: ')
