"""The VIMs a request's vimConnectionInfo names, checked before anything is
written: only a VIM registered in the instance's project is filled in, and
never with an endpoint or credentials the request chose (DESIGN §3a).

Outside its project a VIM id is unknown, whether it exists or not: an
entry naming it must describe its own VIM (accessInfo), and the answer
is the same for another project's VIM and for no VIM at all.
"""

from __future__ import annotations

from typing import Any

from vnfm.common import exceptions
from vnfm.objects import vim as vim_obj

# What a registered VIM alone decides.
_REGISTERED = ('interfaceInfo', 'accessInfo')


def _entries(vim_connection_info: Any) -> dict[str, dict]:
    if not isinstance(vim_connection_info, dict):
        return {}
    return {
        k: v for k, v in vim_connection_info.items() if isinstance(v, dict)
    }


def _check_registered(key: str, entry: dict, row: dict) -> None:
    """422 when an entry naming registered VIM ``row`` would override what
    the registry says of it."""
    overrides = [k for k in _REGISTERED if entry.get(k)]
    if overrides:
        raise exceptions.UnprocessableEntity(
            f'vimConnectionInfo.{key}: VIM {row["id"]} is registered, so its '
            f'endpoint and credentials come from the VIM registry; leave out '
            f'{" and ".join(overrides)} (change the VIM with openstack vim '
            'set). Nothing was changed.'
        )
    given = entry.get('vimType')
    if (
        given is not None
        and vim_obj.sol_vim_type(given) != (vim_obj.SOL_VIM_TYPES[row['type']])
    ):
        raise exceptions.UnprocessableEntity(
            f'vimConnectionInfo.{key}: vimType {given} is not the type of '
            f'VIM {row["id"]} ({row["type"]}). Nothing was changed.'
        )


def check(body: dict, project_id: str | None, stored: Any = None) -> None:
    """422 unless each vimConnectionInfo entry of ``body`` (v2 form,
    patched onto the instance's ``stored`` entries) names a VIM registered
    in ``project_id`` without overriding it, or brings its own
    accessInfo."""
    current = _entries(stored)
    for key, entry in _entries(body.get('vimConnectionInfo')).items():
        before = current.get(key) or {}
        vim_id = entry.get('vimId', before.get('vimId'))
        if not vim_id:
            continue
        row = vim_obj.project_vim(vim_id, project_id)
        if row is not None:
            _check_registered(key, entry, row)
        elif not entry.get('accessInfo', before.get('accessInfo')):
            raise exceptions.UnprocessableEntity(
                f'vimConnectionInfo.{key}: no VIM {vim_id} is registered in '
                f'this project; register it (openstack vim register) or '
                'give its interfaceInfo and accessInfo. Nothing was changed.'
            )
