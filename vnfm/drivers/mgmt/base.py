"""The MgmtDriver contract: what runs before and after an LCM operation.

A VNFD names, per hook (``instantiate_start``, ``modify_information_end``,
...), either a script in the package (run by ``ScriptMgmtDriver``) or a
built-in driver registered in the ``vnfm.mgmt_drivers`` entry-point
namespace. A built-in driver implements one method per hook it serves,
named after the hook (``def modify_information_end(self, ctx)``), and may
implement ``rollback_<hook>`` to undo what that hook did when the operation
is rolled back. Drivers never touch the database: they return the changes
they made (``HookResult.changes``) and the LCM driver records them.

Changes a hook may return (each key optional):
``instantiatedVnfInfo``, ``metadata``, ``extensions``,
``vnfConfigurableProperties``, ``vimConnectionInfo`` (JSON merge patches,
RFC 7396, applied to the instance), ``resourceChanges`` (lists appended
to the op occurrence's resourceChanges) and ``changedInfo`` (a merge patch
of the op occurrence's changedInfo only, never applied to the instance:
what a hook reports, e.g. the objects a container update replaced) and
``vims``: VIMs to add to or remove from vnfm's registry (``/v1.0/vims``),
``{'register': [<vim>], 'delete': [<vim id>]}``. A ``<vim>`` is a Tacker
VIM body (``name``, ``type``, ``auth_url``, ``auth_cred``, optionally
``description``, ``vim_project``, ``extra``) with an ``id`` the hook
chooses (the same on every run, so a retried operation registers it once;
registering an id again updates that VIM). lcm records these changes in
the transaction that ends the operation, the VIMs in the instance's
project; a name already taken there fails the operation (FAILED_TEMP).
The runner seals ``auth_cred`` as soon as the hook returns.

A hook that changes things in several steps keeps what it needs for its
rollback in ``ctx.work`` and calls ``ctx.save_work()`` before changing
anything: ``work`` is kept with the op occurrence even when the hook fails,
and the same dict comes back on retry and to ``rollback_<hook>``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from vnfm.common import exceptions
from vnfm.drivers.package_files import PackageFiles

# Modify VNF Information with ``"metadata": {"vnfm_dry_run": true}``: only
# the ``modify_information_end`` hook runs, it must change nothing and only
# report (in changedInfo) what it would do; the instance is not changed.
DRY_RUN = 'vnfm_dry_run'
# ``"metadata": {"vnfm_disruption_allowed": true}`` (modify) or the same key
# in ``additionalParams`` (other operations): the operator accepts the
# disruption, so Pods are deleted rather than evicted, and no
# PodDisruptionBudget holds them.
DISRUPTION_ALLOWED = 'vnfm_disruption_allowed'
# Flags of one request, never merged into the instance's metadata.
REQUEST_FLAGS = (DRY_RUN, DISRUPTION_ALLOWED)

CHANGE_KEYS = frozenset(
    {
        'instantiatedVnfInfo',
        'metadata',
        'extensions',
        'vnfConfigurableProperties',
        'vimConnectionInfo',
        'resourceChanges',
        'changedInfo',
        'vims',
    }
)
VIM_REQUIRED = ('id', 'name', 'type', 'auth_url', 'auth_cred')


@dataclasses.dataclass
class HookContext:
    """Everything a hook gets."""

    hook: str  # e.g. 'instantiate_end'
    operation: str  # LcmOperationType, e.g. 'INSTANTIATE'
    vnf_instance: dict[str, Any]  # SOL VnfInstance (secrets masked)
    vnf_lcm_op_occ: dict[str, Any]  # SOL VnfLcmOpOcc
    request: dict[str, Any]  # the LCM request
    vim_connection_info: dict[str, dict[str, Any]]  # secrets in clear
    vnfd: dict[str, Any]  # vnfm.csar.Vnfd.to_dict()
    package: PackageFiles  # the package the hook comes from
    definition: dict[str, Any]  # vnfm.csar.Hook.to_dict()
    deadline: float  # time.monotonic() value
    # What this hook returned when it ran before (for rollback).
    previous: dict[str, Any] | None = None
    # A hook from the target package (modify with a new vnfdId, change
    # current package): the VNFD and files of the package the instance
    # runs now. None otherwise.
    source_vnfd: dict[str, Any] | None = None
    source_package: PackageFiles | None = None
    # The hook's own state, kept with the op occurrence (also on failure);
    # persisted by save_work().
    work: dict[str, Any] = dataclasses.field(default_factory=dict)
    persist: Callable[[], None] | None = None
    # Shows (None: stops showing) what the hook waits for on the op
    # occurrence while it runs.
    progress: Callable[[str | None], None] | None = None
    # The instantiated VNF instances (other than this one) whose
    # vimConnectionInfo names a VIM id: [{'id':..., 'vnfInstanceName':...}].
    vim_users: Callable[[str], list[dict[str, Any]]] | None = None
    # The request (additionalParams in clear) of the instantiation that
    # made the instance what it is ({} if none).
    instantiate_request: Callable[[], dict[str, Any]] | None = None

    def save_work(self) -> None:
        """Persist ``work`` now (no-op when the caller keeps none)."""
        if self.persist is not None:
            self.persist()

    def show_waiting(self, message: str | None) -> None:
        """Tell operators what the hook waits for (None: nothing now)."""
        if self.progress is not None:
            self.progress(message)

    def instances_using(self, vim_id: str) -> list[dict[str, Any]]:
        """The other instantiated VNF instances that use VIM ``vim_id``."""
        return self.vim_users(vim_id) if self.vim_users is not None else []

    def instantiated_with(self) -> dict[str, Any]:
        """The InstantiateVnfRequest of the instance's instantiation."""
        if self.instantiate_request is None:
            return {}
        return self.instantiate_request()

    def remaining(self) -> float:
        """Seconds left before the deadline; DeadlineExceeded if none."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise exceptions.DeadlineExceeded(
                f'{self.hook} hook ran past the deadline of {self.operation}.'
            )
        return left


@dataclasses.dataclass
class HookResult:
    """What a hook changed."""

    changes: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return dataclasses.asdict(self)


def _true(value: Any) -> bool:
    return value is True or (
        isinstance(value, str) and value.strip().lower() == 'true'
    )


def is_dry_run(request: dict[str, Any]) -> bool:
    """Whether a modify request asks for a dry run."""
    return _true((request.get('metadata') or {}).get(DRY_RUN))


def is_disruption_allowed(request: dict[str, Any]) -> bool:
    """Whether the request accepts disruption (delete, not evict, Pods)."""
    return any(
        _true((request.get(k) or {}).get(DISRUPTION_ALLOWED))
        for k in ('metadata', 'additionalParams')
    )


def check_changes(where: str, changes: Any) -> dict[str, Any]:
    """``changes`` if it is a dict of known keys; OperationFailed if not."""
    if not isinstance(changes, dict):
        raise exceptions.OperationFailed(
            f'{where} returned changes that are not a JSON object.'
        )
    unknown = sorted(set(changes) - CHANGE_KEYS)
    if unknown:
        raise exceptions.OperationFailed(
            f'{where} returned unknown changes {", ".join(unknown)}; '
            f'allowed: {", ".join(sorted(CHANGE_KEYS))}.'
        )
    if 'vims' in changes:
        _check_vims(where, changes['vims'])
    return changes


def _check_vims(where: str, vims: Any) -> None:
    what = f'{where} returned vims'
    if not isinstance(vims, dict) or set(vims) - {'register', 'delete'}:
        raise exceptions.OperationFailed(
            f'{what} that is not {{"register": [...], "delete": [...]}}.'
        )
    for vim in vims.get('register') or []:
        missing = [k for k in VIM_REQUIRED if not vim.get(k)]
        if missing or not isinstance(vim.get('auth_cred'), (dict, str)):
            raise exceptions.OperationFailed(
                f'{what}/register with a VIM without '
                f'{", ".join(missing or ["auth_cred"])}.'
            )
    if not all(isinstance(v, str) for v in vims.get('delete') or []):
        raise exceptions.OperationFailed(f'{what}/delete that are not ids.')


class MgmtDriver:
    """Base of built-in MgmtDrivers: a method per hook served."""

    name = 'mgmt driver'

    def run_hook(self, ctx: HookContext) -> HookResult:
        """Run the method named after ``ctx.hook``."""
        method = getattr(self, ctx.hook, None)
        if method is None:
            raise exceptions.OperationFailed(
                f'{ctx.hook} hook: built-in MgmtDriver {self.name} does not '
                f'implement {ctx.hook}.'
            )
        return method(ctx)

    def rollback_hook(self, ctx: HookContext) -> HookResult:
        """Run ``rollback_<hook>`` if the driver has it; else nothing."""
        method = getattr(self, f'rollback_{ctx.hook}', None)
        return method(ctx) if method is not None else HookResult()
