"""MgmtDriver hooks: ``interfaces.Vnflcm`` operations and their artifacts."""

import re
from typing import Any

from vnfm.csar.errors import InvalidPackage
from vnfm.csar.model import BUILTIN_ARTIFACT_TYPE
from vnfm.csar.model import HOOK_NAMES
from vnfm.csar.model import Hook
from vnfm.csar.topology import resolve_file

# Standard SOL001 Vnflcm operations that are LCM operations themselves, and
# the standard hooks vnfm does not run (scale_to_level runs the scale
# hooks); both are refused when given an implementation.
_SOL001_OPS = (
    'instantiate',
    'terminate',
    'modify_information',
    'change_flavour',
    'change_external_connectivity',
    'operate',
    'heal',
    'scale',
    'scale_to_level',
    'change_current_package',
)
_UNSUPPORTED = tuple(
    f'{op}_{w}' for op in ('scale_to_level',) for w in ('start', 'end')
)
_IFACE_KEYS = (
    'type',
    'inputs',
    'description',
    'notifications',
    'derived_from',
)
_BUILTIN_NAME = re.compile(r'^[a-z][a-z0-9_]*$')


def parse_hooks(
    sources: list[tuple[str, str, dict[str, Any]]], files: dict[str, bytes]
) -> dict[str, Hook]:
    """Hooks of a VNF node.

    ``sources`` are (file, node name, node) tuples; the first one wins.
    """
    artifacts: dict[str, tuple[str, str, Any]] = {}
    ops: dict[str, tuple[str, str, Any]] = {}
    for path, node_name, node in sources:
        for aname, art in (node.get('artifacts') or {}).items():
            artifacts.setdefault(aname, (path, node_name, art))
        for oname, op in _vnflcm_ops(path, node_name, node).items():
            ops.setdefault(oname, (path, node_name, op))
    hooks: dict[str, Hook] = {}
    for oname, (path, node_name, op) in ops.items():
        impl, description = _implementation(op)
        where = f'{path}: node {node_name}: interfaces.Vnflcm.{oname}'
        _check_name(where, oname, impl)
        if impl is not None:
            hooks[oname] = _hook(
                where, oname, impl, description, artifacts, path, files
            )
    return {name: hooks[name] for name in HOOK_NAMES if name in hooks}


def _vnflcm_ops(
    path: str, node_name: str, node: dict[str, Any]
) -> dict[str, Any]:
    """Operations of the node's Vnflcm interface (TOSCA 1.2 or 1.3 layout)."""
    iface = (node.get('interfaces') or {}).get('Vnflcm')
    if iface is None:
        return {}
    if not isinstance(iface, dict):
        raise InvalidPackage(
            f'{path}: node {node_name}: interfaces.Vnflcm must be a map'
        )
    if isinstance(iface.get('operations'), dict):
        return iface['operations']
    return {k: v for k, v in iface.items() if k not in _IFACE_KEYS}


def _implementation(op: Any) -> tuple[str | None, str | None]:
    """(artifact name or file, description) of an operation; None if none."""
    if isinstance(op, str):
        return op, None
    if not isinstance(op, dict):
        return None, None
    impl = op.get('implementation')
    if isinstance(impl, dict):
        impl = impl.get('primary')
        if isinstance(impl, dict):
            impl = impl.get('file')
    return (
        (impl if isinstance(impl, str) and impl else None),
        op.get('description'),
    )


def _check_name(where: str, name: str, impl: str | None) -> None:
    """Refuse hook names vnfm does not know or will never run."""
    if name in HOOK_NAMES:
        return
    if name in _SOL001_OPS:
        if impl is not None:
            raise InvalidPackage(
                f"{where}: '{name}' is the LCM operation "
                f'itself, not a hook; use {name}_start or '
                f'{name}_end'
            )
        return
    if name in _UNSUPPORTED:
        raise InvalidPackage(
            f"{where}: hook '{name}' is not supported by vnfm"
        )
    raise InvalidPackage(
        f"{where}: unknown hook '{name}'; known hooks: "
        + ', '.join(HOOK_NAMES)
    )


def _hook(
    where: str,
    name: str,
    impl: str,
    description: str | None,
    artifacts: dict[str, tuple[str, str, Any]],
    path: str,
    files: dict[str, bytes],
) -> Hook:
    """Resolve a hook's implementation to a package file or built-in driver."""
    if impl not in artifacts:
        file = resolve_file(path, impl, files)
        if file is None:
            raise InvalidPackage(
                f"{where}: implementation '{impl}' is "
                'neither an artifact of the VNF node nor a '
                'file in the package'
            )
        return Hook(name, impl, _type_for(file), file, description)
    apath, anode, art = artifacts[impl]
    if isinstance(art, str):
        art = {'file': art}
    atype, ref = art.get('type'), str(art.get('file') or '')
    description = description or art.get('description')
    if atype == BUILTIN_ARTIFACT_TYPE:
        if not _BUILTIN_NAME.match(ref):
            raise InvalidPackage(
                f'{where}: built-in driver artifact '
                f"'{impl}' needs a driver name as its file, "
                f'got {ref!r}'
            )
        return Hook(name, impl, atype, None, description, builtin=ref)
    file = resolve_file(apath, ref, files)
    if file is None:
        raise InvalidPackage(
            f"{where}: artifact '{impl}' of node {anode} "
            f"names file '{ref}', which is not in the "
            'package'
        )
    return Hook(name, impl, atype or _type_for(file), file, description)


def _type_for(file: str) -> str | None:
    """Guess the TOSCA artifact type of a file named as an implementation."""
    if file.endswith('.py'):
        return 'tosca.artifacts.Implementation.Python'
    if file.endswith('.sh'):
        return 'tosca.artifacts.Implementation.Bash'
    return None
