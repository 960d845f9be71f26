"""Decides per hook which MgmtDriver runs it, and runs it.

A hook whose VNFD artifact names a built-in driver (``Hook.builtin``) runs
that driver in-process, if it is listed in ``[mgmt_driver]
enabled_builtin_drivers``. A hook implemented by a package file runs through
the ``script`` driver, so scripts run only when ``script`` is enabled.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.drivers import loader
from vnfm.drivers.mgmt import base

NAMESPACE = 'vnfm.mgmt_drivers'
SCRIPT = 'script'


def find_hook(
    vnfd: Mapping[str, Any], flavour_id: str | None, hook: str
) -> dict[str, Any] | None:
    """The definition of ``hook`` for the flavour (else the VNFD's), or
    None when the VNFD declares no such hook."""
    flavour = (vnfd.get('flavours') or {}).get(flavour_id) or {}
    if flavour_id and flavour:
        return (flavour.get('interfaces') or {}).get(hook)
    return (vnfd.get('interfaces') or {}).get(hook)


class MgmtRunner:
    """The enabled MgmtDrivers, by name."""

    def __init__(self, drivers: Mapping[str, base.MgmtDriver]) -> None:
        self._drivers = dict(drivers)

    @classmethod
    def load(cls, names: Iterable[str]) -> MgmtRunner:
        """Load the named built-in drivers; DriverLoadError if one fails."""
        return cls(
            {
                name: loader.load_driver(NAMESPACE, name, base.MgmtDriver)
                for name in names
            }
        )

    def _driver_for(self, ctx: base.HookContext) -> base.MgmtDriver:
        builtin = ctx.definition.get('builtin')
        name = builtin or SCRIPT
        driver = self._drivers.get(name)
        if driver is not None:
            return driver
        what = (
            f'built-in MgmtDriver {builtin!r}'
            if builtin
            else f'script {ctx.definition.get("file")}'
        )
        raise exceptions.OperationFailed(
            f'{ctx.hook} hook: the VNFD names {what}, but {name!r} is not in '
            '[mgmt_driver] enabled_builtin_drivers (enabled: '
            f'{", ".join(sorted(self._drivers)) or "none"}).'
        )

    def run(self, ctx: base.HookContext) -> base.HookResult:
        """Run a hook; OperationFailed/DeadlineExceeded if it fails."""
        result = self._driver_for(ctx).run_hook(ctx)
        base.check_changes(f'{ctx.hook} hook', result.changes)
        return _sealed(result)

    def rollback(self, ctx: base.HookContext) -> base.HookResult:
        """Undo a hook that ran, when its driver knows how; its changes are
        checked as a forward hook's are."""
        result = self._driver_for(ctx).rollback_hook(ctx)
        base.check_changes(f'rollback_{ctx.hook} hook', result.changes)
        return _sealed(result)


def _sealed(result: base.HookResult) -> base.HookResult:
    """``result`` with the secrets it carries encrypted (hook results are
    kept with the op occurrence): the credentials of the VIMs it registers
    and the secrets of its vimConnectionInfo."""
    changes = dict(result.changes)
    if changes.get('vimConnectionInfo') is not None:
        changes['vimConnectionInfo'] = crypto.seal_vim_connection_info(
            changes['vimConnectionInfo']
        )
    vims = changes.get('vims')
    if vims and vims.get('register'):
        register = [
            dict(v, auth_cred=crypto.encrypt(v['auth_cred']))
            if isinstance(v['auth_cred'], dict)
            else v
            for v in vims['register']
        ]
        changes['vims'] = dict(vims, register=register)
    return base.HookResult(changes=changes)
