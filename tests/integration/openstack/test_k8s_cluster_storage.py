"""Seed 004 end to end on the local cloud, through the real client: the
cluster VNF of seed 002 with a storage server (flavour ``storage`` of the
test package: a VM with a Cinder volume serving NFS with nfs-ganesha) and
PersistentVolumes on its exports registered in the cluster by the
``kubernetes_cluster`` MgmtDriver. A PVC binds (the real PV controller of
the control plane in the master VM); a master VM writes and reads a file
on the export with a real NFS client (libnfs-utils: the VMs' kernel has no
NFS client); a heal of the storage server is refused while the PVC is
Bound, and once it is gone keeps the data and registers the PVs again; a
new worker gets the NFS client."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vnfm_testbed import procs
from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import k8s_cluster_sample as sample
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from ..conftest import wait_for
from .test_k8s_cluster import Kubectl
from .test_k8s_cluster import _onboard
from .test_k8s_cluster import _ssh
from .test_k8s_cluster import _vms
from .test_k8s_cluster import api  # noqa: F401 - module fixture
from .test_k8s_cluster import client  # noqa: F401 - module fixture
from .test_k8s_cluster import fail_dir  # noqa: F401 - module fixture
from .test_k8s_cluster import os_vim  # noqa: F401 - module fixture
from .test_k8s_cluster import services  # noqa: F401 - module fixture

pytestmark = pytest.mark.timeout(1800)
VIM_NAME = 'k8s-storage'
PAYLOAD = 'kept on the Cinder volume of the storage server'
CLAIM = {
    'apiVersion': 'v1',
    'kind': 'PersistentVolumeClaim',
    'metadata': {'name': 'data', 'namespace': 'default'},
    'spec': {
        'accessModes': ['ReadWriteMany'],
        'storageClassName': 'nfs',
        'resources': {'requests': {'storage': '1Gi'}},
    },
}


def _run(
    client: TackerClient,  # noqa: F811
    rest: Api,
    inst_id: str,
    operation: str,
    *args: str,
    state: str = 'COMPLETED',
) -> dict:
    """``openstack vnflcm *args``; its op once COMPLETED or FAILED_TEMP
    (failing at once when the other one)."""
    client.lcm(*args)
    op_id = rest.latest_op(inst_id, operation)['id']
    op = rest.wait_op(op_id, {'COMPLETED', 'FAILED_TEMP'}, timeout=600)
    assert op['operationState'] == state, op.get('error') or op
    return op


def _need_nfs_tools() -> None:
    for tool in ('ganesha.nfsd', 'nfs-cp', 'nfs-ls', 'nfs-cat'):
        if shutil.which(tool) is None:
            pytest.fail(
                f'{tool} is missing: tools/build-openstack.sh installs '
                'nfs-ganesha, nfs-ganesha-vfs and libnfs-utils.'
            )


class Cluster(Kubectl):
    """kubectl on the cluster, also applying and deleting."""

    def run(self, *args: str, stdin: str | None = None) -> str:
        return subprocess.run(
            [
                self.kubectl,
                f'--server={self.server}',
                f'--certificate-authority={self.ca}',
                f'--token={self.token}',
                '--request-timeout=30s',
                *args,
            ],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=90,
            check=True,
        ).stdout

    def pvs(self) -> dict[str, dict[str, Any]]:
        """name -> PV of the sample's PVs that exist."""
        items = self.json('get', 'persistentvolumes')['items']
        return {
            pv['metadata']['name']: pv
            for pv in items
            if pv['metadata']['name'] in sample.PVS
        }

    def claim_phase(self) -> str:
        claim = self.json('get', 'pvc', 'data', '-n', 'default')
        return (claim.get('status') or {}).get('phase', '')


def _storage_vm(rest: Api, inst_id: str) -> tuple[str, str, str]:
    """The storage VNFC: its vnfcInfo id, server id and address."""
    info = rest.instance(inst_id)['instantiatedVnfInfo']
    by_resource = {v['vnfcResourceInfoId']: v['id'] for v in info['vnfcInfo']}
    (vnfc,) = [
        v for v in info['vnfcResourceInfo'] if v['vduId'] == sample.STORAGE_VDU
    ]
    cp = vnfc['vnfcCpInfo'][0]
    ip = cp['cpProtocolInfo'][0]['ipOverEthernet']['ipAddresses'][0]
    return (
        by_resource[vnfc['id']],
        vnfc['computeResource']['resourceId'],
        ip['addresses'][0],
    )


def _assert_pvs_available_on(kube: Cluster, address: str) -> None:
    def available() -> dict | None:
        pvs = kube.pvs()
        phases = {
            n: (p.get('status') or {}).get('phase') for n, p in pvs.items()
        }
        ok = set(pvs) == set(sample.PVS) and set(phases.values()) == {
            'Available'
        }
        return pvs if ok else None

    pvs = wait_for(available, 60, f'PVs {sample.PVS} Available')
    for name, pv in pvs.items():
        assert pv['spec']['nfs']['server'] == address, (name, pv['spec'])


def _url(storage_ip: str, path: str = '') -> str:
    return f'"nfs://{storage_ip}{sample.EXPORTS[0]}{path}?version=4"'


@pytest.fixture(scope='module')
def package(
    client: TackerClient,  # noqa: F811 - the imported fixture
    fail_dir: Path,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> str:
    """vnfdId of the cluster test package, onboarded."""
    tmp = tmp_path_factory.mktemp('k8s-storage-package')
    source = sample.package_source(tmp / 'k8s', fail_dir)
    return _onboard(client, source, tmp)['VNFD ID']


@pytest.fixture(scope='module')
def instance(
    client: TackerClient,  # noqa: F811
    api: Api,  # noqa: F811
    os_vim: dict,  # noqa: F811
    package: str,
    local_cloud: LocalCloud,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """The cluster VNF with a storage server, instantiated; terminated and
    deleted after."""
    _need_nfs_tools()
    net = local_cloud.catalogue()['networks']['mgmt-net']
    request = sample.instantiate_request(
        os_vim['id'], VIM_NAME, storage_export_to=net['subnets'][0]['cidr']
    )
    body = tmp_path_factory.mktemp('storage') / 'instantiate.json'
    body.write_text(json.dumps(request))
    inst = client.lcm_json('create', package, '--name', 'k8s-storage')['ID']
    _run(client, api, inst, 'INSTANTIATE', 'instantiate', inst, str(body))
    yield inst
    _run(client, api, inst, 'TERMINATE', 'terminate', inst)
    client.lcm('delete', inst)


def test_pvs_on_the_storage_server_bind_keep_data_and_survive_a_heal(
    client: TackerClient,  # noqa: F811
    api: Api,  # noqa: F811
    services: procs.VnfmServices,  # noqa: F811
    instance: str,
    tmp_path: Path,
) -> None:
    inst = instance
    vms = _vms(api, inst)
    master = vms['masterNode'][0]
    kube = Cluster(master, tmp_path)
    storage_vnfc, server, storage_ip = _storage_vm(api, inst)

    # The PVs are registered on the storage server's address, Available.
    _assert_pvs_available_on(kube, storage_ip)

    # A claim binds to one of them (the control plane's PV controller).
    kube.run('apply', '-f', '-', stdin=json.dumps(CLAIM))
    wait_for(lambda: kube.claim_phase() == 'Bound', 60, 'PVC data Bound')
    (bound,) = [
        n
        for n, pv in kube.pvs().items()
        if (pv.get('status') or {}).get('phase') == 'Bound'
    ]

    # A master VM writes and reads a file on the export over NFSv4.
    _ssh(
        master,
        f'printf "%s\\n" "{PAYLOAD}" > /tmp/payload && '
        f'nfs-cp /tmp/payload {_url(storage_ip, "/data.txt")}',
    )
    assert 'data.txt' in _ssh(master, f'nfs-ls {_url(storage_ip)}')
    read = f'nfs-cat {_url(storage_ip, "/data.txt")}'
    assert _ssh(master, read) == PAYLOAD
    # ... and the file is on the Cinder volume of the storage VM.
    on_volume = f'{sample.EXPORTS[0]}/data.txt'
    assert _ssh(
        storage_ip,
        f'findmnt -n -o FSTYPE --target {on_volume} && '
        f'findmnt -n -o TARGET --target {on_volume} && cat {on_volume}',
    ).splitlines() == ['ext4', sample.MOUNT_TO, PAYLOAD]

    # A heal of the storage server while the claim is Bound: refused,
    # naming the PV and its claim; nothing changed.
    heal = ('heal', inst, '--vnfc-instance', storage_vnfc)
    failed = _run(client, api, inst, 'HEAL', *heal, state='FAILED_TEMP')
    detail = failed['error']['detail']
    assert f'{bound} (claim default/data)' in detail, detail
    assert _storage_vm(api, inst)[1] == server
    assert kube.claim_phase() == 'Bound'
    assert set(kube.pvs()) == set(sample.PVS)
    assert _ssh(master, read) == PAYLOAD
    client.lcm('op', 'fail', failed['id'])
    api.wait_op(failed['id'], 'FAILED', timeout=60)

    # Without the claim the heal completes: a new VM, the same volume (the
    # file still there), the PVs registered again on its address.
    kube.run('delete', 'pvc', 'data', '-n', 'default', '--wait=true')
    _run(client, api, inst, 'HEAL', *heal)
    _, new_server, new_ip = _storage_vm(api, inst)
    assert new_server != server
    _assert_pvs_available_on(kube, new_ip)
    assert _ssh(master, read.replace(storage_ip, new_ip)) == PAYLOAD
    assert _ssh(new_ip, f'cat {on_volume}') == PAYLOAD

    # Scale out: the new worker gets the NFS client and reaches the export.
    workers = set(vms['workerNode'])
    scale = ('scale', inst, '--aspect-id', sample.WORKER_ASPECT)
    _run(client, api, inst, 'SCALE', *scale, '--type', 'SCALE_OUT')
    (new,) = set(_vms(api, inst)['workerNode']) - workers
    # The driver's nfs-client step ran on the new VM (it installs what is
    # missing; these VMs share the host's packages, so nothing is).
    log = (services.workdir / 'conductor-1.log').read_text()
    assert f'{new}: nfs-client' in log
    status = "dpkg-query -W -f='${Status}' nfs-common"
    assert _ssh(new, status) == 'install ok installed'
    assert _ssh(new, read.replace(storage_ip, new_ip)) == PAYLOAD
