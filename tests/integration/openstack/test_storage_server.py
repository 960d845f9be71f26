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
import os
import shutil
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from heatclient import client as heat_client

from vnfm.testing import storagevm
from vnfm.testing.openstack.cloud import LocalCloud

from .conftest import openstack
from .test_replace import _update
from .test_servers import _address
from .test_servers import _run
from .test_servers import _settle
from .test_servers import _ssh

PAYLOAD = 'kept on the Cinder volume'


def _need_ganesha() -> None:
    for tool in ('ganesha.nfsd', 'nfs-cp', 'nfs-ls', 'nfs-cat'):
        if shutil.which(tool) is None:
            pytest.fail(
                f'{tool} is missing: tools/build-openstack.sh installs '
                'nfs-ganesha, nfs-ganesha-vfs and libnfs-utils.'
            )


@dataclasses.dataclass
class Cloud:
    """The stack of the storage and master VMs."""

    heat: heat_client.Client
    stack_id: str
    storage_ip: str
    client_ip: str
    subnet: str

    def set_up(self, metadata: dict[str, Any]) -> storagevm.Run:
        info = storagevm.instance_info(self.heat, self.stack_id)
        return storagevm.set_up(
            info, storagevm.cluster_params(self.subnet), metadata
        )


def _on(ip: str, command: str) -> str:
    client = _ssh(ip, 'ubuntu', password='ubuntu')
    try:
        return _run(client, command)
    finally:
        client.close()


@pytest.fixture
def cloud(
    local_cloud: LocalCloud, demo_heat: heat_client.Client
) -> Iterator[Cloud]:
    _need_ganesha()
    storage_ip = _address(local_cloud, storagevm.NET, 71)
    client_ip = _address(local_cloud, storagevm.NET, 72)
    created = demo_heat.stacks.create(
        stack_name=f'storage-{uuid.uuid4().hex[:6]}',
        template=storagevm.template(storage_ip, client_ip),
    )
    stack = _settle(demo_heat, created['stack']['id'], 'CREATE')
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    net = local_cloud.catalogue()['networks'][storagevm.NET]
    yield Cloud(
        demo_heat, stack.id, storage_ip, client_ip, net['subnets'][0]['cidr']
    )
    demo_heat.stacks.delete(stack.id)
    _settle(demo_heat, stack.id, 'DELETE')


def test_storage_server_serves_nfs_converges_and_survives_a_heal(
    local_cloud: LocalCloud, cloud: Cloud
) -> None:
    metadata: dict[str, Any] = {}
    first = cloud.set_up(metadata).setup
    made = [c.what for c in first.changes.made]
    assert any(w.startswith('mkfs.ext4') for w in made), made
    assert any(w.startswith('started ganesha') for w in made), made

    # The volume is mounted by UUID through fstab, in the storage VM only.
    fstab = _on(cloud.storage_ip, 'cat /etc/fstab')
    assert any(
        line.startswith('UUID=') and f' {storagevm.MOUNT_TO} ext4 ' in line
        for line in fstab.splitlines()
    ), fstab
    source = f'findmnt -n -o SOURCE --mountpoint {storagevm.MOUNT_TO}'
    assert _on(cloud.storage_ip, source) == '/dev/vdb'

    # A real NFS client in the other VM writes and reads over NFSv4.
    url = f'nfs://{cloud.storage_ip}{storagevm.EXPORTS[0]}'
    _on(
        cloud.client_ip,
        f'printf "%s\\n" "{PAYLOAD}" > /tmp/payload && '
        f'nfs-cp /tmp/payload "{url}/data.txt?version=4"',
    )
    assert 'data.txt' in _on(cloud.client_ip, f'nfs-ls "{url}?version=4"')
    read = f'nfs-cat "{url}/data.txt?version=4"'
    assert _on(cloud.client_ip, read) == PAYLOAD
    # ... and the file is on the Cinder volume.
    on_volume = f'{storagevm.EXPORTS[0]}/data.txt'
    assert _on(
        cloud.storage_ip,
        f'findmnt -n -o SOURCE --target {on_volume} && cat {on_volume}',
    ).splitlines() == ['/dev/vdb', PAYLOAD]
    # Nothing of it on the host (the VM's /var is its own).
    assert not os.path.exists(on_volume)
    # Only the export's network is a client of it.
    assert 'Clients = ' + cloud.subnet + ';' in _on(
        cloud.storage_ip, 'cat /etc/ganesha/ganesha.conf'
    )

    # A second run changes nothing.
    again = cloud.set_up(metadata).setup
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
    metadata.clear()  # a new VM, a new host key (the driver forgets it)
    healed = cloud.set_up(metadata).setup
    made = [c.what for c in healed.changes.made]
    assert not any(w.startswith('mkfs') for w in made), made
    assert any(w.startswith('mount') for w in made), made
    assert _on(cloud.client_ip, read) == PAYLOAD
