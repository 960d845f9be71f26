"""A storage server and a master VM in the local cloud, set up by the
kubernetes_cluster driver's storage code (for its test and bench).

The stack has the seed's resource names (``storage_server`` with port
``storage_server_CP`` and volume ``storage_server_volume`` attached by an
``OS::Cinder::VolumeAttachment``; ``masterNode`` with ``masterNode_CP1``).
The instance's view of it is built by the OpenStack infra driver's own
code, so that the volume is found as the driver finds it. The VMs log in
as ubuntu/ubuntu (the local cloud's image); NFS is nfs-ganesha.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

from vnfm.clients import outbound
from vnfm.clients import ssh
from vnfm.drivers.infra.openstack import info as stack_info
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import sessions
from vnfm.drivers.mgmt.kubernetes_cluster import storage
from vnfm.objects import k8s_cluster

NET = 'data-net-1'
LOGIN = {'username': 'ubuntu', 'password': 'ubuntu'}
TIMEOUTS = ssh.Timeouts(
    connect=5, banner=5, auth=10, boot=60, command=120, transfer=30
)
#: The local cloud's addresses are in the test range (outbound allows).
POLICY = outbound.Policy()
#: The VMs share the host's root file system but for /etc, /home, /root
#: and /var: the volume is mounted under /var (the seed's /volume would be
#: made on the host).
MOUNT_TO = '/var/volume'
EXPORTS = (f'{MOUNT_TO}/nfs/pv1', f'{MOUNT_TO}/nfs/pv2')


def _port(name: str, ip: str) -> str:
    return (
        f'  {name}:\n    type: OS::Neutron::Port\n    properties:\n'
        f"      network: {NET}\n      fixed_ips: [{{ip_address: '{ip}'}}]\n"
    )


def _server(resource: str, host: str, port: str) -> str:
    return (
        f'  {resource}:\n    type: OS::Nova::Server\n    properties:\n'
        f'      name: {host}\n      image: ubuntu-22.04\n'
        f'      flavor: m1.small\n'
        f'      networks: [{{port: {{get_resource: {port}}}}}]\n'
    )


def template(storage_ip: str, master_ip: str) -> str:
    """The HOT of the two VMs and the volume."""
    return (
        'heat_template_version: 2021-04-16\nresources:\n'
        + _port('storage_server_CP', storage_ip)
        # The server (host) name has no '_'.
        + _server('storage_server', 'storage-server', 'storage_server_CP')
        + '  storage_server_volume:\n    type: OS::Cinder::Volume\n'
        '    properties: {size: 1}\n'
        '  storage_server_att:\n    type: OS::Cinder::VolumeAttachment\n'
        '    properties:\n'
        '      instance_uuid: {get_resource: storage_server}\n'
        '      volume_id: {get_resource: storage_server_volume}\n'
        + _port('masterNode_CP1', master_ip)
        + _server('masterNode', 'master-node', 'masterNode_CP1')
    )


def instance_info(heat: Any, stack_id: str) -> dict[str, Any]:
    """instantiatedVnfInfo of the stack as the infra driver builds it."""
    resources = [
        r.to_dict()
        for r in heat.resources.list(
            stack_id, nested_depth=2, with_detail=True
        )
    ]
    builder = stack_info.Builder(
        'inst-1', 'vim-1', resources, {'storage_server', 'masterNode'}
    )
    return {
        'vnfcResourceInfo': builder.vnfc_resource_info(),
        'virtualStorageResourceInfo': builder.virtual_storage_resource_info(),
    }


def cluster_params(
    subnet: str, exports: tuple[str, ...] = EXPORTS
) -> k8s_cluster.ClusterParams:
    """Cluster parameters whose storage server exports to ``subnet``."""
    return k8s_cluster.parse(additional_params(subnet, exports))


def additional_params(
    subnet: str, exports: tuple[str, ...] = EXPORTS
) -> dict[str, Any]:
    """The instantiate request's additionalParams of ``cluster_params``."""
    params = {
        'script_path': 'Scripts/install_k8s_cluster.sh',
        'master_node': {
            'ssh_cp_name': 'masterNode_CP1',
            'nic_cp_name': 'masterNode_CP1',
            'cluster_cp_name': 'masterNode_CP1',
            **LOGIN,
        },
        'worker_node': {
            'ssh_cp_name': 'workerNode_CP2',
            'nic_cp_name': 'workerNode_CP2',
            **LOGIN,
        },
        'storage_server': {
            'ssh_cp_name': 'storage_server_CP',
            'nfs_server': 'ganesha',
            'cinder_volume_setup_params': [
                {
                    'volume_resource_id': 'storage_server_volume',
                    'mount_to': MOUNT_TO,
                }
            ],
            'nfs_server_setup_params': [
                {'export_dir': d, 'export_to': subnet} for d in exports
            ],
            **LOGIN,
        },
    }
    return {k8s_cluster.PARAM: params}


@dataclasses.dataclass
class Run:
    """One set-up: its Setup (changes) and how long it took."""

    setup: storage.Setup
    seconds: float


def set_up(
    info: dict[str, Any],
    params: k8s_cluster.ClusterParams,
    metadata: dict[str, Any],
    timeout: Callable[[], float] = lambda: 120.0,
) -> Run:
    """The driver's storage set-up (server, and the NFS client on the
    master); host keys pinned in ``metadata`` (updated)."""
    work: dict[str, Any] = {}
    pins = hostkeys.Pins.of({'metadata': metadata}, work)
    found = storage.find_server(info, params)
    assert found is not None  # noqa: S101 - the params name a server
    cluster = nodes.find(info, params)
    start = time.monotonic()
    with sessions.Sessions(
        params, pins, work, lambda: None, POLICY, TIMEOUTS
    ) as vms:
        setup = storage.Setup(params, vms, timeout)
        setup.server(found)
        setup.clients(cluster)
    elapsed = time.monotonic() - start
    for key, value in pins.changes().get('metadata', {}).items():
        metadata.setdefault(key, {}).update(
            {k: v for k, v in value.items() if v is not None}
        )
    return Run(setup, elapsed)
