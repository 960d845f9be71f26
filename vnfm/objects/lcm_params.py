"""The ``additionalParams`` Tacker's users know by name, checked by the API
before an op is recorded: each reaches a URL (``namespace``, a path
segment of the Kubernetes API), a file of the package or Python code run
in the sandbox; a wrong one is a 400 naming it rather than a failed op.
"""

from __future__ import annotations

from typing import Any

from vnfm.common import exceptions
from vnfm.common import schemacheck

_ERROR = schemacheck.ERROR_TEXT
#: A file of the VNF package (looked up by name, never opened as a path).
PACKAGE_PATH = {
    'type': 'string',
    'pattern': r'^(?!/)(?!.*(^|/)\.\.(/|$))[^\x00]+$',
    'maxLength': 1024,
    _ERROR: "must be a file's path in the VNF package, relative to its "
    "root, without '..'.",
}
SCHEMA: dict[str, Any] = {
    'type': 'object',
    'properties': {
        'namespace': {
            'type': 'string',
            'pattern': r'^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
            'maxLength': 63,
            _ERROR: 'must be a Kubernetes namespace name (RFC 1123 label: '
            'lower case letters, digits and -, at most 63).',
        },
        'lcm-kubernetes-def-files': {
            'type': 'array',
            'maxItems': 1024,
            'items': PACKAGE_PATH,
        },
        'lcm-operation-user-data': PACKAGE_PATH,
        'lcm-operation-user-data-class': {
            'type': 'string',
            'pattern': r'^[A-Za-z_][A-Za-z0-9_]*$',
            'maxLength': 255,
            _ERROR: 'must be the name of a Python class.',
        },
    },
}


def check(additional_params: Any) -> None:
    """BadRequest naming the parameter when a known one is wrong."""
    problem = schemacheck.first_error(
        SCHEMA, additional_params or {}, ('additionalParams',)
    )
    if problem is not None:
        raise exceptions.BadRequest(problem)
