"""The vm_k8s_cluster test package (seed 002) on the local cloud: the
package with its install script pointed at this host's vnfm Python, and an
InstantiateVnfRequest, for the tests, the bench and the demo."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from vnfm_testbed.k8s import k8sbuild
from vnfm_testbed.openstack import vmsample

SAMPLE = vmsample.SAMPLE.with_name('vm_k8s_cluster')
SCRIPT = 'Scripts/install_k8s_cluster.sh'
#: The images' default login (vnfm_testbed.openstack.catalogue).
LOGIN = {'username': 'ubuntu', 'password': 'ubuntu'}
MASTER_ASPECT, WORKER_ASPECT = 'master_instance', 'worker_instance'
MASTER_CP, WORKER_CP = 'masterNode_CP1', 'workerNode_CP1'
#: Flavour ``storage`` (seed 004): the storage server, its volume, its PVs.
STORAGE_VDU, STORAGE_CP = 'storage_server', 'storage_server_CP'
STORAGE_VOLUME = 'storage_server_volume'
PV_MANIFEST = 'Files/kubernetes/nfs-pvs.yaml'
#: The VMs' /var is their own (the host's / is shared): the volume there.
MOUNT_TO = '/var/volume'
EXPORTS = (f'{MOUNT_TO}/nfs/pv1', f'{MOUNT_TO}/nfs/pv2')
PVS = ('nfs-pv1', 'nfs-pv2')


def package_source(dst: Path, fail_dir: Path | None = None) -> Path:
    """A copy of the sample in ``dst`` whose script runs this Python (a
    VM sees the host's /usr, /work and, through its overlays, /root and
    /var); the actions named by files in ``fail_dir`` (under /var/tmp, for
    the VMs to see it) fail once on each VM."""
    shutil.copytree(SAMPLE, dst)
    script = dst / SCRIPT
    text = script.read_text()
    text = text.replace('@VNFM_PYTHON@', sys.executable)
    text = text.replace('@VNFM_K8S_CACHE@', str(k8sbuild.cache_dir()))
    text = text.replace('@VNFM_VMK8S_FAIL_DIR@', str(fail_dir or ''))
    script.write_text(text)
    return dst


def cluster_param(vim_name: str) -> dict[str, Any]:
    """``k8s_cluster_installation_param`` of the sample."""
    return {
        'script_path': SCRIPT,
        'vim_name': vim_name,
        'master_node': {
            'aspect_id': MASTER_ASPECT,
            'ssh_cp_name': MASTER_CP,
            'nic_cp_name': MASTER_CP,
            'cluster_cp_name': MASTER_CP,
            'pod_cidr': '10.244.0.0/16',
            'cluster_cidr': '10.96.0.0/16',
            **LOGIN,
        },
        'worker_node': {
            'aspect_id': WORKER_ASPECT,
            'ssh_cp_name': WORKER_CP,
            'nic_cp_name': WORKER_CP,
            **LOGIN,
        },
    }


def storage_params(export_to: str) -> dict[str, Any]:
    """``storage_server`` and ``pv_registration_params`` of flavour
    storage: nfs-ganesha exporting to ``export_to`` (the VMs' subnet)."""
    return {
        'storage_server': {
            'ssh_cp_name': STORAGE_CP,
            'nfs_server': 'ganesha',
            'cinder_volume_setup_params': [
                {'volume_resource_id': STORAGE_VOLUME, 'mount_to': MOUNT_TO}
            ],
            'nfs_server_setup_params': [
                {'export_dir': d, 'export_to': export_to} for d in EXPORTS
            ],
            **LOGIN,
        },
        'pv_registration_params': [
            {'pv_manifest_file_path': PV_MANIFEST, 'nfs_server_cp': STORAGE_CP}
        ],
    }


def instantiate_request(
    vim_id: str, vim_name: str, storage_export_to: str | None = None
) -> dict[str, Any]:
    """A v2 InstantiateVnfRequest on OpenStack VIM ``vim_id``: every VM on
    the catalogue's mgmt-net; the cluster registered as ``vim_name``. With
    ``storage_export_to``: flavour storage, its NFS exported to it."""
    request = _request(vim_id, vim_name)
    if storage_export_to is not None:
        request['flavourId'] = 'storage'
        link = request['extVirtualLinks'][0]
        link['extCps'].append({'cpdId': STORAGE_CP, 'cpConfig': {'a': {}}})
        param = request['additionalParams']['k8s_cluster_installation_param']
        param.update(storage_params(storage_export_to))
    return request


def _request(vim_id: str, vim_name: str) -> dict[str, Any]:
    return {
        'flavourId': 'simple',
        'vimConnectionInfo': {
            'vim1': {'vimId': vim_id, 'vimType': vmsample.VIM_TYPE}
        },
        'extVirtualLinks': [
            {
                'id': 'ext1',
                'resourceId': 'mgmt-net',
                'extCps': [
                    {'cpdId': MASTER_CP, 'cpConfig': {'a': {}}},
                    {'cpdId': WORKER_CP, 'cpConfig': {'a': {}}},
                ],
            }
        ],
        'additionalParams': {
            'k8s_cluster_installation_param': cluster_param(vim_name)
        },
    }
