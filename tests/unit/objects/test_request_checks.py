"""vnfm.objects.request_checks: the validators the drivers publish, run by
the API before an LCM task is recorded."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import metadata
from typing import Any

import pytest

from vnfm.common import exceptions
from vnfm.objects import infra
from vnfm.objects import k8s_cluster
from vnfm.objects import request_checks
from vnfm.objects.states import LcmOperation

_K8S = 'ETSINFV.KUBERNETES.V_1'
_NOOP = 'VNFM.NOOP.V_1'


def _hook(builtin: str | None) -> dict[str, Any]:
    return {'builtin': builtin, 'file': None if builtin else 'Scripts/x.py'}


def _request(
    flavour: dict[str, Any] | None = None,
) -> request_checks.LcmRequest:
    return request_checks.LcmRequest(
        LcmOperation.INSTANTIATE, {'flavourId': 'f'}, flavour or {}, 'i-1'
    )


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    request_checks.published.cache_clear()
    yield
    request_checks.published.cache_clear()


def test_the_cluster_driver_publishes_its_check() -> None:
    assert request_checks.published(
        request_checks.MGMT_NAMESPACE, 'kubernetes_cluster'
    ) == (k8s_cluster.check_request,)


def test_a_driver_may_publish_nothing() -> None:
    assert (
        request_checks.published(request_checks.INFRA_NAMESPACE, 'noop') == ()
    )


def test_a_published_object_must_be_callable(monkeypatch, fresh_cache) -> None:
    def entry_points(group: str, name: str) -> list[metadata.EntryPoint]:
        value = 'vnfm.objects.request_checks:MGMT_NAMESPACE'
        return [metadata.EntryPoint(name=name, value=value, group=group)]

    monkeypatch.setattr(request_checks.metadata, 'entry_points', entry_points)
    with pytest.raises(request_checks.BadValidator, match='not callable'):
        request_checks.published(request_checks.MGMT_NAMESPACE, 'broken')


def test_mgmt_drivers_of_a_flavour() -> None:
    flavour = {
        'interfaces': {
            'instantiate_start': _hook(None),
            'instantiate_end': _hook('kubernetes_cluster'),
            'heal_end': _hook('kubernetes_cluster'),
        }
    }
    assert request_checks.mgmt_drivers(flavour) == [
        'kubernetes_cluster',
        'script',
    ]
    assert request_checks.mgmt_drivers({}) == []


def test_check_runs_the_infra_and_mgmt_drivers_validators(monkeypatch) -> None:
    seen: list[tuple[str, str]] = []

    def published(namespace: str, name: str) -> tuple[Any, ...]:
        return (lambda request: seen.append((namespace, name)),)

    monkeypatch.setattr(request_checks, 'published', published)
    enabled = infra.enabled(('noop', 'kubernetes'))
    flavour = {'interfaces': {'instantiate_end': _hook('container_update')}}
    # A vimType no enabled driver serves has no validator to run.
    request_checks.check(_request(flavour), [_K8S, 'OTHER'], enabled)
    assert seen == [
        (request_checks.INFRA_NAMESPACE, 'kubernetes'),
        (request_checks.MGMT_NAMESPACE, 'container_update'),
    ]


def test_a_validators_error_propagates(monkeypatch) -> None:
    def refuse(request: request_checks.LcmRequest) -> None:
        raise exceptions.BadRequest(f'{request.vnf_instance_id}: no.')

    monkeypatch.setattr(
        request_checks, 'published', lambda namespace, name: (refuse,)
    )
    with pytest.raises(exceptions.BadRequest, match='^i-1: no.$'):
        request_checks.check(_request(), [_NOOP], infra.enabled(('noop',)))
