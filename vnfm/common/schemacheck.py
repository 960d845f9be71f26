"""JSON Schema validation with errors a person can act on: the failing
attribute path, then what is wrong with it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jsonschema
from jsonschema import exceptions as js_exceptions

_MAX_DETAIL = 300


_compiled: dict[int, jsonschema.Validator] = {}


def compile_schema(schema: dict) -> jsonschema.Validator:
    """A validator for ``schema``, built once per schema object."""
    validator = _compiled.get(id(schema))
    if validator is None:
        cls = jsonschema.validators.validator_for(
            schema, default=jsonschema.Draft202012Validator
        )
        cls.check_schema(schema)
        validator = _compiled[id(schema)] = cls(schema)
    return validator


def path(parts: Any) -> str:
    """A JSON path as ``a/b/0``."""
    return '/'.join(str(p) for p in parts)


#: A schema keyword of vnfm: what to say when a value breaks the schema it
#: sits in, instead of jsonschema's message (which quotes the value).
ERROR_TEXT = 'x-error'


def describe(
    error: js_exceptions.ValidationError,
    prefix: Sequence[str] = (),
    secret_keys: frozenset[str] = frozenset(),
) -> str:
    """One line: ``attribute/path: what is wrong``; the path starts with
    ``prefix`` (where the validated value sits in a request). A value
    under one of ``secret_keys`` is never quoted."""
    where = path([*prefix, *error.absolute_path])
    if isinstance(error.schema, dict) and ERROR_TEXT in error.schema:
        return f'{where}: {error.schema[ERROR_TEXT]}'
    if secret_keys.intersection(map(str, error.absolute_path)):
        return (
            f'{where}: breaks the rule {error.validator} '
            f'{error.validator_value!r} (the value is not shown).'
        )
    required = error.validator_value
    if (
        error.validator == 'required'
        and isinstance(error.instance, dict)
        and isinstance(required, list)
    ):
        missing = next((r for r in required if r not in error.instance), '')
        where = f'{where}/{missing}' if where else str(missing)
        return f'{where}: is a required property'
    message = error.message
    if len(message) > _MAX_DETAIL:
        message = message[:_MAX_DETAIL] + '...'
    return f'{where or "request body"}: {message}'


def first_error(
    schema: dict,
    value: Any,
    prefix: Sequence[str] = (),
    secret_keys: frozenset[str] = frozenset(),
) -> str | None:
    """``describe`` of the first problem of ``value`` against ``schema``;
    None when it is valid."""
    validator = compile_schema(schema)
    if validator.is_valid(value):
        return None
    error = js_exceptions.best_match(validator.iter_errors(value))
    return describe(error, prefix, secret_keys)
