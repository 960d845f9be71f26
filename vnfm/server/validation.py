"""JSON Schema validation of request bodies, with details a person can
act on: the failing attribute path, then what is wrong with it."""

from __future__ import annotations

from typing import Any

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.common import schemacheck


def reject_unstorable(body: Any) -> None:
    """BadRequest naming the attribute if a string of ``body`` (a key or a
    value) holds U+0000, which PostgreSQL cannot store in text or jsonb,
    or a key is ``_sealed``, where only vnfm keeps the secrets it
    encrypted."""
    stack: list[tuple[tuple, Any]] = [((), body)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if '\x00' in value:
                _nul_error(path, 'contains')
        elif isinstance(value, dict):
            if any('\x00' in key for key in value):
                _nul_error(path, 'has a key that contains')
            if crypto.SEALED in value:
                raise exceptions.BadRequest(
                    f'{schemacheck.path((*path, crypto.SEALED))}: is a name '
                    'vnfm keeps for the secrets it encrypts; a request '
                    'cannot use it (rename the attribute).'
                )
            stack.extend(((*path, k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))


def _nul_error(path: tuple, what: str) -> None:
    where = schemacheck.path(path) or 'request body'
    raise exceptions.BadRequest(
        f'{where}: {what} the character U+0000 '
        '(NUL), which no attribute may hold.'
    )


def validate(schema: dict, body: Any) -> None:
    """BadRequest naming the first problem if ``body`` breaks ``schema``."""
    problem = schemacheck.first_error(schema, body)
    if problem is not None:
        raise exceptions.BadRequest(problem)
