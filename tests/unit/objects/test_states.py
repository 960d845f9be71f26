"""vnfm.objects.states: the op occurrence's transitions."""

from __future__ import annotations

import pytest

from vnfm.common import exceptions
from vnfm.objects import states


def test_an_allowed_event_gives_the_next_state():
    assert (
        states.next_state('FAILED_TEMP', 'retry') is states.OpState.PROCESSING
    )


def test_an_event_the_state_does_not_allow_is_an_op_state_conflict():
    with pytest.raises(exceptions.OpStateConflict) as caught:
        states.next_state('COMPLETED', 'retry')
    assert caught.value.status == 409
