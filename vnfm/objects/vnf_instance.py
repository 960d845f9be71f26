"""VnfInstance (SOL003 v3.3.1 clause 5.5.2.2) from a database row."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vnfm.common import crypto
from vnfm.common import scrub
from vnfm.conf import CONF
from vnfm.objects import infra
from vnfm.objects import sol013
from vnfm.objects import states
from vnfm.objects import vim

MASK = crypto.MASK
# Keys whose values are secrets wherever they appear in request parameters.
SECRET_KEYS = scrub.SECRET_KEYS

# Columns → SOL attribute names, in the order SOL lists them.
_ATTRS = (
    ('id', 'id'),
    ('vnf_instance_name', 'vnfInstanceName'),
    ('vnf_instance_description', 'vnfInstanceDescription'),
    ('vnfd_id', 'vnfdId'),
    ('vnf_provider', 'vnfProvider'),
    ('vnf_product_name', 'vnfProductName'),
    ('vnf_software_version', 'vnfSoftwareVersion'),
    ('vnfd_version', 'vnfdVersion'),
    ('vnf_configurable_properties', 'vnfConfigurableProperties'),
    ('vim_connection_info', 'vimConnectionInfo'),
    ('instantiation_state', 'instantiationState'),
    ('instantiated_vnf_info', 'instantiatedVnfInfo'),
    ('metadata', 'metadata'),
    ('extensions', 'extensions'),
)
_OP = states.LcmOperation
# Task links (SOL003 5.5.2.2 _links): (name, path, the operation it starts).
_NOT_INSTANTIATED_LINKS = (('instantiate', 'instantiate', _OP.INSTANTIATE),)
_INSTANTIATED_LINKS = (
    ('terminate', 'terminate', _OP.TERMINATE),
    ('scale', 'scale', _OP.SCALE),
    ('scaleToLevel', 'scale_to_level', _OP.SCALE_TO_LEVEL),
    ('changeFlavour', 'change_flavour', _OP.CHANGE_FLAVOUR),
    ('heal', 'heal', _OP.HEAL),
    ('operate', 'operate', _OP.OPERATE),
    ('changeExtConn', 'change_ext_conn', _OP.CHANGE_EXT_CONN),
)


def instance_href(base_url: str, instance_id: str) -> str:
    """Absolute URL of a VNF instance."""
    return f'{base_url}/vnflcm/v2/vnf_instances/{instance_id}'


def mask_vim_connection_info(vim_infos: Any) -> Any:
    """A copy of a (sealed or plain) vimConnectionInfo map with every
    secret accessInfo value masked (SOL003 4.4.1.6: credentials are
    write-only)."""
    return crypto.mask_vim_connection_info(vim_infos)


def mask_secrets(value: Any) -> Any:
    """A copy of a JSON value with secrets masked: vimConnectionInfo
    accessInfo and any key named like a credential."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k == crypto.SEALED:
                continue
            if k in SECRET_KEYS and v is not None:
                out[k] = MASK
            elif k == 'vimConnectionInfo':
                out[k] = mask_secrets(mask_vim_connection_info(v))
            else:
                out[k] = mask_secrets(v)
        return out
    if isinstance(value, list):
        return [mask_secrets(v) for v in value]
    return value


def enabled_infra() -> infra.Enabled:
    """The capabilities of the ``[infra] enabled_infra_drivers``."""
    return infra.enabled(tuple(CONF.infra.enabled_infra_drivers))


def vim_types(vim_connection_info: Any) -> list[str]:
    """The SOL003 vimTypes of a vimConnectionInfo map (or v1 list), Tacker
    v1 names translated."""
    entries = (
        vim_connection_info.values()
        if isinstance(vim_connection_info, dict)
        else vim_connection_info or []
    )
    return sorted(
        {
            vim.sol_vim_type(e['vimType'])
            for e in entries
            if isinstance(e, dict) and isinstance(e.get('vimType'), str)
        }
    )


def supported_operations(vim_connection_info: Any) -> frozenset[str]:
    """The LcmOperations the enabled infra driver of a vimConnectionInfo
    runs (of any enabled driver when it names no served vimType)."""
    return enabled_infra().operations(vim_types(vim_connection_info))


def links(row: Mapping[str, Any], href: str) -> dict:
    """The ``_links`` of an instance row whose own URL is ``href``: self
    and the tasks its instantiation state allows and its infra driver
    runs (v1 and v2 alike)."""
    out = {'self': {'href': href}}
    tasks = (
        _INSTANTIATED_LINKS
        if row.get('instantiation_state') == 'INSTANTIATED'
        else _NOT_INSTANTIATED_LINKS
    )
    supported = supported_operations(row.get('vim_connection_info'))
    for name, path, operation in tasks:
        if operation.value in supported:
            out[name] = {'href': f'{href}/{path}'}
    return out


def to_sol(row: Mapping[str, Any], base_url: str | None = None) -> dict:
    """The SOL003 VnfInstance of an instance row (None values omitted,
    secrets masked, ``_links`` when ``base_url`` is given)."""
    get = row.get
    out: dict[str, Any] = {
        attr: value
        for column, attr in _ATTRS
        if (value := get(column)) is not None
    }
    if 'vimConnectionInfo' in out:
        out['vimConnectionInfo'] = mask_vim_connection_info(
            out['vimConnectionInfo']
        )
    if base_url is not None:
        out['_links'] = links(row, instance_href(base_url, row['id']))
    return out


# SOL013 list handling of VnfInstance (SOL003 5.4.2.3.2: the attributes
# excluded by default).
SOL013 = sol013.Resource(
    attributes=frozenset(a for _, a in _ATTRS) | {'_links'},
    mandatory=frozenset(
        {
            'id',
            'vnfdId',
            'vnfProvider',
            'vnfProductName',
            'vnfSoftwareVersion',
            'vnfdVersion',
            'instantiationState',
        }
    ),
    default_excluded=(
        'vnfConfigurableProperties',
        'vimConnectionInfo',
        'instantiatedVnfInfo',
        'metadata',
        'extensions',
    ),
)
# Columns enough for the default list view (no default-excluded attribute):
# listing skips the large JSON columns.
LIST_COLUMNS = (
    'id',
    'vnf_instance_name',
    'vnf_instance_description',
    'vnfd_id',
    'vnf_provider',
    'vnf_product_name',
    'vnf_software_version',
    'vnfd_version',
    'instantiation_state',
    'project_id',
)
