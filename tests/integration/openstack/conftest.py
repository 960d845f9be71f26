"""Fixtures for tests against the local OpenStack (real Keystone and Heat)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from heatclient import client as heat_client
from heatclient import exc as heat_exc

from vnfm.csar.build import build_csar
from vnfm_testbed import procs
from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import LocalCloud
from vnfm_testbed.openstack.cloudfixtures import local_cloud  # noqa: F401

from ..conftest import Api
from ..conftest import running
from ..conftest import wait_for


@pytest.fixture
def heat_for(
    local_cloud: LocalCloud,  # noqa: F811
) -> Callable[[str], heat_client.Client]:
    """python-heatclient of a user, finding Heat through the catalog."""

    def make(user: str = 'demo') -> heat_client.Client:
        return heat_client.Client('1', session=local_cloud.session(user))

    return make


@pytest.fixture
def demo_heat(
    heat_for: Callable[[str], heat_client.Client],
) -> Iterator[heat_client.Client]:
    """The non-admin user's heatclient; its stacks deleted afterwards."""
    heat = heat_for('demo')
    yield heat

    def gone() -> bool:
        # A stack still busy (its last action in progress) refuses a delete
        # for a moment: asked again until it goes.
        stacks = list(heat.stacks.list())
        for stack in stacks:
            if stack.stack_status != 'DELETE_IN_PROGRESS':
                with contextlib.suppress(
                    heat_exc.HTTPNotFound, heat_exc.HTTPBadRequest
                ):
                    heat.stacks.delete(stack.id)
        return not stacks

    wait_for(gone, 60, 'stacks deleted', interval=0.5)


def openstack(cloud: LocalCloud, user: str, *args: str) -> str:
    """Run the real openstackclient as ``user``; its stdout."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith('OS_')
    } | cloud.client_env(user)
    out = subprocess.run(
        [os.path.join(sys.prefix, 'bin', 'openstack'), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture(scope='package')
def vm_services(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[procs.VnfmServices]:
    """vnfm-api and one conductor with the OpenStack driver, its periodic
    sync every 2 s."""
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('vnfm-vm'),
        conf={
            'infra': {'enabled_infra_drivers': 'openstack'},
            # The periodic sync of every driver (the option's group is
            # historical).
            'kubernetes': {'sync_interval': 2},
        },
    )
    with running('vm_services', svc, conductors=1):
        yield svc


@pytest.fixture(scope='package')
def vm_client(vm_services: procs.VnfmServices) -> TackerClient:
    """The real ``openstack`` client pointed at vnfm-api."""
    return TackerClient(vm_services.api_url)


@pytest.fixture(scope='package')
def vm_api(
    vm_services: procs.VnfmServices, tmp_path_factory: pytest.TempPathFactory
) -> Api:
    """Raw HTTP to vnfm-api (onboarding and polling)."""
    return Api(vm_services.api_url, tmp_path_factory.mktemp('h') / 'none')


def _variant(
    tmp: Path,
    old: str,
    new: str,
    src: Path = vmsample.SAMPLE,
    where: str = 'Definitions/*.yaml',
) -> Path:
    """vm_simple (or ``src``) with its own vnfdId and ``old`` replaced by
    ``new`` in the files ``where`` matches (default: its VNFD)."""
    dst = tmp / f'vm-{uuid.uuid4().hex[:6]}'
    shutil.copytree(src, dst)
    vnfd_id = str(uuid.uuid4())
    for path in (dst / 'Definitions').glob('*.yaml'):
        path.write_text(path.read_text().replace(_vnfd_id(src), vnfd_id))
    for path in dst.glob(where):
        path.write_text(path.read_text().replace(old, new))
    return dst


def _vnfd_id(src: Path) -> str:
    top = yaml.safe_load(
        (src / 'Definitions' / 'vm_simple_top.vnfd.yaml').read_text()
    )
    for node in top['topology_template']['node_templates'].values():
        props = node.get('properties') or {}
        if 'descriptor_id' in props:
            return str(props['descriptor_id'])
    raise AssertionError('no descriptor_id')


@pytest.fixture(scope='package')
def packages(
    vm_api: Api, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict]:
    """vm_simple, variants whose VDU2 image is not in the catalogue or
    cannot boot or whose nested HOT Heat rejects, vm_simple_v2 and a
    variant of it whose VDU1 image is not in the catalogue, onboarded."""
    tmp = tmp_path_factory.mktemp('vm-packages')
    sources = {
        'simple': vmsample.SAMPLE,
        'noimage': _variant(tmp, 'cirros-0.6', 'no-such-image'),
        'broken': _variant(tmp, 'cirros-0.6', 'broken-image'),
        'badhot': _variant(
            tmp,
            'type: OS::Nova::Server',
            'type: OS::Nova::NoServer',
            where='BaseHOT/simple/nested/*.yaml',
        ),
        'v2': vmsample.SAMPLE_V2,
        'v2noimage': _variant(
            tmp, 'cirros-0.6', 'no-such-image', vmsample.SAMPLE_V2
        ),
    }
    out = {}
    for name, src in sources.items():
        path = tmp / f'{name}.zip'
        path.write_bytes(build_csar(str(src)))
        out[name] = vm_api.onboard(path, timeout=60)
    return out


def vim_config(
    cloud: LocalCloud, path: Path, password: str | None = None
) -> str:
    """A VIM config file of the demo user (``password`` instead of
    theirs when given); its path."""
    creds = cloud.credentials('demo')
    path.write_text(
        yaml.safe_dump(
            {
                'auth_url': creds['auth_url'],
                'username': creds['username'],
                'password': password or creds['password'],
                'project_name': creds['project_name'],
                'project_domain_name': 'Default',
                'user_domain_name': 'Default',
                'cert_verify': 'True',
            }
        )
    )
    return str(path)


@pytest.fixture(scope='package')
def vim(
    vm_client: TackerClient,
    local_cloud: LocalCloud,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> dict:
    """The local cloud registered as a VIM of its demo (member) user."""
    config = vim_config(
        local_cloud, tmp_path_factory.mktemp('vim') / 'vim.yaml'
    )
    return vm_client.json(
        'vim', 'register', '--config-file', config, 'local-os'
    )
