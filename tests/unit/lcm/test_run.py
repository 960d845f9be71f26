"""An op's run: each step runs once across retries, its progress is saved
with the op, and a conductor that lost the op stops writing."""

from __future__ import annotations

import pytest

from vnfm.db import api as db
from vnfm.lcm import cancel
from vnfm.lcm import run as run_mod

from .fixtures import op_run


def test_a_step_runs_once_and_its_result_is_saved(db_url):
    run = op_run()
    calls: list[str] = []

    def create() -> dict:
        calls.append('create')
        return {'created': ['pod-1']}

    assert run.step('create_pods', create, vdu='VDU1') == {
        'created': ['pod-1']
    }
    assert run.step('create_pods', create) == {'created': ['pod-1']}

    assert calls == ['create']
    saved = db.op_get(run.op['id'])['work']['steps']['create_pods']
    assert saved == {
        'state': 'done',
        'result': {'created': ['pod-1']},
        'vdu': 'VDU1',
    }


def test_a_retry_skips_the_steps_an_earlier_attempt_finished(db_url):
    first = op_run()
    first.step('a', lambda: {'n': 1})
    with pytest.raises(RuntimeError):
        first.step('b', _fails)

    retry = op_run_of(first)
    ran: list[str] = []

    assert retry.step('a', lambda: ran.append('a')) == {'n': 1}
    retry.step('b', lambda: ran.append('b'))

    assert ran == ['b']
    assert first.step_state('b') == 'started'
    assert retry.step_state('b') == 'done'


def _fails() -> dict:
    raise RuntimeError('the VIM went away')


def op_run_of(run: run_mod.OpRun) -> run_mod.OpRun:
    """The same op read back from the database, as a retry starts it."""
    op = db.op_get(run.op['id'])
    return run_mod.OpRun(
        **{
            **{f: getattr(run, f) for f in run.__dataclass_fields__},
            'op': op,
            'work': op['work'],
        }
    )


def test_a_pending_cancel_stops_before_the_next_step(db_url):
    run = op_run()
    db.op_update(run.op['id'], {'is_cancel_pending': True})
    ran: list[str] = []

    with pytest.raises(cancel.Cancelled):
        run.step('create_pods', lambda: ran.append('x'))

    assert ran == []


def test_a_conductor_that_lost_the_op_stops_writing(db_url):
    run = op_run()
    db.op_update(run.op['id'], {'owner': 'c2/9'})

    with pytest.raises(run_mod.LeaseLost):
        run.save_work()
    with pytest.raises(run_mod.LeaseLost):
        run.step('create_pods', lambda: {'x': 1})

    assert db.op_get(run.op['id'])['work'] in (None, {})


def test_what_the_op_waits_for_is_saved_only_when_it_changes(db_url):
    run = op_run()
    saves: list[dict] = []
    real = run.save_work

    def counting(extra=None) -> None:
        saves.append(dict(run.work))
        real(extra)

    run.save_work = counting  # type: ignore[method-assign]

    run.show_waiting('Waiting for Pod vdu1-0 to be Ready')
    run.show_waiting('Waiting for Pod vdu1-0 to be Ready')
    run.show_waiting(None)
    run.show_waiting(None)

    assert len(saves) == 2
    assert db.op_get(run.op['id'])['work'] == {}


def test_hook_changes_are_those_of_finished_hooks_in_order(db_url):
    run = op_run()
    run.work['steps'] = {
        'instantiate_start': {
            'state': 'done',
            'result': {'changes': {'vims': {'v': None}}},
        },
        'create': {'state': 'done', 'result': {'created': 1}},
        'instantiate_end': {
            'state': 'started',
            'result': {'changes': {'ignored': 1}},
        },
        'other': {'state': 'done', 'result': {'changes': None}},
    }

    assert run.hook_changes() == [{'vims': {'v': None}}, {}]


def test_the_request_and_flavour_of_the_run(db_url):
    run = op_run()

    assert run.request['flavourId'] == 'simple'
    assert run.flavour_id == 'simple'
    masked = run.request_view['vimConnectionInfo']['vim1']['accessInfo']
    assert 'secret-pw' not in str(masked)
    assert 0 < run.remaining() <= 60
