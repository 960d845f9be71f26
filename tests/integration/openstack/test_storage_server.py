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
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from heatclient import client as heat_client

from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import joined
from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import make_ctx
from vnfm.drivers.mgmt.kubernetes_cluster import driver
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.kubernetes_cluster import vim
from vnfm.drivers.package_files import PackageFiles
from vnfm_testbed.openstack import storagevm
from vnfm_testbed.openstack.cloud import LocalCloud

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

    def set_up(
        self,
        metadata: dict[str, Any],
        exports: tuple[str, ...] = storagevm.EXPORTS,
    ) -> storagevm.Run:
        info = storagevm.instance_info(self.heat, self.stack_id)
        return storagevm.set_up(
            info, storagevm.cluster_params(self.subnet, exports), metadata
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
    mount_to = storagevm.MOUNT_TO
    source = f'findmnt -n -o SOURCE --mountpoint {mount_to}'
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

    # One more export: the running ganesha is restarted with it, the
    # files already there are still served.
    more = (*storagevm.EXPORTS, f'{mount_to}/nfs/pv3')
    grown = cloud.set_up(metadata, more).setup
    assert [c.what for c in grown.changes.made] == [
        f'mkdir {mount_to}/nfs/pv3',
        '/etc/ganesha/ganesha.conf',
        'started ganesha.nfsd',
    ]
    pv3 = f'nfs://{cloud.storage_ip}{mount_to}/nfs/pv3?version=4'
    _on(cloud.client_ip, f'nfs-ls "{pv3}"')
    assert _on(cloud.client_ip, read) == PAYLOAD
    assert cloud.set_up(metadata, more).setup.changes.to_dict()['changed'] == 0

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
    uuid_before = _on(cloud.storage_ip, 'findmnt -n -o UUID ' + mount_to)
    _update(cloud.heat, cloud.stack_id, existing=True)
    # The driver's heal_end of the storage VNFC, for real.
    info = storagevm.instance_info(cloud.heat, cloud.stack_id)
    [vnfc] = [
        v for v in info['vnfcResourceInfo'] if v['vduId'] == 'storage_server'
    ]
    ctx = make_ctx(
        'heal_end',
        info,
        request={'vnfcInstanceId': [vnfc['id']]},
        instantiate_request=lambda: {
            'additionalParams': storagevm.additional_params(cloud.subnet)
        },
        package=PackageFiles('p', {}),
        deadline=time.monotonic() + 300,
        # heal_end ends with a census of the cluster: these VMs run none,
        # so its API is a fake whose Nodes are the instance's cluster VMs.
        vim_connection_info={vim.CONNECTION_KEY: {'vimId': 'cluster'}},
    )
    ctx.vnf_instance['metadata'] = metadata
    kube = joined(info)
    changes = (
        driver.KubernetesClusterDriver(
            policy=storagevm.POLICY, kube_client=lambda entry: kube
        )
        .heal_end(ctx)
        .changes
    )
    pins = changes['metadata'][hostkeys.METADATA_KEY]
    new_server = vnfc['computeResource']['resourceId']
    assert pins[new_server]  # the new VM's key pinned
    assert [k for k, v in pins.items() if v is None] != []  # old one gone
    # The same file system (no mkfs), mounted through fstab, served again.
    assert _on(cloud.storage_ip, 'findmnt -n -o UUID ' + mount_to) == (
        uuid_before
    )
    assert _on(cloud.client_ip, read) == PAYLOAD
    # ... and converged: nothing left to change.
    metadata.clear()
    after = cloud.set_up(metadata).setup
    assert after.changes.to_dict() == {'changed': 0, 'changes': []}
