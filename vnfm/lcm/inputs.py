"""Loading what an operation works on: rows, the package files and VNFD,
and the vimConnectionInfo it runs with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.csar import zipreader
from vnfm.csar.errors import InvalidPackage
from vnfm.db import api as db
from vnfm.db import rows
from vnfm.drivers.package_files import PackageFiles
from vnfm.lcm import merge
from vnfm.objects import vim


def limits() -> zipreader.CsarLimits:
    """Package limits from ``[vnf_package]``."""
    opts = CONF.vnf_package
    return zipreader.CsarLimits(
        max_size=opts.max_size,
        max_uncompressed=opts.max_uncompressed,
        max_ratio=opts.max_ratio,
        max_files=opts.max_files,
    )


def package_of(instance: rows.InstanceRow) -> rows.PackageRow:
    """The package row the instance was created from."""
    if instance['vnf_pkg_id']:
        return db.package_get(instance['vnf_pkg_id'])
    row = db.package_get_by_vnfd_id(instance['vnfd_id'])
    if row is None:
        raise exceptions.OperationFailed(
            f'No onboarded package has vnfdId {instance["vnfd_id"]} of VNF '
            f'instance {instance["id"]}.'
        )
    return row


def package_by_vnfd_id(vnfd_id: str) -> rows.PackageRow:
    """The ONBOARDED package of ``vnfd_id``."""
    row = db.package_get_by_vnfd_id(vnfd_id)
    if row is None or row['onboarding_state'] != 'ONBOARDED':
        raise exceptions.OperationFailed(
            f'No onboarded VNF package has vnfdId {vnfd_id}.'
        )
    return row


def package_files(package: rows.PackageRow) -> PackageFiles:
    """The files of a stored package."""
    try:
        files = zipreader.read_zip(
            db.package_content_get(package['id']), limits()
        )
    except InvalidPackage as e:
        raise exceptions.OperationFailed(
            f'VNF package {package["id"]} cannot be read: {e.detail}'
        ) from e
    return PackageFiles(package['id'], files)


def vnfd_of(package: Mapping[str, Any]) -> dict[str, Any]:
    """The stored VNFD model of an onboarded package."""
    if not package.get('vnfd'):
        raise exceptions.OperationFailed(
            f'VNF package {package["id"]} is {package["onboarding_state"]}, '
            'not onboarded.'
        )
    return package['vnfd']


def as_map(vim_connection_info: Any) -> dict[str, dict]:
    """vimConnectionInfo as a map by id (v1 requests send a list)."""
    if isinstance(vim_connection_info, list):
        return {
            str(v.get('id', i)): v for i, v in enumerate(vim_connection_info)
        }
    return dict(vim_connection_info or {})


def vim_connection_info(
    instance: Mapping[str, Any], request: dict | None = None
) -> dict[str, dict]:
    """The instance's vimConnectionInfo with the request's merged over it
    (JSON merge patch: an entry set to null is removed), sealed to store.

    Both are stored sealed (secrets encrypted); they are merged in clear so
    a request changing one secret keeps the others.
    """
    current = as_map(instance.get('vim_connection_info'))
    if not request or request.get('vimConnectionInfo') is None:
        return current
    merged = merge.merge_patch(
        crypto.unseal_vim_connection_info(current),
        crypto.unseal_vim_connection_info(
            as_map(request['vimConnectionInfo'])
        ),
    )
    return crypto.seal_vim_connection_info(merged)


def with_default_vim(
    stored: dict[str, dict], project_id: str | None
) -> dict[str, dict]:
    """``stored``, or when it is empty the project's default registered VIM
    (as Tacker does for an instantiation without vimConnectionInfo)."""
    if stored:
        return stored
    row = vim.find_default(project_id)
    if row is None:
        return stored
    return {
        'default': {
            'vimId': row['id'],
            'vimType': vim.SOL_VIM_TYPES[row['type']],
        }
    }


def resolved(
    stored: dict[str, dict], project_id: str | None
) -> dict[str, dict]:
    """The stored vimConnectionInfo with secrets in clear and the VIMs
    registered in the instance's project ``project_id`` filled in (for
    drivers and hooks only)."""
    try:
        return vim.resolve_vim_connection_info(stored, project_id) or {}
    except exceptions.NotFound as e:
        raise exceptions.OperationFailed(
            f'vimConnectionInfo names a VIM that is not registered: {e.detail}'
        ) from None
