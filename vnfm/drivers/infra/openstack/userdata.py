"""The Heat input of an operation: vnfm's built-in computation (Tacker's
StandardUserData conventions) or the package's own user-data class.

A request's ``additionalParams`` may name the user data as Tacker v2 does:
``lcm-operation-user-data`` (a Python file in the package) and
``lcm-operation-user-data-class`` (a class in it). Without them, or with
Tacker's ``StandardUserData``, vnfm computes the input itself
(``standard``). Operations after instantiate find the names in the
instance's ``instantiatedVnfInfo.metadata`` (where the driver keeps what
instantiate used) unless their request names others.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vnfm.common import exceptions
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import individual
from vnfm.drivers.infra.openstack import managed
from vnfm.drivers.infra.openstack import nfv
from vnfm.drivers.infra.openstack import standard
from vnfm.drivers.infra.openstack import user_class
from vnfm.drivers.infra.openstack.stackinput import StackInput

__all__ = ['OPERATIONS', 'StackInput', 'stack_input', 'user_data']

USER_DATA = 'lcm-operation-user-data'
USER_DATA_CLASS = 'lcm-operation-user-data-class'
# The class names that mean vnfm's built-in computation.
STANDARD = ('StandardUserData',)

_STANDARD: dict[
    str,
    Callable[[base.InfraContext, dict[str, Any] | None], StackInput],
] = {
    'instantiate': lambda ctx, current: standard.instantiate(ctx),
    'scale': standard.scale,
    'scale_rollback': standard.scale_rollback,
    'heal': standard.heal,
    'change_vnfpkg': standard.change_vnfpkg,
    'change_vnfpkg_rollback': standard.change_vnfpkg_rollback,
    'change_flavour': standard.change_flavour,
    'change_flavour_rollback': standard.restored,
    'change_ext_conn': standard.change_ext_conn,
    'change_ext_conn_rollback': standard.restored,
}
OPERATIONS = tuple(_STANDARD)
# Rollbacks that compute their input without the request's user data.
ROLLBACK_OWN = (
    'change_vnfpkg_rollback',
    'change_flavour_rollback',
    'change_ext_conn_rollback',
)
# Operations that run only the user data their own request names: the
# instance's was written for its source flavour (Tacker's classes have no
# change_flavour method); rollbacks restore the saved parameters.
OWN_ONLY = ('change_flavour', *ROLLBACK_OWN[1:])


def user_data(
    ctx: base.InfraContext, operation: str
) -> tuple[str, str] | None:
    """The (file, class) of the package's own user data, or None for the
    built-in computation."""
    sources = [ctx.request.get('additionalParams') or {}]
    if operation in ROLLBACK_OWN:
        sources = []
    if operation not in OWN_ONLY:
        info = ctx.vnf_instance.get('instantiatedVnfInfo') or {}
        sources += [info.get('metadata') or {}]
    for params in sources:
        path, cls = params.get(USER_DATA), params.get(USER_DATA_CLASS)
        if path or cls:
            if cls in STANDARD:
                return None
            if not (isinstance(path, str) and isinstance(cls, str)):
                raise exceptions.OperationFailed(
                    f'{USER_DATA} and {USER_DATA_CLASS} must both be given '
                    f'(got {path!r} and {cls!r}).'
                )
            return path, cls
    return None


def stack_input(
    ctx: base.InfraContext,
    operation: str,
    current: dict[str, Any] | None = None,
) -> StackInput:
    """Heat input for ``operation`` (one of OPERATIONS);
    ``current`` = the stack's current parameters for ops on a running
    stack."""
    if operation not in _STANDARD:
        raise ValueError(f'no Heat input for operation {operation!r}')
    if operation != 'instantiate' and current is None:
        # nfv is one parameter: a partial one would replace the stack's.
        raise ValueError(f"{operation} needs the stack's current parameters")
    custom = user_data(ctx, operation)
    if custom is None:
        return _builtin(ctx, operation, current)
    return user_class.run(
        ctx,
        operation,
        custom,
        current,
        lambda: _builtin(ctx, operation, current),
    )


def _builtin(
    ctx: base.InfraContext, operation: str, current: dict[str, Any] | None
) -> StackInput:
    """vnfm's own input: StandardUserData's, VNFCs managed one by one."""
    stack = _STANDARD[operation](ctx, current)
    vnfd = ctx.vnfd
    if operation == 'change_vnfpkg' and ctx.target_vnfd is not None:
        vnfd = ctx.target_vnfd
    flavour = standard.flavour_of(vnfd, ctx.flavour_id)
    stack = individual.apply(ctx, operation, flavour, stack)
    links = standard.connected_links(ctx)
    if operation == 'instantiate':
        links = nfv.Links.of_request(ctx.request)
    return managed.apply(stack, links)
