"""A Heat stand-in for the driver's unit tests: stacks in a dict, resources
as Heat's API lists them (nested_depth, with_detail)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from vnfm.clients import openstack
from vnfm.drivers.infra.openstack import common

BASE = 'http://heat/v1/p1/stacks'


def resource(
    name: str,
    kind: str,
    phys: str,
    stack: tuple[str, str],
    created: str = '2026-01-01T00:00:00Z',
    nested: tuple[str, str] | None = None,
    **attributes: Any,
) -> dict[str, Any]:
    """One listed resource of stack ``(name, id)``."""
    links = [
        {
            'href': f'{BASE}/{stack[0]}/{stack[1]}/resources/{name}',
            'rel': 'self',
        },
        {'href': f'{BASE}/{stack[0]}/{stack[1]}', 'rel': 'stack'},
    ]
    if nested:
        links.append(
            {'href': f'{BASE}/{nested[0]}/{nested[1]}', 'rel': 'nested'}
        )
    return {
        'resource_name': name,
        'resource_type': kind,
        'physical_resource_id': phys,
        'resource_status': 'CREATE_COMPLETE',
        'creation_time': created,
        'links': links,
        'attributes': attributes,
    }


def port(
    name: str, phys: str, stack: tuple[str, str], server: str, ip: str
) -> dict:
    """An OS::Neutron::Port plugged into ``server``."""
    return resource(
        name,
        'OS::Neutron::Port',
        phys,
        stack,
        device_id=server,
        network_id='net-ext',
        mac_address='fa:16:3e:00:00:01',
        fixed_ips=[{'ip_address': ip, 'subnet_id': 'sub-1'}],
    )


def vm_simple(top: tuple[str, str], members: int = 1) -> list[dict]:
    """The resources of the vm_simple sample's stack: VDU1 in an
    AutoScalingGroup of ``members`` (server, port, volume each), VDU2 a
    server of the top stack with two ports."""
    group = ('vnf-1-VDU1-g', 'grp')
    out = [
        resource(
            'VDU1', 'OS::Heat::AutoScalingGroup', 'grp', top, nested=group
        ),
        resource('VDU2', 'OS::Nova::Server', 'srv-2', top, status='ACTIVE'),
        port('VDU2_CP1', 'p-21', top, 'srv-2', '198.18.0.21'),
        port('VDU2_CP2', 'p-22', top, 'srv-2', '198.18.1.22'),
    ]
    for i in range(members):
        member = (f'vnf-1-VDU1-m{i}', f'm{i}')
        created = f'2026-01-01T00:00:0{i}Z'
        out += [
            resource(f'mem{i}', 'VDU1.yaml', f'm{i}', group, created, member),
            resource(
                'VDU1',
                'OS::Nova::Server',
                f'srv-1-{i}',
                member,
                created,
                status='ACTIVE',
            ),
            port(
                'VDU1_CP1', f'p-1{i}', member, f'srv-1-{i}', f'198.18.0.1{i}'
            ),
            resource(
                'VirtualStorage', 'OS::Cinder::Volume', f'vol-{i}', member
            ),
        ]
    return out


class FakeHeat:
    """The Heat interface the driver uses, recording what it asked."""

    def __init__(self) -> None:
        self.stacks: dict[str, openstack.Stack] = {}
        self.resource_list: list[dict] = []
        self.calls: list[tuple] = []
        self.fail: openstack.OpenStackError | None = None
        self.conn = type('Conn', (), {'counts': {'keystone': 1, 'heat': 3}})()

    def find(self, name: str) -> openstack.Stack | None:
        self.calls.append(('find', name))
        return next((s for s in self.stacks.values() if s.name == name), None)

    def get(self, ref: str) -> openstack.Stack:
        self.calls.append(('get', ref))
        stack = self.stacks.get(ref.rsplit('/', 1)[-1])
        if stack is None:
            raise openstack.NotFound(f'no stack {ref}')
        return stack

    def create(
        self, name: str, template: str, files: dict, parameters: dict
    ) -> str:
        self.calls.append(('create', name, parameters))
        self.stacks['sid'] = openstack.Stack(
            'sid', name, 'CREATE_COMPLETE', '', parameters, {}
        )
        return 'sid'

    def update(
        self, ref: str, template: Any, files: Any, parameters: dict
    ) -> None:
        self.calls.append(('update', ref, parameters))

    def delete(self, ref: str) -> bool:
        self.calls.append(('delete', ref))
        return self.stacks.pop(ref.rsplit('/', 1)[-1], None) is not None

    def mark_unhealthy(self, ref: str, name: str, reason: str) -> None:
        self.calls.append(('mark_unhealthy', ref, name))

    def last_event(self, ref: str) -> str:
        return 'e0'

    def resources(self, ref: str) -> list[dict]:
        self.calls.append(('resources', ref))
        return self.resource_list

    def wait(
        self,
        stack: openstack.Stack,
        action: str,
        deadline: float,
        marker: Any = None,
    ) -> str:
        self.calls.append(('wait', stack.ref, action))
        if self.fail is not None:
            raise self.fail
        return f'{action}_COMPLETE'


@pytest.fixture
def heat(monkeypatch: pytest.MonkeyPatch) -> FakeHeat:
    """A FakeHeat the driver's operations get for their VIM."""
    fake = FakeHeat()

    @contextlib.contextmanager
    def heat_for(ctx: Any) -> Iterator[tuple[str, Any]]:
        yield 'vim1', fake

    monkeypatch.setattr(common, 'heat_for', heat_for)
    return fake
