"""Building blocks of the request schemas (SOL013 7.2 / SOL003 4.4)."""

from __future__ import annotations

# SOL013 7.2.2 Identifier; 255 is the longest the database keeps.
IDENTIFIER = {'type': 'string', 'minLength': 1, 'maxLength': 255}
NAME = {'type': 'string', 'maxLength': 255}
DESCRIPTION = {'type': 'string', 'maxLength': 1024}
URI = {'type': 'string', 'minLength': 1, 'maxLength': 2048}
# SOL013 7.2.6 KeyValuePairs: any JSON object.
KEY_VALUE_PAIRS = {'type': 'object'}
BOOLEAN = {'type': 'boolean'}
# Bounded so no arithmetic on it can overflow a database column.
NON_NEGATIVE_INT = {'type': 'integer', 'minimum': 0, 'maximum': 2**31 - 1}
POSITIVE_INT = {'type': 'integer', 'minimum': 1, 'maximum': 2**31 - 1}


def array_of(items: dict, min_items: int = 0) -> dict:
    """A JSON array of ``items``."""
    return {'type': 'array', 'items': items, 'minItems': min_items}


def obj(
    properties: dict, required: tuple[str, ...] = (), min_properties: int = 0
) -> dict:
    """A JSON object; unknown attributes are allowed (SOL013 4.5)."""
    schema: dict = {'type': 'object', 'properties': properties}
    if required:
        schema['required'] = list(required)
    if min_properties:
        schema['minProperties'] = min_properties
    return schema
