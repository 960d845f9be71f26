"""LCM task requests go through the request validators that the instance's
drivers publish (vnfm.objects.request_checks), before anything is
recorded; the API names no driver."""

from __future__ import annotations

from typing import Any

from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_package
from vnfm.common import exceptions
from vnfm.db import api as db
from vnfm.objects import request_checks

_NOOP = {'v': {'vimType': 'VNFM.NOOP.V_1'}}


def _published(monkeypatch, seen: list, refuse: str = '') -> None:
    """Every driver publishes a validator that records what it saw and
    refuses requests whose additionalParams has key ``refuse``."""

    def published(namespace: str, name: str) -> tuple[Any, ...]:
        def validate(request: request_checks.LcmRequest) -> None:
            seen.append((name, request))
            if refuse in (request.body.get('additionalParams') or {}):
                raise exceptions.BadRequest(f'{name} refuses {refuse}.')

        return (validate,)

    monkeypatch.setattr(request_checks, 'published', published)


def test_instantiate_runs_the_infra_driver_check_with_the_flavour(
    client, rpc, monkeypatch
):
    seen: list = []
    _published(monkeypatch, seen)
    inst = make_instance(make_package(), vim_connection_info=_NOOP)
    body = {'flavourId': 'simple'}
    resp = client.lcm('POST', f'/vnf_instances/{inst["id"]}/instantiate', body)
    assert resp.status_int == 202, resp.body
    [(name, request)] = seen
    assert name == 'noop'
    assert request.operation.value == 'INSTANTIATE'
    assert request.vnf_instance_id == inst['id']
    assert request.body == body
    assert request.flavour['flavour_id'] == 'simple'


def test_a_refused_task_is_a_400_and_records_nothing(client, rpc, monkeypatch):
    seen: list = []
    _published(monkeypatch, seen, refuse='bad')
    inst = make_instance(
        make_package(),
        state='INSTANTIATED',
        vim_connection_info=_NOOP,
        instantiated_vnf_info={'flavourId': 'simple', 'vnfcInfo': []},
    )
    resp = client.lcm(
        'POST',
        f'/vnf_instances/{inst["id"]}/heal',
        {'additionalParams': {'bad': 1}},
    )
    assert resp.status_int == 400
    assert json_of(resp)['detail'] == 'noop refuses bad.'
    # The instance's flavour, for a task other than instantiate.
    assert [
        (n, r.operation.value, r.flavour['flavour_id']) for n, r in seen
    ] == [('noop', 'HEAL', 'simple')]
    assert db.op_list() == [] and rpc.calls == []
