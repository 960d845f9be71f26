"""VIMs that MgmtDriver hooks register or delete.

A hook returns ``vims`` changes (see ``vnfm.drivers.mgmt.base``); they are
turned here into VIM rows of the instance's project, committed by
``finish`` with the op's final state in one transaction.
"""

from __future__ import annotations

from typing import Any

from vnfm.objects import vim as vim_obj


def collect(changes: list[dict]) -> dict[str, dict | None]:
    """The VIMs the hooks' ``changes`` register (id -> body) or delete
    (id -> None), in the order they ran: the last word on an id wins."""
    found: dict[str, dict | None] = {}
    for change in changes:
        vims = change.get('vims') or {}
        for body in vims.get('register') or []:
            found[body['id']] = body
        for vim_id in vims.get('delete') or []:
            found[vim_id] = None
    return found


def rows(found: dict[str, dict | None], project_id: str | None) -> dict:
    """VIM rows to write (None: delete) for ``collect``'s result."""
    return {
        vim_id: None if body is None else _row(body, project_id)
        for vim_id, body in found.items()
    }


def _row(body: dict, project_id: str | None) -> dict[str, Any]:
    return {
        'id': body['id'],
        'name': body['name'],
        'description': body.get('description'),
        'type': body['type'],
        'project_id': project_id,
        'is_default': False,
        'status': vim_obj.ACTIVE,
        'auth_url': body['auth_url'],
        'vim_project': body.get('vim_project') or {},
        'auth_cred': body['auth_cred'],  # sealed by the MgmtRunner
        'extra': body.get('extra') or {},
    }
