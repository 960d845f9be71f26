"""vnfm grants its own operations (SOL003 clause 9): the op occurrence
shows one grantId, the same across retries."""

from __future__ import annotations

import pytest

from vnfm.db import api as db
from vnfm.lcm import grant
from vnfm.lcm.run import LeaseLost

from .fixtures import onboarded_package
from .fixtures import op_run


def test_the_grant_id_is_recorded_on_the_op(db_url):
    run = op_run()

    grant_id = grant.grant(run)

    row = db.op_get(run.op['id'])
    assert row['grant_id'] == grant_id
    assert row['work']['grantId'] == grant_id


def test_a_second_grant_of_the_op_is_the_same_one(db_url):
    run = op_run()
    first = grant.grant(run)

    assert grant.grant(run) == first
    assert db.op_get(run.op['id'])['grant_id'] == first


def test_each_op_gets_its_own_grant(db_url):
    package = onboarded_package()

    assert grant.grant(op_run(package)) != grant.grant(op_run(package))


def test_a_conductor_that_lost_the_op_records_no_grant(db_url):
    run = op_run()
    db.op_update(run.op['id'], {'owner': 'c2/9'})

    with pytest.raises(LeaseLost):
        grant.grant(run)

    assert db.op_get(run.op['id'])['grant_id'] is None
