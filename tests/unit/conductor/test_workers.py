"""The conductor's work pool: a doorbell rung twice runs the job once,
a crash is recorded, stopping drops what has not started."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from vnfm.conductor import workers

DEADLINE = 10.0


@pytest.fixture
def pool() -> Iterator[workers.WorkPool]:
    pool = workers.WorkPool(1)
    yield pool
    pool.stop(DEADLINE)


def blocked(pool: workers.WorkPool, key: str) -> threading.Event:
    """Run a job under ``key`` that holds the pool's one thread until the
    returned event is set."""
    started, release = threading.Event(), threading.Event()

    def job() -> None:
        started.set()
        release.wait(DEADLINE)

    assert pool.submit(key, job)
    assert started.wait(DEADLINE)
    return release


def test_a_key_queued_or_running_is_not_queued_again(pool):
    ran: list[str] = []
    release = blocked(pool, 'op-1')

    assert not pool.submit('op-1', ran.append, 'again')
    assert pool.submit('op-2', ran.append, 'op-2')
    assert not pool.submit('op-2', ran.append, 'twice')
    assert sorted(pool.busy()) == ['op-1', 'op-2']

    release.set()
    assert pool.wait_idle(DEADLINE)
    assert ran == ['op-2']
    assert pool.busy() == []


def test_a_finished_key_can_run_again(pool):
    ran: list[int] = []

    assert pool.submit('op-1', ran.append, 1)
    assert pool.wait_idle(DEADLINE)
    assert pool.submit('op-1', ran.append, 2)
    assert pool.wait_idle(DEADLINE)

    assert ran == [1, 2]


def test_a_crash_is_handed_to_on_crash_and_frees_the_key(pool):
    crashes: list[BaseException] = []

    def job() -> None:
        raise RuntimeError('driver bug')

    assert pool.submit('op-1', job, on_crash=crashes.append)
    assert pool.wait_idle(DEADLINE)

    assert [str(e) for e in crashes] == ['driver bug']
    assert pool.busy() == []


def test_a_failing_on_crash_does_not_kill_the_worker(pool):
    ran: list[str] = []

    def job() -> None:
        raise RuntimeError('driver bug')

    def on_crash(error: BaseException) -> None:
        raise ConnectionError('database down')

    assert pool.submit('op-1', job, on_crash=on_crash)
    assert pool.submit('op-2', ran.append, 'op-2')
    assert pool.wait_idle(DEADLINE)

    assert ran == ['op-2']


def test_wait_idle_answers_false_while_a_job_runs(pool):
    release = blocked(pool, 'op-1')

    assert pool.wait_idle(0.01) is False

    release.set()
    assert pool.wait_idle(DEADLINE) is True


def test_stop_drops_queued_jobs_and_refuses_new_ones(pool):
    ran: list[str] = []
    release = blocked(pool, 'op-1')
    assert pool.submit('op-2', ran.append, 'op-2')

    def release_once_op_2_is_dropped() -> None:
        done = threading.Event()
        for _ in range(int(DEADLINE * 1000)):
            if pool.busy() == ['op-1']:
                break
            done.wait(0.001)
        release.set()

    releaser = threading.Thread(target=release_once_op_2_is_dropped)
    releaser.start()
    assert pool.stop(DEADLINE) is True
    releaser.join(DEADLINE)

    assert ran == []
    assert not pool.submit('op-3', ran.append, 'op-3')


def test_stop_answers_false_when_a_job_outlives_the_timeout(pool):
    release = blocked(pool, 'op-1')

    assert pool.stop(0.01) is False

    release.set()


def test_free_counts_the_threads_without_a_job(pool):
    assert pool.free() == 1
    release = blocked(pool, 'op-1')
    assert pool.free() == 0
    assert pool.submit('op-2', lambda: None)  # queued: still none free
    assert pool.free() == 0

    release.set()
    assert pool.wait_idle(DEADLINE)
    assert pool.free() == 1
