"""State machines of SOL003, declared once as data.

Every change of an op occurrence's ``operationState`` goes through
``next_state``; the database layer applies it as a compare-and-set.
"""

from __future__ import annotations

import enum

from vnfm.common import exceptions


class OpState(str, enum.Enum):
    """LcmOperationStateType (SOL003 5.5.4.5)."""

    STARTING = 'STARTING'
    PROCESSING = 'PROCESSING'
    COMPLETED = 'COMPLETED'
    FAILED_TEMP = 'FAILED_TEMP'
    FAILED = 'FAILED'
    ROLLING_BACK = 'ROLLING_BACK'
    ROLLED_BACK = 'ROLLED_BACK'


class OpEvent(str, enum.Enum):
    """What happens to an op occurrence."""

    START = 'start'  # a conductor claims a new op
    ABORT = 'abort'  # it failed before changing anything
    COMPLETE = 'complete'
    ERROR = 'error'  # a step failed, or its conductor vanished
    RETRY = 'retry'
    ROLLBACK = 'rollback'
    ROLLED_BACK = 'rolled_back'
    FAIL = 'fail'


S, E = OpState, OpEvent

OP_TRANSITIONS: dict[tuple[OpState, OpEvent], OpState] = {
    (S.STARTING, E.START): S.PROCESSING,
    (S.STARTING, E.ABORT): S.ROLLED_BACK,
    (S.PROCESSING, E.COMPLETE): S.COMPLETED,
    (S.PROCESSING, E.ERROR): S.FAILED_TEMP,
    (S.FAILED_TEMP, E.RETRY): S.PROCESSING,
    (S.FAILED_TEMP, E.ROLLBACK): S.ROLLING_BACK,
    (S.FAILED_TEMP, E.FAIL): S.FAILED,
    (S.ROLLING_BACK, E.ROLLED_BACK): S.ROLLED_BACK,
    (S.ROLLING_BACK, E.ERROR): S.FAILED_TEMP,
}

FINAL_OP_STATES = frozenset({S.COMPLETED, S.FAILED, S.ROLLED_BACK})
# States in which a conductor is (or should be) working on the op.
ACTIVE_OP_STATES = frozenset({S.STARTING, S.PROCESSING, S.ROLLING_BACK})

del S, E


def next_state(current: OpState | str, event: OpEvent | str) -> OpState:
    """The state ``event`` leads to from ``current``; 409 if not allowed."""
    current, event = OpState(current), OpEvent(event)
    try:
        return OP_TRANSITIONS[(current, event)]
    except KeyError:
        allowed = sorted(s.value for s in sources_of(event))
        raise exceptions.OpStateConflict(
            f'Cannot {event.value} an operation in state {current.value}; '
            f'it must be in {" or ".join(allowed)}.'
        ) from None


def sources_of(event: OpEvent | str) -> frozenset[OpState]:
    """States from which ``event`` is allowed."""
    event = OpEvent(event)
    return frozenset(s for (s, e) in OP_TRANSITIONS if e == event)


class InstantiationState(str, enum.Enum):
    """VnfInstance.instantiationState."""

    NOT_INSTANTIATED = 'NOT_INSTANTIATED'
    INSTANTIATED = 'INSTANTIATED'


class OnboardingState(str, enum.Enum):
    """PackageOnboardingStateType (SOL005 9.5.4.3)."""

    CREATED = 'CREATED'
    UPLOADING = 'UPLOADING'
    PROCESSING = 'PROCESSING'
    ONBOARDED = 'ONBOARDED'
    ERROR = 'ERROR'


class OperationalState(str, enum.Enum):
    """PackageOperationalStateType."""

    ENABLED = 'ENABLED'
    DISABLED = 'DISABLED'


class UsageState(str, enum.Enum):
    """PackageUsageStateType."""

    IN_USE = 'IN_USE'
    NOT_IN_USE = 'NOT_IN_USE'


class LcmOperation(str, enum.Enum):
    """LcmOperationType (SOL003 5.5.4.5)."""

    INSTANTIATE = 'INSTANTIATE'
    SCALE = 'SCALE'
    SCALE_TO_LEVEL = 'SCALE_TO_LEVEL'
    CHANGE_FLAVOUR = 'CHANGE_FLAVOUR'
    TERMINATE = 'TERMINATE'
    HEAL = 'HEAL'
    OPERATE = 'OPERATE'
    CHANGE_EXT_CONN = 'CHANGE_EXT_CONN'
    MODIFY_INFO = 'MODIFY_INFO'
    CREATE_SNAPSHOT = 'CREATE_SNAPSHOT'
    REVERT_TO_SNAPSHOT = 'REVERT_TO_SNAPSHOT'
    CHANGE_VNFPKG = 'CHANGE_VNFPKG'
