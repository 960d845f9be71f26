"""KubeClient.evict_until: a PodDisruptionBudget's 429 is retried."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from vnfm.clients.kubernetes import client
from vnfm.clients.kubernetes import errors
from vnfm.conf import CONF

from ..webserver import Web


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


PDB_429 = {
    'kind': 'Status',
    'message': "Cannot evict pod as it would violate the pod's disruption "
    'budget.',
    'reason': 'TooManyRequests',
    'details': {
        'causes': [
            {
                'reason': 'DisruptionBudget',
                'message': 'The disruption budget web-pdb needs 1 healthy '
                'pods and has 1 currently',
            }
        ]
    },
    'code': 429,
}


class _Clock:
    """time.monotonic of the client module, moved on by the pauses."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.waits: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def wait(self, seconds: float) -> bool:
        self.waits.append(seconds)
        self.now += seconds
        return False


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> _Clock:
    fake = _Clock()
    monkeypatch.setattr(client, '_pause', fake)
    monkeypatch.setattr(client.time, 'monotonic', fake.monotonic)
    return fake


def _refusing_kube() -> client.KubeClient:
    kube = client.KubeClient.__new__(client.KubeClient)

    def evict(name: str, namespace: str, grace: int | None = None) -> None:
        raise errors.from_status(429, PDB_429, f'evict Pod {name}')

    kube.evict = evict  # type: ignore[method-assign]
    return kube


def test_eviction_has_its_own_deadline_naming_pod_and_budget(
    clock: _Clock,
) -> None:
    CONF.set_override('eviction_timeout', 30, group='kubernetes')
    try:
        seen: list[str] = []
        with pytest.raises(errors.EvictionBlocked) as e:
            # The op's deadline is an hour away: the eviction's comes first.
            _refusing_kube().evict_until(
                'web-0', 'ns', 5, clock.now + 3600, seen.append
            )
    finally:
        CONF.clear_override('eviction_timeout', group='kubernetes')
    assert 30 <= sum(clock.waits) <= 31
    assert e.value.http_status == 429
    assert 'Pod ns/web-0' in e.value.detail
    assert 'PodDisruptionBudget ns/web-pdb' in e.value.detail
    assert 'still refused after 30 s' in e.value.detail
    # What the op waits for, after each refusal.
    assert seen[0] == (
        'waiting for eviction of Pod ns/web-0, blocked by '
        'PodDisruptionBudget ns/web-pdb (The disruption budget web-pdb '
        'needs 1 healthy pods and has 1 currently)'
    )
    assert len(seen) == len(clock.waits)


def test_429_causes_are_in_the_detail() -> None:
    err = errors.from_status(429, PDB_429, 'evict Pod p')
    assert err.causes == (
        'The disruption budget web-pdb needs 1 healthy pods and has 1 '
        'currently',
    )
    assert 'needs 1 healthy pods' in err.detail
    assert errors.disruption_budget(err) == 'web-pdb'


# -- the outbound policy ([outbound], vim_allowed_networks) ------------------

_DISCOVERY = {
    '/version': {'major': '1', 'minor': '30', 'gitVersion': 'v1.30.0'},
    '/api': {'kind': 'APIVersions', 'versions': ['v1']},
    '/apis': {'kind': 'APIGroupList', 'apiVersion': 'v1', 'groups': []},
    '/api/v1': {
        'kind': 'APIResourceList',
        'groupVersion': 'v1',
        'resources': [
            {
                'name': 'namespaces',
                'singularName': 'namespace',
                'namespaced': False,
                'kind': 'Namespace',
                'verbs': ['get', 'list'],
            }
        ],
    },
    '/api/v1/namespaces/default': {
        'kind': 'Namespace',
        'apiVersion': 'v1',
        'metadata': {'name': 'default'},
    },
}


def _vim_at(url: str) -> dict:
    return {
        'vimType': 'ETSINFV.KUBERNETES.V_1',
        'interfaceInfo': {'endpoint': url, 'skip_tls_verify': True},
        'accessInfo': {'bearer_token': 'token'},
    }


@pytest.fixture
def api_server(web: Web) -> Web:
    """The loopback web server answering as a tiny Kubernetes API."""
    for path, doc in _DISCOVERY.items():
        headers = {'Content-Type': 'application/json'}
        web.routes[path] = (200, headers, json.dumps(doc).encode())
    return web


@pytest.mark.parametrize('host', ['127.0.0.1', 'localhost', '[::1]'])
def test_a_vim_at_a_denied_address_is_refused_before_connecting(
    api_server: Web, connects: list, conf: Any, host: str
) -> None:
    conf('allowed_networks', [], 'outbound')
    conf('vim_allowed_networks', [], 'outbound')
    url = f'http://{host}:{api_server.port}'

    with (
        client.KubeClient(_vim_at(url)) as kube,
        pytest.raises(errors.KubernetesUnreachable) as e,
    ):
        kube.get('v1', 'Namespace', 'default')

    assert 'refused by policy' in e.value.detail
    assert '[outbound] vim_allowed_networks' in e.value.detail
    assert connects == [] and api_server.seen == []


def test_vim_allowed_networks_lets_a_vim_connect(
    api_server: Web, conf: Any
) -> None:
    conf('allowed_networks', [], 'outbound')
    conf('vim_allowed_networks', ['127.0.0.0/8'], 'outbound')

    with client.KubeClient(_vim_at(api_server.base)) as kube:
        found = kube.get('v1', 'Namespace', 'default')

    assert found is not None and found['metadata']['name'] == 'default'
    assert ('/api/v1/namespaces/default', 'Bearer token') in api_server.seen
