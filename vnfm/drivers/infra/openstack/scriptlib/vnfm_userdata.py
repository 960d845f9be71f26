"""vnfm's helper module for user-data classes (``lcm-operation-user-data``).

vnfm runs a package's user-data class in a sandboxed interpreter where
Tacker's modules are not available; this module gives what such a class
needs instead::

    import vnfm_userdata

    class MyUserData:
        @staticmethod
        def instantiate(req, inst, grant_req, grant, csar_dir):
            result = vnfm_userdata.builtin()  # vnfm's own computation
            nfv = result['parameters']['nfv']
            nfv['VDU']['VDU1']['locationConstraints'] = 'az-1'
            return {'parameters': {'nfv': nfv}}

Everything here is plain data (the JSON vnfm sent), computed by vnfm before
the class runs. The module uses only the standard library.
"""

from __future__ import annotations

import copy
from typing import Any

NFV = 'nfv'

_doc: dict[str, Any] = {}


class UserDataError(Exception):
    """What vnfm could not compute for this operation (its detail)."""


def _set(doc: dict[str, Any]) -> None:
    """Called by vnfm's runner with the operation's document."""
    _doc.clear()
    _doc.update(doc)


def operation() -> str:
    """The method being run: 'instantiate', 'scale', 'scale_rollback',
    'heal', 'change_vnfpkg' or 'change_vnfpkg_rollback'."""
    return _doc['operation']


def vnfd() -> dict[str, Any]:
    """The VNFD of the package the class comes from, as vnfm models it:
    ``vnfd_id``, ``flavours.<id>.vdus.<vdu>`` (``sw_image``,
    ``compute_flavour``, ``min_instances``, ``max_instances``,
    ``initial_delta``, ``storages``), ``flavours.<id>.cps.<cp>`` (``vdu``,
    ``virtual_link``), ``flavours.<id>.storages``, ``scaling_aspects``,
    ``instantiation_levels``, and ``raw_templates`` (every VNFD document
    of the package, parsed)."""
    return copy.deepcopy(_doc['vnfd'])


def flavour() -> dict[str, Any]:
    """The instance's deployment flavour in ``vnfd()``."""
    return vnfd()['flavours'][_doc['flavour_id']]


def base_hot() -> dict[str, Any]:
    """The flavour's base HOT, parsed: ``{'template': {...},
    'nested_templates': {name: {...}}}``."""
    return _computed('base_hot')


def builtin() -> dict[str, Any]:
    """What vnfm computes for this operation without user data (Tacker's
    StandardUserData conventions): ``{'template': {...},
    'nested_templates': {...}, 'parameters': {'nfv': {...}}}``."""
    return _computed('builtin')


def current_parameters() -> dict[str, Any]:
    """The running stack's parameters ({} for instantiate)."""
    return copy.deepcopy(_doc.get('current') or {})


def _computed(key: str) -> dict[str, Any]:
    value = _doc.get(key) or {}
    if 'error' in value:
        raise UserDataError(value['error'])
    return copy.deepcopy(value)


def nfv_paths(*templates: Any) -> set[tuple[str, str, str]]:
    """Every (kind, name, key) the templates read with
    ``get_param: [nfv, kind, name, key, ...]`` (kind is VDU or CP)."""
    found: set[tuple[str, str, str]] = set()
    stack: list[Any] = list(templates)
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            path = node.get('get_param')
            if (
                isinstance(path, list)
                and len(path) >= 4
                and path[0] == NFV
                and all(isinstance(p, str) for p in path[1:4])
            ):
                found.add((path[1], path[2], path[3]))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def init_nfv_dict(*templates: Any) -> dict[str, Any]:
    """The ``nfv`` skeleton the templates read, every value None:
    ``{'VDU': {vdu: {key: None}}, 'CP': {cp: {key: None}}}``."""
    out: dict[str, Any] = {}
    for kind, name, key in sorted(nfv_paths(*templates)):
        out.setdefault(kind, {}).setdefault(name, {})[key] = None
    return out
