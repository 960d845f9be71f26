"""The /vnflcm/v1 shapes (SOL002/SOL003 v2.6.1, API 1.3.0) of vnfm's data.

vnfm stores one form, the v2 one (SOL003 v3.3.1): vimConnectionInfo is a
map by id and an extCp's cpConfig a map. A v1 request is converted to that
form on the way in (``request_to_v2``); rows are shown in the v1 form on
the way out. Converting there and back gives what the client sent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from vnfm.common import exceptions
from vnfm.objects import op_occ
from vnfm.objects import vnf_instance

PREFIX = '/vnflcm/v1'

# InstantiatedVnfInfo attributes of v2.6.1 (5.5.3.3), plus vnfcInfo (which
# Tacker's v1 API shows too); v3-only attributes are left out.
_INSTANTIATED_INFO = (
    'flavourId',
    'vnfState',
    'scaleStatus',
    'maxScaleLevels',
    'extCpInfo',
    'extVirtualLinkInfo',
    'extManagedVirtualLinkInfo',
    'monitoringParameters',
    'localizationLanguage',
    'vnfcResourceInfo',
    'vnfVirtualLinkResourceInfo',
    'virtualStorageResourceInfo',
    'vnfcInfo',
)
_FAILED_TEMP_LINKS = ('retry', 'rollback', 'fail')


# -- vimConnectionInfo: v1 list <-> v2 map -----------------------------------


def vim_list_to_map(vims: list[dict]) -> dict[str, dict]:
    """A v1 VimConnectionInfo list as the v2 map: each entry's ``id``
    becomes its key."""
    out: dict[str, dict] = {}
    for entry in vims:
        vim_id = entry['id']
        if vim_id in out:
            raise exceptions.BadRequest(
                f'vimConnectionInfo: id {vim_id} appears more than once.'
            )
        out[vim_id] = {k: v for k, v in entry.items() if k != 'id'}
    return out


def vim_map_to_list(vims: dict[str, Any]) -> list[dict]:
    """A v2 vimConnectionInfo map as the v1 list (null entries, which a
    merge patch uses to remove one, are left out)."""
    return [
        {'id': key, **entry}
        for key, entry in vims.items()
        if isinstance(entry, dict)
    ]


# -- extVirtualLinks: v1 cpConfig list <-> v2 cpConfig map --------------------


def _cp_configs(ext_vls: list, convert: Any) -> list:
    out = []
    for link in ext_vls:
        if isinstance(link, dict) and isinstance(link.get('extCps'), list):
            link = dict(
                link,
                extCps=[
                    dict(cp, cpConfig=convert(cp['cpConfig']))
                    if isinstance(cp, dict) and 'cpConfig' in cp
                    else cp
                    for cp in link['extCps']
                ],
            )
        out.append(link)
    return out


def _cp_config_map(configs: Any) -> Any:
    if isinstance(configs, list):
        return {str(i): c for i, c in enumerate(configs)}
    return configs


def _cp_config_list(configs: Any) -> Any:
    if isinstance(configs, dict):
        return list(configs.values())
    return configs


# -- requests ----------------------------------------------------------------


def request_to_v2(body: dict) -> dict:
    """A v1 request body in the v2 form: vimConnectionInfo a map, with
    vimConnectionInfoDeleteIds as null entries (a merge patch), and each
    extCp's cpConfig a map."""
    out = dict(body)
    vims = out.pop('vimConnectionInfo', None)
    deleted = out.pop('vimConnectionInfoDeleteIds', None) or []
    if vims is not None or deleted:
        patch: dict[str, Any] = vim_list_to_map(vims or [])
        for vim_id in deleted:
            if vim_id in patch:
                raise exceptions.BadRequest(
                    f'vimConnectionInfo {vim_id} is both set and deleted.'
                )
            patch[vim_id] = None
        out['vimConnectionInfo'] = patch
    if isinstance(out.get('extVirtualLinks'), list):
        out['extVirtualLinks'] = _cp_configs(
            out['extVirtualLinks'], _cp_config_map
        )
    return out


def params_to_v1(params: dict) -> dict:
    """Request parameters (or VnfInfoModifications) stored in the v2 form,
    in the v1 form: the inverse of ``request_to_v2``."""
    out = dict(params)
    vims = out.get('vimConnectionInfo')
    if isinstance(vims, dict):
        out['vimConnectionInfo'] = vim_map_to_list(vims)
        deleted = [k for k, v in vims.items() if v is None]
        if deleted:
            out['vimConnectionInfoDeleteIds'] = deleted
    if isinstance(out.get('extVirtualLinks'), list):
        out['extVirtualLinks'] = _cp_configs(
            out['extVirtualLinks'], _cp_config_list
        )
    return out


# -- VnfInstance (5.5.2.2) ---------------------------------------------------


def instance_href(base_url: str, instance_id: str) -> str:
    """Absolute /vnflcm/v1 URL of a VNF instance."""
    return f'{base_url}{PREFIX}/vnf_instances/{instance_id}'


def instance_to_sol(
    row: Mapping[str, Any], base_url: str | None = None
) -> dict:
    """The v1 VnfInstance of an instance row: vnfPkgId, vimConnectionInfo
    as a list (secrets masked), the v2.6.1 instantiatedVnfInfo."""
    out: dict[str, Any] = {}
    for key, value in vnf_instance.to_sol(row).items():
        if key == 'vimConnectionInfo' and isinstance(value, dict):
            value = vim_map_to_list(value)
        elif key == 'instantiatedVnfInfo' and isinstance(value, dict):
            value = {k: value[k] for k in _INSTANTIATED_INFO if k in value}
        out[key] = value
        if key == 'vnfdVersion' and row.get('vnf_pkg_id'):
            out['vnfPkgId'] = row['vnf_pkg_id']
    if 'vnfPkgId' not in out and row.get('vnf_pkg_id'):
        out['vnfPkgId'] = row['vnf_pkg_id']
    if base_url is not None:
        out['_links'] = vnf_instance.links(
            row, instance_href(base_url, row['id'])
        )
    return out


INSTANCE_SOL013 = dataclasses.replace(
    vnf_instance.SOL013,
    attributes=vnf_instance.SOL013.attributes | {'vnfPkgId'},
    mandatory=vnf_instance.SOL013.mandatory | {'vnfPkgId'},
)
INSTANCE_LIST_COLUMNS = (*vnf_instance.LIST_COLUMNS, 'vnf_pkg_id')


# -- VnfLcmOpOcc (5.5.2.13) --------------------------------------------------


def op_href(base_url: str, op_id: str) -> str:
    """Absolute /vnflcm/v1 URL of an op occurrence."""
    return f'{base_url}{PREFIX}/vnf_lcm_op_occs/{op_id}'


def op_to_sol(row: Mapping[str, Any], base_url: str | None = None) -> dict:
    """The v1 VnfLcmOpOcc of an op row: operationParams and changedInfo
    in the v1 form (secrets masked), v1 links."""
    out = op_occ.to_sol(row)
    for key in ('operationParams', 'changedInfo'):
        if isinstance(out.get(key), dict):
            out[key] = params_to_v1(out[key])
    if base_url is not None:
        href = op_href(base_url, row['id'])
        links = {
            'self': {'href': href},
            'vnfInstance': {
                'href': instance_href(base_url, row['vnf_instance_id'])
            },
        }
        if row.get('operation_state') == 'FAILED_TEMP':
            for name in _FAILED_TEMP_LINKS:
                links[name] = {'href': f'{href}/{name}'}
        out['_links'] = links
    return out


OP_SOL013 = op_occ.SOL013
OP_LIST_COLUMNS = op_occ.LIST_COLUMNS
