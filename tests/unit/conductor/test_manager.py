"""The conductor's RPC endpoints: a cast hands its job to the pool and
returns; the same doorbell rung twice runs once; a crash is recorded on
the op."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from vnfm.common import context
from vnfm.conductor import manager
from vnfm.conductor.workers import WorkPool
from vnfm.db import api as db

from ..lcm.fixtures import instantiate_params
from ..lcm.fixtures import make_lcm
from ..lcm.fixtures import new_instance
from ..lcm.fixtures import new_op
from ..lcm.fixtures import onboarded_package
from ..lcm.fixtures import sample_csar

DEADLINE = 30.0
CTX = context.get_admin_context()


@pytest.fixture
def pool() -> Iterator[WorkPool]:
    pool = WorkPool(2)
    yield pool
    pool.stop(DEADLINE)


def test_start_lcm_op_runs_the_op(db_url, hook_record, pool):
    endpoint = manager.ConductorManager(make_lcm()[0], pool)
    inst = new_instance(onboarded_package())
    op = new_op(inst, 'INSTANTIATE', instantiate_params())

    endpoint.start_lcm_op(CTX, op['id'])

    assert pool.wait_idle(DEADLINE)
    assert db.op_get(op['id'])['operation_state'] == 'COMPLETED'
    assert db.instance_get(inst['id'])['instantiation_state'] == (
        'INSTANTIATED'
    )


class BlockingLcm:
    """An LCM driver whose runs wait until released."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.crashes: list[tuple[str, str]] = []
        self.release = threading.Event()
        self.running = threading.Event()

    def start(self, op_id: str) -> None:
        self.started.append(op_id)
        self.running.set()
        self.release.wait(DEADLINE)
        if op_id == 'op-crash':
            raise RuntimeError('driver bug')

    def record_crash(self, op_id: str, error: BaseException) -> None:
        self.crashes.append((op_id, str(error)))


def test_a_cast_repeated_while_the_op_runs_runs_it_once(pool):
    lcm = BlockingLcm()
    endpoint = manager.ConductorManager(lcm, pool)  # type: ignore[arg-type]

    endpoint.start_lcm_op(CTX, 'op-1')
    assert lcm.running.wait(DEADLINE)
    endpoint.start_lcm_op(CTX, 'op-1')
    assert manager.submit_op(pool, lcm, 'op-1') is False  # type: ignore[arg-type]
    lcm.release.set()

    assert pool.wait_idle(DEADLINE)
    assert lcm.started == ['op-1']


def test_a_crashed_run_is_recorded_on_its_op(pool):
    lcm = BlockingLcm()
    lcm.release.set()

    assert manager.submit_op(pool, lcm, 'op-crash')  # type: ignore[arg-type]

    assert pool.wait_idle(DEADLINE)
    assert lcm.crashes == [('op-crash', 'driver bug')]


def test_onboard_package_onboards_an_uploaded_package(db_url, pool):
    endpoint = manager.ConductorManager(make_lcm()[0], pool)
    row = db.package_create(
        {
            'onboarding_state': 'CREATED',
            'operational_state': 'DISABLED',
            'usage_state': 'NOT_IN_USE',
        }
    )
    db.package_content_put(row['id'], sample_csar())
    db.package_update(row['id'], {'onboarding_state': 'PROCESSING'})

    endpoint.onboard_package(CTX, row['id'])

    assert pool.wait_idle(DEADLINE)
    onboarded = db.package_get(row['id'])
    assert onboarded['onboarding_state'] == 'ONBOARDED'
    assert onboarded['vnf_product_name'] == 'Noop Sample VNF'
