"""Schema errors a person can act on: where, then what is wrong, and
never a secret value."""

from __future__ import annotations

import pytest
from jsonschema import exceptions as js_exceptions

from vnfm.common import schemacheck

SCHEMA = {
    'type': 'object',
    'properties': {
        'flavourId': {'type': 'string'},
        'vimConnectionInfo': {
            'type': 'object',
            'additionalProperties': {
                'type': 'object',
                'required': ['vimType'],
                'properties': {
                    'vimType': {'type': 'string'},
                    'accessInfo': {
                        'type': 'object',
                        'properties': {
                            'password': {'type': 'string', 'maxLength': 8},
                        },
                    },
                },
            },
        },
        'count': {
            'type': 'integer',
            'minimum': 1,
            'x-error': 'must be a whole number of at least 1',
        },
    },
    'required': ['flavourId'],
}


def test_a_valid_value_has_no_error():
    assert schemacheck.first_error(SCHEMA, {'flavourId': 'simple'}) is None


def test_a_missing_property_is_named_with_its_path():
    body = {'flavourId': 'simple', 'vimConnectionInfo': {'vim1': {}}}

    assert schemacheck.first_error(SCHEMA, body) == (
        'vimConnectionInfo/vim1/vimType: is a required property'
    )


def test_a_missing_top_level_property_is_named_alone():
    assert schemacheck.first_error(SCHEMA, {}) == (
        'flavourId: is a required property'
    )


def test_the_path_starts_with_the_prefix():
    error = schemacheck.first_error(
        SCHEMA, {'flavourId': 3}, prefix=('additionalParams', 'k8s')
    )

    assert error == "additionalParams/k8s/flavourId: 3 is not of type 'string'"


def test_a_wrong_body_says_request_body():
    assert schemacheck.first_error(SCHEMA, []) == (
        "request body: [] is not of type 'object'"
    )


def test_the_schema_own_error_text_replaces_jsonschema_message():
    error = schemacheck.first_error(SCHEMA, {'flavourId': 'a', 'count': 0})

    assert error == 'count: must be a whole number of at least 1'


def test_a_secret_value_is_never_quoted():
    body = {
        'flavourId': 'a',
        'vimConnectionInfo': {
            'vim1': {
                'vimType': 'X',
                'accessInfo': {'password': 'hunter2-but-longer'},
            }
        },
    }

    error = schemacheck.first_error(
        SCHEMA, body, secret_keys=frozenset({'password'})
    )

    assert error is not None
    assert 'hunter2' not in error
    assert error.startswith('vimConnectionInfo/vim1/accessInfo/password: ')
    assert 'the value is not shown' in error


def test_a_long_message_is_cut():
    error = schemacheck.first_error(SCHEMA, {'flavourId': ['x' * 1000]})

    assert error is not None
    assert len(error) < 400
    assert error.endswith('...')


def test_an_invalid_schema_is_refused():
    with pytest.raises(js_exceptions.SchemaError):
        schemacheck.compile_schema({'type': 'no-such-type'})


def test_path_joins_keys_and_indexes():
    assert schemacheck.path(['a', 0, 'b']) == 'a/0/b'
    assert schemacheck.path([]) == ''
