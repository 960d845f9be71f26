"""The last write of an op: FAILED_TEMP or ROLLED_BACK with a
ProblemDetails, the op released, and only by the conductor that holds it."""

from __future__ import annotations

import datetime

import pytest

from vnfm.common import exceptions
from vnfm.db import api as db
from vnfm.lcm import finish
from vnfm.lcm.run import LeaseLost

from .fixtures import new_instance
from .fixtures import new_op
from .fixtures import onboarded_package

LATER = datetime.datetime(2100, 1, 1)


def running_op(owner: str = 'c1/1', **values: object) -> dict:
    inst = new_instance(onboarded_package())
    return new_op(
        inst,
        'INSTANTIATE',
        operation_state='PROCESSING',
        owner=owner,
        lease_expires_at=LATER,
        **values,
    )


def test_problem_is_the_errors_problem_details():
    error = exceptions.OperationFailed('The hook timed out after 60 s.')

    assert finish.problem(error) == {
        'status': 500,
        'title': error.title,
        'detail': 'The hook timed out after 60 s.',
    }


def test_fail_makes_the_op_failed_temp_with_the_error_and_releases_it(
    db_url,
):
    op = running_op(is_cancel_pending=True, cancel_mode='GRACEFUL')

    finish.fail(op, 'c1/1', exceptions.Conflict('Pod quota exceeded.'))

    row = db.op_get(op['id'])
    assert row['operation_state'] == 'FAILED_TEMP'
    assert row['error']['status'] == 409
    assert row['error']['detail'] == 'Pod quota exceeded.'
    assert (row['owner'], row['lease_expires_at']) == (None, None)
    assert (row['is_cancel_pending'], row['cancel_mode']) == (False, None)


def test_fail_keeps_the_work_done_so_far(db_url):
    op = running_op()

    finish.fail(
        op,
        'c1/1',
        exceptions.OperationFailed('boom'),
        work={'created': ['pod-1']},
    )

    assert db.op_get(op['id'])['work'] == {'created': ['pod-1']}


def test_a_conductor_that_lost_the_op_writes_nothing(db_url):
    op = running_op(owner='c2/7')

    with pytest.raises(LeaseLost):
        finish.fail(op, 'c1/1', exceptions.OperationFailed('late'))

    row = db.op_get(op['id'])
    assert (row['operation_state'], row['owner']) == ('PROCESSING', 'c2/7')
    assert row['error'] is None


def test_abort_rolls_back_an_op_nobody_claimed(db_url):
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'CREATE_SNAPSHOT')

    finish.abort(op, exceptions.BadRequest('vnfm does not support it.'))

    row = db.op_get(op['id'])
    assert row['operation_state'] == 'ROLLED_BACK'
    assert row['error']['status'] == 400
    assert row['error']['detail'] == 'vnfm does not support it.'
