"""Connection points, virtual storages, virtual links and compute flavours
of a flavour's node templates (what a Heat template is computed from)."""

import math
import re
from typing import Any

from vnfm.csar.model import Cp
from vnfm.csar.model import VirtualStorage
from vnfm.csar.types import VDU_CP
from vnfm.csar.types import VIRTUAL_LINK
from vnfm.csar.types import VIRTUAL_STORAGE
from vnfm.csar.types import TypeRegistry

_GIB = 2**30
_UNITS = {
    'b': 1,
    'kb': 10**3,
    'kib': 2**10,
    'mb': 10**6,
    'mib': 2**20,
    'gb': 10**9,
    'gib': 2**30,
    'tb': 10**12,
    'tib': 2**40,
}
_SIZE = re.compile(r'^\s*([0-9.]+)\s*([A-Za-z]+)?\s*$')


def requirement_targets(node: dict[str, Any], key: str) -> list[str]:
    """Node names a template's ``requirements`` give for ``key`` (either
    ``- key: name`` or ``- key: {node: name}``)."""
    out = []
    for req in node.get('requirements') or []:
        target = req.get(key) if isinstance(req, dict) else None
        if isinstance(target, dict):
            target = target.get('node')
        if isinstance(target, str):
            out.append(target)
    return out


def compute_flavour(node: dict[str, Any]) -> str | None:
    """The requested_additional_capability_name of a VDU's virtual_compute.

    Tacker's packages nest it under ``requested_additional_capabilities.
    properties``; SOL001 keys each capability by a name: both are read.
    """
    caps = (node.get('capabilities') or {}).get('virtual_compute') or {}
    props = caps.get('properties') if isinstance(caps, dict) else None
    requested = (props or {}).get('requested_additional_capabilities')
    if not isinstance(requested, dict):
        return None
    for entry in (requested, *requested.values()):
        name = (
            entry.get('requested_additional_capability_name')
            if isinstance(entry, dict)
            else None
        )
        if isinstance(name, str) and name:
            return name
    return None


def of_type(
    nodes: dict[str, Any], types: TypeRegistry, base: str
) -> dict[str, dict[str, Any]]:
    """The node templates whose type is or derives from ``base``."""
    return {
        name: node
        for name, node in nodes.items()
        if isinstance(node, dict) and types.base_of(node.get('type'), (base,))
    }


def cps(nodes: dict[str, Any], types: TypeRegistry) -> dict[str, Cp]:
    """The VduCp templates with their binding and internal link."""
    out = {}
    for name, node in of_type(nodes, types, VDU_CP).items():
        order = (node.get('properties') or {}).get('order')
        out[name] = Cp(
            name=name,
            vdu=next(iter(requirement_targets(node, 'virtual_binding')), None),
            virtual_link=next(
                iter(requirement_targets(node, 'virtual_link')), None
            ),
            order=order if isinstance(order, int) else None,
        )
    return out


def storages(
    nodes: dict[str, Any], types: TypeRegistry
) -> dict[str, VirtualStorage]:
    """The VirtualBlockStorage templates with their size and image."""
    out = {}
    for name, node in of_type(nodes, types, VIRTUAL_STORAGE).items():
        props = node.get('properties') or {}
        data = props.get('virtual_block_storage_data') or {}
        size = data.get('size_of_storage') if isinstance(data, dict) else None
        image = props.get('sw_image_data')
        out[name] = VirtualStorage(
            name=name,
            size_gb=scalar_size(size, _GIB) if size is not None else None,
            sw_image=dict(image) if isinstance(image, dict) else None,
        )
    return out


def virtual_links(nodes: dict[str, Any], types: TypeRegistry) -> list[str]:
    """Names of the VnfVirtualLink templates."""
    return sorted(of_type(nodes, types, VIRTUAL_LINK))


def scalar_size(value: Any, unit: int) -> int | None:
    """A TOSCA scalar-unit.size ('1 GB', '512 MiB') in ``unit`` bytes.

    The result is rounded up.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return math.ceil(value / unit)
    m = _SIZE.match(value) if isinstance(value, str) else None
    factor = _UNITS.get((m.group(2) or 'b').lower()) if m else None
    if not m or factor is None:
        return None
    try:
        return math.ceil(float(m.group(1)) * factor / unit)
    except ValueError:
        return None
