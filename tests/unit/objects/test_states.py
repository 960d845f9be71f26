"""The op occurrence's state machine (SOL003 5.6.2.2, figure B.1): what
each event leads to, what is refused with a 409 saying why, and that the
final states are final."""

from __future__ import annotations

import itertools

import pytest

from vnfm.common import exceptions
from vnfm.objects import states
from vnfm.objects.states import OpEvent as E
from vnfm.objects.states import OpState as S

ALLOWED = [
    (S.STARTING, E.START, S.PROCESSING),
    (S.STARTING, E.ABORT, S.ROLLED_BACK),
    (S.PROCESSING, E.COMPLETE, S.COMPLETED),
    (S.PROCESSING, E.ERROR, S.FAILED_TEMP),
    (S.FAILED_TEMP, E.RETRY, S.PROCESSING),
    (S.FAILED_TEMP, E.ROLLBACK, S.ROLLING_BACK),
    (S.FAILED_TEMP, E.FAIL, S.FAILED),
    (S.ROLLING_BACK, E.ROLLED_BACK, S.ROLLED_BACK),
    (S.ROLLING_BACK, E.ERROR, S.FAILED_TEMP),
]


@pytest.mark.parametrize('current,event,result', ALLOWED)
def test_each_allowed_transition(current, event, result):
    assert states.next_state(current, event) is result
    assert states.next_state(current.value, event.value) is result


@pytest.mark.parametrize(
    'current,event',
    [
        (s, e)
        for s, e in itertools.product(states.OpState, states.OpEvent)
        if (s, e) not in {(a, b) for a, b, _ in ALLOWED}
    ],
)
def test_every_other_transition_is_a_409(current, event):
    with pytest.raises(exceptions.OpStateConflict):
        states.next_state(current, event)


def test_a_refused_event_says_which_states_allow_it():
    with pytest.raises(exceptions.OpStateConflict) as e:
        states.next_state('COMPLETED', 'retry')

    assert str(e.value) == (
        'Cannot retry an operation in state COMPLETED; it must be in '
        'FAILED_TEMP.'
    )


def test_an_event_allowed_from_several_states_names_them_all():
    with pytest.raises(exceptions.OpStateConflict) as e:
        states.next_state('FAILED', 'error')

    assert str(e.value).endswith('it must be in PROCESSING or ROLLING_BACK.')


def test_final_states_have_no_way_out():
    for final in states.FINAL_OP_STATES:
        assert not [e for (s, e) in states.OP_TRANSITIONS if s is final]
    assert {S.COMPLETED, S.FAILED, S.ROLLED_BACK} == states.FINAL_OP_STATES


def test_every_state_is_reachable_from_starting():
    reached, frontier = {S.STARTING}, [S.STARTING]
    while frontier:
        state = frontier.pop()
        for (source, _), target in states.OP_TRANSITIONS.items():
            if source is state and target not in reached:
                reached.add(target)
                frontier.append(target)

    assert reached == set(states.OpState)


def test_active_states_are_those_a_conductor_works_in():
    assert {
        S.STARTING,
        S.PROCESSING,
        S.ROLLING_BACK,
    } == states.ACTIVE_OP_STATES
    assert not states.ACTIVE_OP_STATES & states.FINAL_OP_STATES


def test_an_unknown_state_or_event_is_refused():
    with pytest.raises(ValueError):
        states.next_state('RUNNING', 'start')
    with pytest.raises(ValueError):
        states.next_state('STARTING', 'pause')
