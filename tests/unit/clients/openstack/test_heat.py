"""vnfm.clients.openstack.heat: waiting on a stack's events."""

from __future__ import annotations

import time
import types
from typing import Any

import pytest
from heatclient import exc as heat_exc

from vnfm.clients import openstack
from vnfm.clients.openstack import heat as heat_mod
from vnfm.common import exceptions

STACK = openstack.Stack('sid', 'vnf-1', 'CREATE_IN_PROGRESS', '', {}, {})


def _event(
    n: int, name: str, status: str, reason: str = '', phys: str = 'x'
) -> Any:
    return types.SimpleNamespace(
        id=f'e{n}',
        resource_name=name,
        resource_status=status,
        resource_status_reason=reason,
        physical_resource_id=phys,
    )


class _Events:
    """events.list answering batches in turn (marker-checked)."""

    def __init__(self, batches: list[list[Any]]) -> None:
        self.batches = batches
        self.calls: list[dict] = []

    def list(self, ref: str, **kwargs: Any) -> list[Any]:
        self.calls.append({'ref': ref, **kwargs})
        return self.batches.pop(0) if self.batches else []


def _heat(
    batches: list[list[Any]], stack_status: str | None = None
) -> heat_mod.Heat:
    heat = heat_mod.Heat.__new__(heat_mod.Heat)
    stacks = types.SimpleNamespace(
        get=lambda ref: types.SimpleNamespace(
            stack_status=stack_status or 'CREATE_IN_PROGRESS',
            stack_status_reason='r',
        )
    )
    heat.client = types.SimpleNamespace(events=_Events(batches), stacks=stacks)
    return heat


def test_wait_returns_on_the_stack_event_and_follows_the_marker() -> None:
    heat = _heat(
        [
            [_event(1, 'vnf-1', 'CREATE_IN_PROGRESS', phys='sid')],
            [],
            [_event(2, 'VDU1', 'CREATE_COMPLETE')],
            [_event(3, 'vnf-1', 'CREATE_COMPLETE', phys='sid')],
        ]
    )
    start = time.monotonic()

    status = heat.wait(STACK, 'CREATE', time.monotonic() + 10, marker='e0')

    assert status == 'CREATE_COMPLETE'
    assert time.monotonic() - start < 1.0  # short pauses, no fixed sleep
    calls = heat.client.events.calls
    assert [c['marker'] for c in calls] == ['e0', 'e1', 'e1', 'e2']
    assert {c['ref'] for c in calls} == {'vnf-1/sid'}
    assert all(c['nested_depth'] == heat_mod.NESTED_DEPTH for c in calls)


def test_a_failed_stack_names_the_failed_resource_and_heats_reason() -> None:
    heat = _heat(
        [
            [
                _event(1, 'VDU1', 'CREATE_FAILED', 'ResourceInError: boom'),
                _event(
                    2,
                    'vnf-1',
                    'CREATE_FAILED',
                    'Resource CREATE failed',
                    'sid',
                ),
            ]
        ]
    )

    with pytest.raises(openstack.StackFailed) as caught:
        heat.wait(STACK, 'CREATE', time.monotonic() + 10)

    assert caught.value.resource == 'VDU1'
    assert caught.value.detail == (
        'Heat stack vnf-1 is CREATE_FAILED: resource VDU1 failed: '
        'ResourceInError: boom'
    )


def test_a_stack_that_stays_in_progress_runs_into_the_deadline() -> None:
    heat = _heat([])

    with pytest.raises(exceptions.DeadlineExceeded) as caught:
        heat.wait(STACK, 'CREATE', time.monotonic() + 0.3)

    assert 'vnf-1 did not finish CREATE' in caught.value.detail


def test_without_events_the_stack_itself_is_read() -> None:
    heat = _heat([], stack_status='CREATE_COMPLETE')

    assert (
        heat.wait(STACK, 'CREATE', time.monotonic() + 10) == 'CREATE_COMPLETE'
    )


def test_a_deleted_stack_whose_events_are_gone_is_deleted() -> None:
    heat = _heat([])

    def gone(ref: str, **kwargs: Any) -> list[Any]:
        raise heat_exc.HTTPNotFound()

    heat.client.events.list = gone

    assert (
        heat.wait(STACK, 'DELETE', time.monotonic() + 10) == 'DELETE_COMPLETE'
    )


def test_heat_refusals_become_operation_errors_with_heats_message() -> None:
    err = heat_exc.HTTPBadRequest(
        '{"error": {"message": '
        '"Property error: resources.VDU1.properties.image"}}'
    )

    def refuse() -> None:
        raise err

    with pytest.raises(openstack.OpenStackError) as caught:
        heat_mod._call('create stack vnf-1', refuse)

    assert caught.value.detail == (
        'Heat refused to create stack vnf-1: Property error: '
        'resources.VDU1.properties.image'
    )
