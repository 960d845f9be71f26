"""Heat of the local cloud, as a tenant and the real clients see it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
import requests
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import wait_for
from .conftest import openstack

NESTED = """
heat_template_version: 2021-04-16
parameters:
  length: {type: number}
resources:
  secret:
    type: OS::Heat::RandomString
    properties: {length: {get_param: length}}
outputs:
  value: {value: {get_attr: [secret, value]}}
"""

TEMPLATE = """
heat_template_version: 2021-04-16
parameters:
  length: {type: number, default: 12}
resources:
  word:
    type: OS::Heat::RandomString
    properties: {length: {get_param: length}}
  inner:
    type: nested.yaml
    properties: {length: 7}
outputs:
  word: {value: {get_attr: [word, value]}}
  inner: {value: {get_attr: [inner, value]}}
"""


def _stack(heat: heat_client.Client, stack_id: str) -> object:
    return heat.stacks.get(stack_id)


def _settled(heat: heat_client.Client, stack_id: str) -> object | None:
    stack = _stack(heat, stack_id)
    return None if stack.stack_status.endswith('IN_PROGRESS') else stack


def _create(heat: heat_client.Client, name: str, **params: object) -> object:
    created = heat.stacks.create(
        stack_name=name,
        template=TEMPLATE,
        files={'nested.yaml': NESTED},
        parameters=params,
    )
    return wait_for(
        lambda: _settled(heat, created['stack']['id']), 120, f'stack {name}'
    )


def _outputs(stack: object) -> dict[str, object]:
    return {o['output_key']: o['output_value'] for o in stack.outputs}


def test_non_admin_creates_updates_and_deletes_a_nested_stack(
    heat_for: Callable[[str], heat_client.Client],
) -> None:
    heat = heat_for('demo')
    name = f's-{uuid.uuid4().hex[:6]}'

    stack = _create(heat, name)

    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    outputs = _outputs(stack)
    assert len(outputs['word']) == 12
    assert len(outputs['inner']) == 7
    assert name in [s.stack_name for s in heat.stacks.list()]

    heat.stacks.update(stack.id, existing=True, parameters={'length': 20})
    updated = wait_for(
        lambda: (
            (s := _settled(heat, stack.id))
            and s.stack_status.startswith('UPDATE')
            and s
        ),
        120,
        'the update',
    )
    assert updated.stack_status == 'UPDATE_COMPLETE'
    assert len(_outputs(updated)['word']) == 20
    assert _outputs(updated)['inner'] == outputs['inner']

    heat.stacks.delete(stack.id)
    gone = wait_for(
        lambda: (
            _stack(heat, stack.id).stack_status
            in ('DELETE_COMPLETE', 'DELETE_FAILED')
            and _stack(heat, stack.id)
        ),
        120,
        'the delete',
    )
    assert gone.stack_status == 'DELETE_COMPLETE'
    wait_for(
        lambda: stack.id not in [s.id for s in heat.stacks.list()],
        30,
        'the deleted stack to leave the list',
    )


def test_projects_do_not_see_each_others_stacks(
    heat_for: Callable[[str], heat_client.Client],
) -> None:
    demo, other = heat_for('demo'), heat_for('other')
    stack = _create(demo, f'mine-{uuid.uuid4().hex[:6]}')
    try:
        assert stack.id not in [s.id for s in other.stacks.list()]
        with pytest.raises(heat_exc.HTTPNotFound):
            other.stacks.get(stack.id)
    finally:
        demo.stacks.delete(stack.id)


def test_reader_lists_but_cannot_create(
    heat_for: Callable[[str], heat_client.Client],
) -> None:
    reader = heat_for('demo-reader')

    reader.stacks.list()  # allowed
    with pytest.raises(heat_exc.HTTPForbidden):
        reader.stacks.create(
            stack_name='nope', template=NESTED, parameters={'length': 4}
        )


def test_a_bad_token_is_401(local_cloud: LocalCloud) -> None:
    project_id = local_cloud.session('demo').get_project_id()
    url = f'{local_cloud.heat_url}/v1/{project_id}/stacks'

    assert requests.get(url, timeout=10).status_code == 401
    bad = requests.get(
        url, headers={'X-Auth-Token': 'gAAAAAbogus'}, timeout=10
    )
    assert bad.status_code == 401
    assert 'www-authenticate' in {k.lower() for k in bad.headers}


def test_a_template_heat_rejects_fails_with_heats_error(
    heat_for: Callable[[str], heat_client.Client],
) -> None:
    bad = NESTED.replace('OS::Heat::RandomString', 'OS::Heat::NoSuchThing')
    with pytest.raises(heat_exc.HTTPBadRequest) as e:
        heat_for('demo').stacks.create(
            stack_name='bad', template=bad, parameters={'length': 4}
        )
    assert 'OS::Heat::NoSuchThing' in str(e.value)


def test_openstackclient_finds_heat_in_the_catalog(
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    catalog = json.loads(
        openstack(local_cloud, 'demo', 'catalog', 'list', '-f', 'json')
    )
    assert {'identity', 'orchestration'} <= {c['Type'] for c in catalog}
    template = tmp_path / 'one.yaml'
    template.write_text(NESTED)
    name = f'osc-{uuid.uuid4().hex[:6]}'

    out = openstack(
        local_cloud,
        'demo',
        'stack',
        'create',
        '--wait',
        '-f',
        'json',
        '--parameter',
        'length=5',
        '-t',
        str(template),
        name,
    )
    # --wait prints the events before the JSON document.
    created = json.loads(out[out.index('\n{') if '\n{' in out else 0 :])

    assert created['stack_status'] == 'CREATE_COMPLETE'
    shown = json.loads(
        openstack(
            local_cloud,
            'demo',
            'stack',
            'output',
            'show',
            name,
            'value',
            '-f',
            'json',
        )
    )
    assert len(shown['output_value']) == 5
    openstack(local_cloud, 'demo', 'stack', 'delete', '--yes', '--wait', name)
    listed = json.loads(
        openstack(local_cloud, 'demo', 'stack', 'list', '-f', 'json')
    )
    assert name not in [s['Stack Name'] for s in listed]
