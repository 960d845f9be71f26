"""The infrastructure driver contract: one ABC every VIM type implements.

Infra drivers create, change and delete VIM resources. They never touch the
database: they get an ``InfraContext`` and return an ``InfraResult`` saying
what changed, and the LCM driver persists it. A driver raises
``vnfm.common.exceptions.OperationFailed`` (or ``DeadlineExceeded``) with a
detail a user can act on when a step fails.

Retry runs a step again after a failure, so every method must be idempotent
given ``ctx.work`` (what the driver returned as ``InfraResult.work`` from an
earlier attempt of the same op occurrence, also kept when the step failed
half-way only if the driver raised ``PartialFailure`` with its work).
"""

from __future__ import annotations

import abc
import dataclasses
import time
from typing import Any, ClassVar

from vnfm.common import exceptions
from vnfm.drivers import scaling
from vnfm.drivers.package_files import PackageFiles
from vnfm.objects import infra


@dataclasses.dataclass
class InfraContext:
    """Everything an infra driver needs for one LCM step."""

    operation: str  # LcmOperationType, e.g. 'INSTANTIATE'
    vnf_instance: dict[str, Any]  # SOL VnfInstance (secrets masked)
    request: dict[str, Any]  # the LCM request (operationParams)
    vnfd: dict[str, Any]  # vnfm.csar.Vnfd.to_dict() of the package
    flavour_id: str | None
    # The vimConnectionInfo entries (id -> VimConnectionInfo) this driver
    # handles, secrets in clear.
    vim_connection_info: dict[str, dict[str, Any]]
    package: PackageFiles
    deadline: float  # time.monotonic() value
    work: dict[str, Any] = dataclasses.field(default_factory=dict)
    # CHANGE_VNFPKG: the target package and its VNFD.
    target_vnfd: dict[str, Any] | None = None
    target_package: PackageFiles | None = None
    # The op occurrence's id: a FORCEFUL cancel kills the package code
    # (user-data classes) running for it.
    op_id: str | None = None

    def remaining(self) -> float:
        """Seconds left before the deadline; DeadlineExceeded if none."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise exceptions.DeadlineExceeded(
                f'{self.operation} ran past its deadline.'
            )
        return left

    def vim_connection(self) -> tuple[str, dict[str, Any]]:
        """The (id, VimConnectionInfo) this step runs on."""
        return next(iter(self.vim_connection_info.items()))


@dataclasses.dataclass
class InfraResult:
    """What an infra step changed."""

    # The new instantiatedVnfInfo (None: unchanged; terminate clears it
    # itself).
    instantiated_vnf_info: dict[str, Any] | None = None
    # SOL VnfLcmOpOcc.resourceChanges: affectedVnfcs, affectedVirtualLinks,
    # affectedExtLinkPorts, affectedVirtualStorages.
    resource_changes: dict[str, Any] | None = None
    # Driver-private state kept in the op occurrence for retry and rollback.
    work: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (stored in the op occurrence's work)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> InfraResult:
        """Rebuild from ``to_dict()`` output."""
        return cls(**d)


@dataclasses.dataclass
class SyncContext:
    """What an infra driver needs to compare an idle instance with its VIM."""

    vnf_instance: dict[str, Any]  # SOL VnfInstance (secrets masked)
    # The vimConnectionInfo entries (id -> VimConnectionInfo) this driver
    # handles, secrets in clear.
    vim_connection_info: dict[str, dict[str, Any]]
    deadline: float  # time.monotonic() value

    def vim_connection(self) -> tuple[str, dict[str, Any]]:
        """The (id, VimConnectionInfo) the instance runs on."""
        return next(iter(self.vim_connection_info.items()))


class PartialFailure(exceptions.OperationFailed):
    """A step failed after creating something; ``work`` says what, so a
    retry or rollback can find it."""

    def __init__(self, detail: str, work: dict[str, Any]) -> None:
        super().__init__(detail)
        self.work = work


class InfraDriver(abc.ABC):
    """Lifecycle of VNF resources on one kind of VIM."""

    # The vimTypes (VimConnectionInfo.vimType) this driver serves and the
    # operations it runs: the declaration its entry-point name publishes in
    # vnfm.infra_capabilities, which the API reads (checked at load).
    capabilities: ClassVar[infra.Capabilities] = infra.Capabilities()

    @property
    def vim_types(self) -> tuple[str, ...]:
        """The vimType values this driver serves."""
        return self.capabilities.vim_types

    @abc.abstractmethod
    def instantiate(self, ctx: InfraContext) -> InfraResult:
        """Create the resources of the instance."""

    @abc.abstractmethod
    def terminate(self, ctx: InfraContext) -> InfraResult:
        """Delete every resource of the instance (missing ones are fine)."""

    @abc.abstractmethod
    def scale(self, ctx: InfraContext) -> InfraResult:
        """Scale an aspect out or in (ctx.request is a ScaleVnfRequest)."""

    @abc.abstractmethod
    def heal(self, ctx: InfraContext) -> InfraResult:
        """Heal VNFCs (ctx.request is a HealVnfRequest)."""

    @abc.abstractmethod
    def change_vnfpkg(self, ctx: InfraContext) -> InfraResult:
        """Move the instance to ctx.target_vnfd / ctx.target_package."""

    @abc.abstractmethod
    def rollback_instantiate(self, ctx: InfraContext) -> InfraResult:
        """Delete whatever a failed instantiate created (per ctx.work)."""

    @abc.abstractmethod
    def rollback_scale(self, ctx: InfraContext) -> InfraResult:
        """Undo a failed scale (per ctx.work)."""

    @abc.abstractmethod
    def rollback_change_vnfpkg(self, ctx: InfraContext) -> InfraResult:
        """Return to the source package after a failed change (ctx.work)."""

    def operate(self, ctx: InfraContext) -> InfraResult:
        """Start or stop the VNFCs (ctx.request is an OperateVnfRequest);
        only drivers that declare OPERATE implement it."""
        raise exceptions.OperationFailed(
            f'The {type(self).__name__} cannot start or stop VNFCs.'
        )

    def rollback_operate(self, ctx: InfraContext) -> InfraResult:
        """Undo a failed operate (per ctx.work)."""
        raise exceptions.OperationFailed(
            f'The {type(self).__name__} cannot start or stop VNFCs.'
        )

    def change_flavour(self, ctx: InfraContext) -> InfraResult:
        """Move the instance to ctx.request's newFlavourId (a
        ChangeVnfFlavourRequest); only drivers that declare CHANGE_FLAVOUR
        implement it."""
        raise exceptions.OperationFailed(
            f'The {type(self).__name__} cannot change the flavour of a VNF.'
        )

    def rollback_change_flavour(self, ctx: InfraContext) -> InfraResult:
        """Return to the source flavour after a failed change (ctx.work)."""
        raise exceptions.OperationFailed(
            f'The {type(self).__name__} cannot change the flavour of a VNF.'
        )

    def change_ext_conn(self, ctx: InfraContext) -> InfraResult:
        """Put the external CPs on the networks of ctx.request's
        extVirtualLinks; only drivers that declare CHANGE_EXT_CONN
        implement it."""
        raise exceptions.OperationFailed(
            f'The {type(self).__name__} cannot change external connectivity.'
        )

    def rollback_change_ext_conn(self, ctx: InfraContext) -> InfraResult:
        """Put the CPs back after a failed change (ctx.work)."""
        raise exceptions.OperationFailed(
            f'The {type(self).__name__} cannot change external connectivity.'
        )

    def sync(self, ctx: SyncContext) -> dict[str, Any] | None:
        """The instance's instantiatedVnfInfo as the VIM has it now, when it
        differs from the stored one (the VIM replaced resources by itself);
        None when nothing changed. Default: nothing to sync.

        Called periodically for INSTANTIATED instances with no operation in
        progress; the caller stores the result with a compare-and-set.
        """
        return None

    def vim_vnfcs(
        self, ctx: SyncContext, vdu_ids: set[str]
    ) -> dict[str, list[str]] | None:
        """VDU id -> the resource ids (``computeResource.resourceId``) of
        the VNFCs of ``vdu_ids`` the VIM has now, for the instance
        ctx.vnf_instance describes; None when the driver's VIM is vnfm's
        own record (nothing to compare). The LCM driver compares it with
        what an op will report before the op is COMPLETED."""
        return None


# Shared with the MgmtDrivers (which name VNFCs the same way).
heal_targets = scaling.heal_targets
