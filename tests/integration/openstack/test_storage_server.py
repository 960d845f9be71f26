"""The cluster driver's storage server in local-cloud VMs, for real: a VM
with a Cinder volume set up over SSH (file system, fstab, nfs-ganesha),
a second VM writing and reading a file on the export with libnfs-utils,
a second run changing nothing, a heal of the storage VM keeping the data.

The instance's view of the VMs is built from the stack by the OpenStack
infra driver's own code (``info.Builder``), so the volume is found as the
driver finds it: from the attachment Heat reports.
"""

from __future__ import annotations

import dataclasses
import shutil
import uuid
from typing import Any

import pytest
from heatclient import client as heat_client

from tests.integration.ssh.test_ssh_client import LOOPBACK
from tests.unit.drivers.mgmt.kubernetes_cluster.instances import params
from vnfm.clients import ssh
from vnfm.drivers.infra.openstack import info as stack_info
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import sessions
from vnfm.drivers.mgmt.kubernetes_cluster import storage
from vnfm.objects import k8s_storage
from vnfm.testing.openstack.cloud import LocalCloud

from .conftest import openstack
from .test_replace import _update
from .test_servers import _address
from .test_servers import _port
from .test_servers import _run
from .test_servers import _server
from .test_servers import _settle
from .test_servers import _ssh
from .test_servers import _template

NET = 'data-net-1'
TIMEOUTS = ssh.Timeouts(
    connect=5, banner=5, auth=10, boot=60, command=120, transfer=30
)
VOLUME = (
    '  storage_server_volume:\n    type: OS::Cinder::Volume\n'
    '    properties: {size: 1}\n'
    '  storage_server_att:\n    type: OS::Cinder::VolumeAttachment\n'
    '    properties:\n'
    '      instance_uuid: {get_resource: storage_server}\n'
    '      volume_id: {get_resource: storage_server_volume}\n'
)
PAYLOAD = 'kept on the Cinder volume\n'


def _need_ganesha() -> None:
    for tool in ('ganesha.nfsd', 'nfs-cp', 'nfs-ls'):
        if shutil.which(tool) is None:
            pytest.fail(
                f'{tool} is missing: tools/build-openstack.sh installs '
                'nfs-ganesha, nfs-ganesha-vfs and libnfs-utils.'
            )


@dataclasses.dataclass
class Cloud:
    """The stack and the driver's view of it."""

    heat: heat_client.Client
    stack_id: str
    storage_ip: str
    client_ip: str
    subnet: str


def _instance_info(cloud: Cloud) -> dict[str, Any]:
    resources = [
        r.to_dict()
        for r in cloud.heat.resources.list(
            cloud.stack_id, nested_depth=2, with_detail=True
        )
    ]
    builder = stack_info.Builder(
        'inst-1', 'vim-1', resources, {'storage_server', 'masterNode'}
    )
    return {
        'vnfcResourceInfo': builder.vnfc_resource_info(),
        'virtualStorageResourceInfo': builder.virtual_storage_resource_info(),
    }


def _params(subnet: str) -> Any:
    base = params()
    login = {'username': 'ubuntu', 'password': 'ubuntu'}
    server = k8s_storage.StorageServer(
        ssh_cp_name='storage_server_CP',
        nfs_server='ganesha',
        volumes=(k8s_storage.VolumeSetup('storage_server_volume', '/volume'),),
        exports=(
            k8s_storage.NfsExport('/volume/nfs/pv1', subnet),
            k8s_storage.NfsExport('/volume/nfs/pv2', subnet),
        ),
        **login,
    )
    return dataclasses.replace(
        base,
        master=dataclasses.replace(
            base.master, ssh_cp_name='masterNode_CP1', **login
        ),
        storage=server,
    )


def _set_up(cloud: Cloud, metadata: dict[str, Any]) -> storage.Setup:
    """The driver's storage set-up and the NFS client on the master VM;
    the Setup (its changes)."""
    info = _instance_info(cloud)
    cluster_params = _params(cloud.subnet)
    work: dict[str, Any] = {}
    pins = hostkeys.Pins.of({'metadata': metadata}, work)
    found = storage.find_server(info, cluster_params)
    assert found is not None
    master = nodes.find(info, cluster_params)
    with sessions.Sessions(
        cluster_params, pins, work, lambda: None, LOOPBACK, TIMEOUTS
    ) as vms:
        setup = storage.Setup(cluster_params, vms, lambda: 120.0)
        setup.server(found)
        setup.clients(master)
    metadata.update(pins.changes().get('metadata', {}))
    return setup


def _on(ip: str, command: str) -> str:
    client = _ssh(ip, 'ubuntu', password='ubuntu')
    try:
        return _run(client, command)
    finally:
        client.close()


@pytest.fixture
def cloud(local_cloud: LocalCloud, demo_heat: heat_client.Client) -> Cloud:
    _need_ganesha()
    storage_ip = _address(local_cloud, NET, 71)
    client_ip = _address(local_cloud, NET, 72)
    template = _template(
        _port('storage_server_CP', NET, storage_ip),
        # The VDU's resource name; the server (host) name has no '_'.
        _server(
            'storage_server',
            nets='[{port: {get_resource: storage_server_CP}}]',
        ).replace('name: storage_server', 'name: storage-server'),
        VOLUME,
        _port('masterNode_CP1', NET, client_ip),
        _server('masterNode', nets='[{port: {get_resource: masterNode_CP1}}]'),
    )
    created = demo_heat.stacks.create(
        stack_name=f'storage-{uuid.uuid4().hex[:6]}', template=template
    )
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    subnet = local_cloud.catalogue()['networks'][NET]['subnets'][0]['cidr']
    yield Cloud(demo_heat, stack.id, storage_ip, client_ip, subnet)
    demo_heat.stacks.delete(stack.id)
    _settle(demo_heat, stack.id, 'DELETE')


def _nfs(ip: str, export: str) -> str:
    return f'nfs://{ip}{export}'


def test_storage_server_serves_nfs_converges_and_survives_a_heal(
    local_cloud: LocalCloud, cloud: Cloud
) -> None:
    metadata: dict[str, Any] = {}
    first = _set_up(cloud, metadata)
    made = [c.what for c in first.changes.made]
    assert any(w.startswith('mkfs.ext4') for w in made), made
    assert any(w.startswith('started ganesha') for w in made), made

    # The volume is mounted by UUID through fstab, in the storage VM only.
    fstab = _on(cloud.storage_ip, 'cat /etc/fstab')
    assert any(
        line.startswith('UUID=') and ' /volume ext4 ' in line
        for line in fstab.splitlines()
    ), fstab
    assert (
        _on(cloud.storage_ip, 'findmnt -n -o SOURCE --mountpoint /volume')
        == '/dev/vdb'
    )

    # A real NFS client in the other VM writes and reads over NFSv4.
    url = _nfs(cloud.storage_ip, '/volume/nfs/pv1')
    _on(
        cloud.client_ip,
        f'printf %s "{PAYLOAD}" > /tmp/payload && '
        f'nfs-cp /tmp/payload "{url}/data.txt?version=4"',
    )
    listing = _on(cloud.client_ip, f'nfs-ls "{url}?version=4"')
    assert 'data.txt' in listing
    assert (
        _on(cloud.client_ip, f'nfs-cat "{url}/data.txt?version=4"')
        == PAYLOAD.strip()
    )
    # ... and the file is on the Cinder volume.
    assert _on(
        cloud.storage_ip,
        'findmnt -n -o SOURCE --target /volume/nfs/pv1/data.txt'
        ' && cat /volume/nfs/pv1/data.txt',
    ).splitlines() == ['/dev/vdb', PAYLOAD.strip()]

    # A second run changes nothing.
    again = _set_up(cloud, metadata)
    assert again.changes.to_dict() == {'changed': 0, 'changes': []}

    # Heal: Heat replaces the storage VM; the same volume comes back.
    openstack(
        local_cloud,
        'demo',
        'stack',
        'resource',
        'mark',
        'unhealthy',
        cloud.stack_id,
        'storage_server',
        'heal',
    )
    _update(cloud.heat, cloud.stack_id, existing=True)
    metadata.clear()  # a new VM: new host key (the driver forgets the pin)
    healed = _set_up(cloud, metadata)
    made = [c.what for c in healed.changes.made]
    assert not any(w.startswith('mkfs') for w in made), made
    assert any(w.startswith('mount') for w in made), made
    assert 'UUID=' in _on(cloud.storage_ip, 'cat /etc/fstab')
    assert (
        _on(cloud.client_ip, f'nfs-cat "{url}/data.txt?version=4"')
        == PAYLOAD.strip()
    )
