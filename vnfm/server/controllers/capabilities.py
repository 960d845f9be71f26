"""What the enabled infra drivers serve and run, checked before anything is
written: a request no driver can carry out is a 4xx, not an op that ends
ROLLED_BACK (the drivers publish this as data: ``vnfm.objects.infra``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.objects import infra
from vnfm.objects import states
from vnfm.objects import vim
from vnfm.objects import vnf_instance


def _entries(vim_connection_info: Any) -> list[dict]:
    if isinstance(vim_connection_info, dict):
        return [e for e in vim_connection_info.values() if isinstance(e, dict)]
    return []


def check_vim_types(body: dict, api_version: str) -> None:
    """422 when the request's vimConnectionInfo (v2 form) gives a vimType no
    enabled infra driver serves; /vnflcm/v1 also takes Tacker's v1 names
    (``kubernetes``, ``openstack``)."""
    enabled = vnf_instance.enabled_infra()
    for entry in _entries(body.get('vimConnectionInfo')):
        given = entry.get('vimType')
        if given is None:
            continue  # a patch of other attributes of an entry
        sol = vim.sol_vim_type(given) if api_version == '1' else given
        if not enabled.serves(sol):
            served = enabled.vim_types()
            if api_version == '1':
                served += [
                    k for k, v in vim.V1_VIM_TYPES.items() if v in served
                ]
            raise exceptions.VimTypeNotServed(
                f'vimConnectionInfo: vimType {given} is not served by any '
                'enabled infra driver (served: '
                f'{", ".join(served) or "none"}; [infra] '
                'enabled_infra_drivers: '
                f'{", ".join(CONF.infra.enabled_infra_drivers) or "none"}).'
            )


def require_operation(
    row: Mapping[str, Any],
    operation: states.LcmOperation,
    body: dict | None = None,
) -> None:
    """409 when no enabled infra driver of the instance (with the request's
    vimConnectionInfo) runs ``operation``."""
    if operation in infra.WITHOUT_INFRA:
        return
    types = sorted(
        {
            *vnf_instance.vim_types(row.get('vim_connection_info')),
            *vnf_instance.vim_types((body or {}).get('vimConnectionInfo')),
        }
    )
    if operation.value in vnf_instance.enabled_infra().operations(types):
        return
    raise exceptions.OperationNotSupported(
        f'{operation.value} is not supported for VNF instance {row["id"]}: '
        'no enabled infra driver runs it'
        + (f' on vimType {", ".join(types)}' if types else '')
        + ' ([infra] enabled_infra_drivers: '
        f'{", ".join(CONF.infra.enabled_infra_drivers) or "none"}). '
        'Nothing was changed.'
    )
