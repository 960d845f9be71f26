"""A package's base HOT (Tacker v2's layout) and the ``nfv`` parameter
paths it uses.

``BaseHOT/<flavourId>/`` holds one top template (``*.yaml``/``*.yml``);
every file under ``BaseHOT/<flavourId>/nested/`` is a nested template, passed
to Heat as ``files`` by its path below ``nested/`` (the name the top
template's resource ``type`` uses).
"""

from __future__ import annotations

import posixpath
from typing import Any

from vnfm import csar
from vnfm.common import exceptions
from vnfm.csar import templates
from vnfm.drivers.infra.openstack.scriptlib.vnfm_userdata import NFV
from vnfm.drivers.infra.openstack.scriptlib.vnfm_userdata import nfv_paths
from vnfm.drivers.package_files import PackageFiles

__all__ = ['NFV', 'base_hot', 'load', 'nfv_paths']


def base_hot(
    package: PackageFiles, flavour_id: str
) -> tuple[str, dict[str, str]]:
    """The (top template, nested templates by name) of a flavour."""
    root = f'BaseHOT/{flavour_id}/'
    nested = root + 'nested/'
    tops = [
        n
        for n in package.names()
        if posixpath.dirname(n) + '/' == root and n.endswith(('.yaml', '.yml'))
    ]
    if len(tops) != 1:
        found = ', '.join(tops) or 'none'
        raise exceptions.OperationFailed(
            f'Package {package.package_id} must hold exactly one top Heat '
            f'template (.yaml) in {root} for flavour {flavour_id} (found: '
            f'{found}).'
        )
    files = {
        n[len(nested) :]: _text(package, n)
        for n in package.names()
        if n.startswith(nested)
    }
    return _text(package, tops[0]), files


def _text(package: PackageFiles, path: str) -> str:
    try:
        return package.read(path).decode('utf-8')
    except UnicodeDecodeError:
        raise exceptions.OperationFailed(
            f'{path} of package {package.package_id} is not UTF-8 text.'
        ) from None


def load(text: str, name: str) -> dict[str, Any]:
    """A template's YAML as a mapping (dates kept as text, sizes bounded
    as for VNFDs); OperationFailed names the file."""
    try:
        doc = templates.parse_yaml(name, text.encode('utf-8'))
    except csar.InvalidPackage as e:
        raise exceptions.OperationFailed(f'Heat template {e.detail}') from None
    if not isinstance(doc, dict):
        raise exceptions.OperationFailed(
            f'Heat template {name} is not a YAML mapping.'
        )
    return doc
