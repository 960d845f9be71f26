"""``vnfm-localcloud up|status|down`` and what a stopped cloud leaves."""

from __future__ import annotations

import ipaddress
import json
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from urllib import parse

import paramiko
import psycopg2
import pytest
from heatclient import client as heat_client

from vnfm_testbed import procs
from vnfm_testbed.openstack import catalogue
from vnfm_testbed.openstack import localcloud
from vnfm_testbed.openstack import vmhost
from vnfm_testbed.openstack.cloud import CloudError
from vnfm_testbed.openstack.cloud import LocalCloud

from .test_servers import _outputs
from .test_servers import _run
from .test_servers import _server
from .test_servers import _settle
from .test_servers import _ssh
from .test_servers import _template as _servers_template


def _processes_using(state_dir: Path) -> list[str]:
    """Command lines of live processes that name ``state_dir``."""
    found = []
    for proc in Path('/proc').iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / 'cmdline').read_bytes().replace(b'\0', b' ')
        except OSError:
            continue
        if str(state_dir).encode() in cmdline and procs.is_running(
            int(proc.name)
        ):
            found.append(cmdline.decode())
    return found


def _databases(prefix: str) -> list[str]:
    url = parse.urlsplit(procs.POSTGRES_URL)
    conn = psycopg2.connect(
        host=url.hostname,
        port=url.port or 5432,
        user=url.username,
        password=url.password,
        dbname='postgres',
    )
    try:
        with conn.cursor() as cur:
            cur.execute(
                'SELECT datname FROM pg_database WHERE datname LIKE %s',
                (prefix + '%',),
            )
            return [row[0] for row in cur.fetchall()]
    finally:
        conn.close()


def _vhosts(prefix: str) -> list[str]:
    out = subprocess.run(
        ['rabbitmqctl', '-q', 'list_vhosts'],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    return [v for v in out.split() if v.startswith(prefix)]


def _links() -> set[str]:
    out = subprocess.run(
        ['ip', '-o', 'link', 'show'],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    return {
        line.split(':')[1].strip().split('@')[0] for line in out.splitlines()
    }


def _assert_nothing_left(cloud: LocalCloud) -> None:
    assert _processes_using(cloud.state_dir) == []
    bridges = {
        catalogue.bridge_name(cloud.prefix, i)
        for i in range(len(catalogue.NETWORKS))
    }
    assert bridges & _links() == set()
    assert cloud.vm_dirs() == []
    assert _databases(cloud.prefix) == []
    assert _vhosts(cloud.prefix) == []


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, '-m', 'vnfm_testbed.openstack.localcloud', *args],
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )


def test_up_status_down_through_the_command_line(tmp_path: Path) -> None:
    state = tmp_path / 'cloud'
    common = ('--name', f'cli{tmp_path.name[-6:]}', '--state-dir', str(state))
    try:
        up = _cli('up', *common, '--timeout', '300')
        assert up.returncode == 0, up.stderr[-3000:]
        info = json.loads(up.stdout)
        assert set(info['endpoints']) == {'identity', 'orchestration', 'image'}
        assert info['admin']['username'] == 'admin'
        assert info['users']['demo']['role'] == 'member'
        assert set(info['pids']) == {
            'keystone',
            'heat-engine',
            'heat-api',
            'glance',
        }

        status = _cli('status', *common)
        assert status.returncode == 0
        shown = json.loads(status.stdout)
        assert shown['running'] is True
        assert all(shown['memory_kib'].values())
        # The networks instantiate requests and templates name, with ids.
        nets = {n['name']: n for n in shown['networks']}
        assert set(catalogue.NETWORKS) <= set(nets)
        assert nets['public']['router:external'] is True
        for net in nets.values():
            assert net['id'] and net['subnets'][0]['id']
            assert ipaddress.ip_network(net['subnets'][0]['cidr']).subnet_of(
                vmhost.TEST_RANGE
            )
    finally:
        down = _cli('down', *common)
    assert down.returncode == 0, down.stderr
    assert json.loads(down.stdout)['stopped'] is True
    assert all(not procs.is_running(pid) for pid in info['pids'].values())
    _assert_nothing_left(LocalCloud(state, name=common[1]))
    assert _cli('status', *common).returncode == 1


def _overlay(where: Path, layers: Path) -> None:
    """Mount an empty overlay filesystem on ``where``."""
    dirs = {d: layers / d for d in ('lower', 'upper', 'work')}
    for d in dirs.values():
        d.mkdir(parents=True)
    options = ','.join(f'{d}dir={p}' for d, p in dirs.items())
    subprocess.run(
        ['mount', '-t', 'overlay', 'overlay', '-o', options, str(where)],
        check=True,
        timeout=30,
    )


def _hostname_over_ssh(cloud: LocalCloud) -> str:
    """Boot a VM on mgmt-net in ``cloud``; its hostname, read over SSH."""
    key = paramiko.RSAKey.generate(2048)
    cloud.add_keypair('k', f'{key.get_name()} {key.get_base64()} t@h')
    heat = heat_client.Client('1', session=cloud.session('demo'))
    template = _servers_template(
        _server('vm-ov', image='debian-12', extra='key_name: k')
    )
    stack_id = heat.stacks.create(stack_name='ov', template=template)['stack'][
        'id'
    ]
    stack = _settle(heat, stack_id, 'CREATE')
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    vm = _ssh(_outputs(stack)['vm-ov_ip'], 'debian', pkey=key)
    try:
        return _run(vm, 'hostname')
    finally:
        vm.close()


@pytest.mark.parametrize('on_overlay', [False, True])
def test_up_with_its_default_state_dir_boots_vms(
    tmp_path: Path, on_overlay: bool
) -> None:
    # Defect: the default state dir is under ~/.cache, here /root: a VM's
    # /var overlay had its upper dir inside the VM's own /root overlay
    # ("mount: /var: wrong fs type ... on overlay"), and no VM booted. So
    # it was where / is an overlay, for /etc already.
    name = f'ov{uuid.uuid4().hex[:6]}'
    state = localcloud.default_state_dir(name)
    state.mkdir(parents=True)
    if on_overlay:
        _overlay(state, tmp_path / 'layers')
    try:
        up = _cli('up', '--name', name, '--timeout', '300')
        assert up.returncode == 0, up.stderr[-3000:]
        assert json.loads(up.stdout)['state_dir'] == str(state)

        assert _hostname_over_ssh(LocalCloud.load(state)) == 'vm-ov'
    finally:
        down = _cli('down', '--name', name)
        if on_overlay:
            subprocess.run(['umount', str(state)], check=False, timeout=30)
        shutil.rmtree(state)
    assert down.returncode == 0, down.stderr
    _assert_nothing_left(LocalCloud(state, name=name))


def test_a_failed_up_leaves_nothing_behind(tmp_path: Path) -> None:
    cloud = LocalCloud(
        tmp_path / 'cloud', name=f'f{tmp_path.name[-6:]}', die_with_parent=True
    )

    with pytest.raises(CloudError):
        cloud.start(timeout=2)

    _assert_nothing_left(cloud)


_KILLED_RUN = """
import os, signal, sys
from vnfm_testbed.openstack.cloud import LocalCloud
cloud = LocalCloud(sys.argv[1], name=sys.argv[2], die_with_parent=True)
cloud.start(timeout=240)
print(' '.join(str(pid) for pid in cloud.pids.values()), flush=True)
os.kill(os.getpid(), signal.SIGTERM)
"""


def test_a_killed_test_run_leaves_no_server_running(tmp_path: Path) -> None:
    # A test run stopped by SIGTERM (a CI timeout, ^C twice) has no chance
    # to stop its cloud; its Keystone, Heat and image servers must not outlive
    # it.
    state_dir = tmp_path / 'cloud'
    name = f'k{uuid.uuid4().hex[:8]}'
    try:
        run = subprocess.run(
            [sys.executable, '-c', _KILLED_RUN, str(state_dir), name],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        pids = [int(pid) for pid in run.stdout.split()]
        assert len(pids) == 4, run.stderr[-2000:]  # keystone, heat x2, glance

        assert procs.wait_for(lambda: not _processes_using(state_dir), 30), (
            _processes_using(state_dir)
        )
    finally:
        LocalCloud(state_dir, name=name).stop()  # its databases and vhost
