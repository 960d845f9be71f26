"""Request bodies vnfm cannot store, or that break their schema, are a
400 naming the attribute."""

from __future__ import annotations

import pytest

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.server import validation


@pytest.mark.parametrize(
    'body,detail',
    [
        (
            {'metadata': {'note': 'a\x00b'}},
            'metadata/note: contains the character U+0000 (NUL), which no '
            'attribute may hold.',
        ),
        (
            {'extensions': {'k\x00': 1}},
            'extensions: has a key that contains the character U+0000 '
            '(NUL), which no attribute may hold.',
        ),
        (
            {'vnfcIds': ['ok', 'no\x00']},
            'vnfcIds/1: contains the character U+0000 (NUL), which no '
            'attribute may hold.',
        ),
        (
            'text\x00',
            'request body: contains the character U+0000 (NUL), which no '
            'attribute may hold.',
        ),
    ],
)
def test_nul_anywhere_is_a_400_naming_where(body, detail):
    with pytest.raises(exceptions.BadRequest) as e:
        validation.reject_unstorable(body)

    assert str(e.value) == detail


def test_a_request_cannot_bring_its_own_sealed_secrets():
    body = {'vimConnectionInfo': {'v': {crypto.SEALED: 'forged'}}}

    with pytest.raises(exceptions.BadRequest) as e:
        validation.reject_unstorable(body)

    assert str(e.value).startswith(
        f'vimConnectionInfo/v/{crypto.SEALED}: is a name vnfm keeps for the '
        'secrets it encrypts'
    )


def test_a_storable_body_passes():
    validation.reject_unstorable(
        {'a': ['x', {'b': 'ü-日本語-😀', 'n': 1, 'none': None}], 'c': True}
    )


def test_validate_is_a_400_with_the_first_problem():
    schema = {
        'type': 'object',
        'properties': {'flavourId': {'type': 'string'}},
        'required': ['flavourId'],
    }

    validation.validate(schema, {'flavourId': 'simple'})
    with pytest.raises(exceptions.BadRequest) as e:
        validation.validate(schema, {})
    assert str(e.value) == 'flavourId: is a required property'
