"""JSON Schema validation of request bodies, with details a person can
act on: the failing attribute path, then what is wrong with it."""

from __future__ import annotations

from typing import Any

import jsonschema
from jsonschema import exceptions as js_exceptions

from vnfm.common import exceptions

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


def _path(parts: Any) -> str:
    return '/'.join(str(p) for p in parts)


def describe(error: js_exceptions.ValidationError) -> str:
    """One line: ``attribute/path: what is wrong``."""
    path = _path(error.absolute_path)
    required = error.validator_value
    if (
        error.validator == 'required'
        and isinstance(error.instance, dict)
        and isinstance(required, list)
    ):
        missing = next((r for r in required if r not in error.instance), '')
        where = f'{path}/{missing}' if path else str(missing)
        return f'{where}: is a required property'
    message = error.message
    if len(message) > _MAX_DETAIL:
        message = message[:_MAX_DETAIL] + '...'
    return f'{path or "request body"}: {message}'


def reject_nul(body: Any) -> None:
    """BadRequest naming the attribute if a string of ``body`` (a key or a
    value) holds U+0000, which PostgreSQL cannot store in text or jsonb."""
    stack: list[tuple[tuple, Any]] = [((), body)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if '\x00' in value:
                _nul_error(path, 'contains')
        elif isinstance(value, dict):
            if any('\x00' in key for key in value):
                _nul_error(path, 'has a key that contains')
            stack.extend(((*path, k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))


def _nul_error(path: tuple, what: str) -> None:
    raise exceptions.BadRequest(
        f'{_path(path) or "request body"}: {what} the character U+0000 '
        '(NUL), which no attribute may hold.'
    )


def validate(schema: dict, body: Any) -> None:
    """BadRequest naming the first problem if ``body`` breaks ``schema``."""
    validator = compile_schema(schema)
    if validator.is_valid(body):
        return
    error = js_exceptions.best_match(validator.iter_errors(body))
    raise exceptions.BadRequest(describe(error))
