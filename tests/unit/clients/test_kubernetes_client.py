"""KubeClient.evict_until: a PodDisruptionBudget's 429 is retried."""

from __future__ import annotations

import time

import pytest

from vnfm.clients.kubernetes import client, errors


class _Pause:
    def __init__(self) -> None:
        self.waits: list[float] = []

    def wait(self, seconds: float) -> bool:
        self.waits.append(seconds)
        return False


def _kube(answers: list[int | None]) -> client.KubeClient:
    kube = client.KubeClient.__new__(client.KubeClient)
    calls = iter(answers)

    def evict(name: str, namespace: str, grace: int | None = None) -> None:
        status = next(calls)
        if status is not None:
            raise errors.from_status(status, {}, f'evict Pod {name}')

    kube.evict = evict  # type: ignore[method-assign]
    return kube


@pytest.fixture
def pause(monkeypatch: pytest.MonkeyPatch) -> _Pause:
    fake = _Pause()
    monkeypatch.setattr(client, '_pause', fake)
    return fake


def test_429_is_retried_until_the_eviction_is_accepted(pause: _Pause) -> None:
    kube = _kube([429, 429, None])
    kube.evict_until('p', 'ns', 5, time.monotonic() + 60)
    assert len(pause.waits) == 2
    assert all(0 < w <= 1.0 for w in pause.waits)


def test_a_pod_already_gone_counts_as_evicted(pause: _Pause) -> None:
    _kube([404]).evict_until('p', 'ns', 5, time.monotonic() + 60)
    assert pause.waits == []


def test_429_after_the_deadline_is_raised(pause: _Pause) -> None:
    with pytest.raises(errors.KubernetesError) as e:
        _kube([429]).evict_until('p', 'ns', 5, time.monotonic() - 1)
    assert e.value.http_status == 429


def test_other_errors_are_not_retried(pause: _Pause) -> None:
    with pytest.raises(errors.KubernetesForbidden):
        _kube([403]).evict_until('p', 'ns', 5, time.monotonic() + 60)
    assert pause.waits == []
