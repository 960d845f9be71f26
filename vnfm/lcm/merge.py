"""JSON Merge Patch (RFC 7396), as SOL003 uses for metadata, extensions,
vnfConfigurableProperties and vimConnectionInfo."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


def merge_patch(target: Any, patch: Any) -> Any:
    """``target`` with ``patch`` applied; neither argument is changed."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def request_properties(
    instance: Mapping[str, Any], request: dict
) -> dict[str, Any]:
    """Instance columns with the request's ``extensions`` and
    ``vnfConfigurableProperties`` merged in (those it gives)."""
    values = {}
    for key, column in (
        ('extensions', 'extensions'),
        ('vnfConfigurableProperties', 'vnf_configurable_properties'),
    ):
        if request.get(key) is not None:
            values[column] = merge_patch(instance.get(column), request[key])
    return values
