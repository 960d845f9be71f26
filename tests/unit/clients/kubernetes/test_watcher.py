"""vnfm.clients.kubernetes.watcher: a wait ends at its deadline, or at once
when the op it waits for is cancelled FORCEFULly."""

from __future__ import annotations

import threading
import time

import pytest

from vnfm.clients import deadlines
from vnfm.clients.kubernetes import watcher
from vnfm.common import exceptions


def _never() -> tuple[bool, str]:
    return False, '0 of 1 Pods ready'


def test_a_wait_ends_at_its_deadline() -> None:
    informer = watcher.Informer(kube=None, specs=[])  # type: ignore[arg-type]
    with pytest.raises(exceptions.DeadlineExceeded) as caught:
        informer.wait(_never, time.monotonic() + 0.2, 'Pods to be ready')
    assert caught.value.detail == (
        'Kubernetes: timed out waiting for Pods to be ready: 0 of 1 Pods ready'
    )


def test_a_forceful_cancel_ends_the_wait_at_once() -> None:
    informer = watcher.Informer(kube=None, specs=[])  # type: ignore[arg-type]
    ended: list[BaseException] = []

    def run() -> None:
        with deadlines.for_op('op-w'):
            try:
                informer.wait(_never, time.monotonic() + 60, 'Pods')
            except exceptions.VnfmError as e:
                ended.append(e)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 5
    while not deadlines.interrupt('op-w'):  # once the wait has begun
        assert time.monotonic() < deadline
        time.sleep(0.01)
    thread.join(5)

    assert not thread.is_alive(), 'the wait went on after the cancel'
    assert isinstance(ended[0], deadlines.CallInterrupted)
    assert ended[0].detail == (
        'Kubernetes: waiting for Pods: interrupted by a FORCEFUL cancel of '
        'the operation.'
    )
