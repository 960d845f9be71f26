"""The storage server (seed 004) in the cluster driver: finding its VM and
volume, the steps' scripts and change counting, the PV manifests, and the
hooks with fake SSH sessions (the real thing:
tests/integration/openstack/test_storage_server.py and
tests/integration/ssh/test_storage_pvs.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from tests.unit.drivers.mgmt.kubernetes_cluster import instances
from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import VIP
from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import FakeSession
from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import (
    cluster_driver,
)
from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import joined
from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import make_ctx
from tests.unit.objects.test_k8s_cluster import inner
from tests.unit.objects.test_k8s_storage import flavour
from tests.unit.objects.test_k8s_storage import with_storage
from vnfm.clients import ssh
from vnfm.common import exceptions
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.kubernetes_cluster import nfs
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import pvs
from vnfm.drivers.mgmt.kubernetes_cluster import storage
from vnfm.drivers.package_files import PackageFiles
from vnfm.objects import k8s_cluster
from vnfm.objects import k8s_storage

STORAGE_IP = '198.18.0.50'
VOLUME_ID = '5b0c6a1e-9d2f-4e3a-8b7c-1d2e3f4a5b6c'


def pv_yaml(i: int, path: str | None = None) -> bytes:
    return yaml.safe_dump(
        {
            'apiVersion': 'v1',
            'kind': 'PersistentVolume',
            'metadata': {'name': f'nfs-pv{i}'},
            'spec': {
                'capacity': {'storage': '1Gi'},
                'accessModes': ['ReadWriteOnce'],
                'nfs': {
                    'server': '0.0.0.0',
                    'path': path or f'/volume/nfs/pv{i}',
                },
            },
        }
    ).encode()


def package(**replace: bytes) -> PackageFiles:
    files = {
        'Scripts/install_k8s_cluster.sh': b'#!/bin/bash\n',
        **{f'Files/kubernetes/nfs-pv{i}.yaml': pv_yaml(i) for i in (1, 2, 3)},
    }
    files.update(replace)
    return PackageFiles('p', files)


def storage_vnfc(vnfc_id: str = 's1') -> dict[str, Any]:
    entry = instances.vnfc(
        vnfc_id,
        'storage_server',
        instances.cp('storage_server_CP', STORAGE_IP),
    )
    entry['storageResourceIds'] = ['st-1']
    return entry


def info_with_storage(*extra: dict[str, Any]) -> dict[str, Any]:
    return instances.info(
        instances.master(1),
        instances.worker(1),
        storage_vnfc(),
        *extra,
        extCpInfo=[VIP],
        virtualStorageResourceInfo=[
            {
                'id': 'st-1',
                'virtualStorageDescId': 'storage_server_volume',
                'storageResource': {'resourceId': VOLUME_ID},
                'metadata': {
                    'attachments': [
                        {'serverId': 'server-s1', 'device': '/dev/vdc'}
                    ]
                },
            }
        ],
    )


def params() -> k8s_cluster.ClusterParams:
    return k8s_cluster.parse(with_storage())


def vnfd() -> dict[str, Any]:
    f = flavour()
    f['flavour_id'] = 'cluster_install'
    f['cps']['workerNode_CP2'] = {'vdu': 'workerNode'}
    f['scaling_aspects'] = {
        'master_instance': {'vdu_deltas': {'masterNode': {'d': 1}}},
        'worker_instance': {'vdu_deltas': {'workerNode': {'d': 1}}},
        'storage_instance': {'vdu_deltas': {'storage_server': {'d': 1}}},
    }
    return {'flavours': {'cluster_install': f}}


# -- finding the VM and its volume ------------------------------------------


def test_the_storage_vm_and_its_volume_are_found_in_the_instance():
    found = storage.find_server(info_with_storage(), params())
    assert found is not None
    assert (found.vm.role, found.vm.ssh_address) == (
        nodes.STORAGE,
        STORAGE_IP,
    )
    [volume] = found.volumes
    assert volume.volume_id == VOLUME_ID
    # udev's name first, Nova's device name (not assumed /dev/vdb) after.
    assert volume.candidates() == [
        f'/dev/disk/by-id/virtio-{VOLUME_ID[:20]}',
        '/dev/vdc',
    ]


def test_nic_cp_name_gives_the_storage_vms_nfs_address():
    nfs_ip = '198.18.7.7'
    given = with_storage()
    inner(given)['storage_server']['nic_cp_name'] = 'storage_server_CP2'
    for pv in inner(given)['pv_registration_params']:
        del pv['nfs_server_cp']
    info = info_with_storage()
    [vm] = [v for v in info['vnfcResourceInfo'] if v['id'] == 's1']
    vm['vnfcCpInfo'].append(instances.cp('storage_server_CP2', nfs_ip))
    cluster = k8s_cluster.parse(given)

    found = storage.find_server(info, cluster)

    assert found is not None
    assert (found.vm.ssh_address, found.vm.node_address) == (
        STORAGE_IP,
        nfs_ip,
    )
    assert {pv.nfs_server_cp for pv in cluster.pvs} == {'storage_server_CP2'}
    assert storage.address_of(info, cluster.pvs[0].nfs_server_cp) == nfs_ip


def test_no_storage_server_finds_nothing():
    assert storage.find_server(info_with_storage(), instances.params()) is None


def test_a_missing_storage_vm_or_volume_is_named():
    info = info_with_storage()
    info['vnfcResourceInfo'] = info['vnfcResourceInfo'][:2]
    with pytest.raises(nodes.NodeNotFound, match='storage_server/ssh_cp_name'):
        storage.find_server(info, params())
    info = info_with_storage()
    info['virtualStorageResourceInfo'] = []
    with pytest.raises(
        nodes.NodeNotFound,
        match='cinder_volume_setup_params/0/volume_resource_id',
    ):
        storage.find_server(info, params())


def test_two_storage_vms_are_refused():
    info = info_with_storage(storage_vnfc('s2'))
    with pytest.raises(nodes.NodeNotFound, match='2 VNFCs'):
        storage.find_server(info, params())


def test_only_an_aspect_scaling_the_storage_vdu_is_named():
    vdu = storage.storage_vdu_aspect(
        params(), vnfd(), 'cluster_install', 'storage_instance'
    )
    assert vdu == 'storage_server'
    assert (
        storage.storage_vdu_aspect(
            params(), vnfd(), 'cluster_install', 'worker_instance'
        )
        is None
    )


# -- scripts and counting ----------------------------------------------------


def test_ganesha_serves_each_directory_to_its_networks_only():
    exports = (
        k8s_storage.NfsExport('/volume/a', '198.51.100.0/24'),
        k8s_storage.NfsExport('/volume/a', '203.0.113.7'),
        k8s_storage.NfsExport('/volume/b', '198.51.100.0/24'),
    )
    conf = nfs.ganesha_conf(exports)
    assert conf.count('EXPORT {') == 2
    assert 'Clients = 198.51.100.0/24, 203.0.113.7; Access_Type = RW;' in conf
    assert 'Path = "/volume/b";' in conf and 'Pseudo = "/volume/b";' in conf
    # Only the listed clients: none by default.
    assert conf.count('Access_Type = None;') == 2
    assert nfs.ganesha_conf(exports) == conf  # the same text each time


def test_kernel_exports_are_one_marked_block():
    block = nfs.exports_block(
        (
            k8s_storage.NfsExport('/volume/a', '198.51.100.0/24'),
            k8s_storage.NfsExport('/volume/a', '203.0.113.7'),
        )
    )
    lines = block.splitlines()
    assert lines[0].startswith('# BEGIN vnfm') and lines[-1].startswith(
        '# END vnfm'
    )
    assert lines[1] == (
        '"/volume/a" 198.51.100.0/24(rw,sync,no_subtree_check,'
        'no_root_squash) 203.0.113.7(rw,sync,no_subtree_check,'
        'no_root_squash)'
    )


class Recorder(FakeSession):
    """A session that records the storage steps and kubectl runs and
    answers from ``answers``; the install script as FakeSession does."""

    def __init__(self, host: str, answers: dict[str, str] | None = None):
        super().__init__(ssh.Target(host=host, username='u', password='p'), [])
        self.answers = answers or {}
        self.steps: list[str] = []
        self.files: dict[str, str] = {}

    def put(self, data: bytes, path: str, step: str, mode: int = 0) -> None:
        super().put(data, path, step, mode)
        if step == 'pv-upload':
            self.files[path] = data.decode()

    def run(self, command: str, step: str, **kwargs: Any) -> ssh.Result:
        if step in STORAGE_STEPS:
            self.steps.append(step)
        if step == 'pv-upload' and command == 'mktemp -d':
            return ssh.Result(0, '/tmp/tmp.pv\n', '')
        if step in self.answers:
            return ssh.Result(0, self.answers[step], '')
        return super().run(command, step, **kwargs)


STORAGE_STEPS = frozenset(
    {
        'volume',
        'export-dirs',
        'packages',
        'nfs-kernel',
        'nfs-ganesha',
        'nfs-client',
        'pv-register',
        'pv-read',
        'pv-delete',
    }
)


def test_changed_lines_are_counted_per_step():
    session = Recorder(
        '198.18.0.50',
        {
            'volume': 'CHANGED=mkfs.ext4 /dev/vdc'
            '\nDEVICE=/dev/vdc\nCHANGED=mount /v\n'
        },
    )
    changes = nfs.Changes()
    nfs.run_step(session, 'volume', 'true', 10, changes)  # type: ignore[arg-type]
    nfs.run_step(session, 'other', 'true', 10, changes)  # type: ignore[arg-type]
    assert changes.to_dict() == {
        'changed': 2,
        'changes': [
            {
                'host': '198.18.0.50',
                'step': 'volume',
                'what': 'mkfs.ext4 /dev/vdc',
            },
            {'host': '198.18.0.50', 'step': 'volume', 'what': 'mount /v'},
        ],
    }


# -- PV manifests -------------------------------------------------------------


def test_manifests_get_the_real_address_and_the_instance_label():
    [first, *_] = pvs.read(package(), params())
    text = pvs.render(first, STORAGE_IP, 'inst-1')
    [doc] = yaml.safe_load_all(text)
    assert doc['spec']['nfs'] == {
        'server': STORAGE_IP,
        'path': '/volume/nfs/pv1',
    }
    assert doc['metadata']['labels'] == {pvs.INSTANCE_LABEL: 'inst-1'}
    # The package's manifest is left as it was.
    assert first.documents[0]['spec']['nfs']['server'] == '0.0.0.0'


@pytest.mark.parametrize(
    ('replace', 'message'),
    [
        (
            {'Files/kubernetes/nfs-pv2.yaml': b'kind: ConfigMap\n'},
            '1/pv_manifest_file_path: Files/kubernetes/nfs-pv2.yaml holds '
            'something other',
        ),
        (
            {'Files/kubernetes/nfs-pv3.yaml': pv_yaml(3, '/volume/nfs/other')},
            '2/pv_manifest_file_path: .*names NFS path /volume/nfs/other, '
            'which storage_server does not export',
        ),
        (
            {'Files/kubernetes/nfs-pv3.yaml': pv_yaml(1)},
            'PersistentVolume nfs-pv1 is also in pv_registration_params/0',
        ),
        (
            {'Files/kubernetes/nfs-pv1.yaml': b'a: [\n'},
            '0/pv_manifest_file_path: Files/kubernetes/nfs-pv1.yaml: YAML '
            'error at line 2',
        ),
    ],
)
def test_bad_manifests_are_named(replace: dict[str, bytes], message: str):
    with pytest.raises(exceptions.OperationFailed, match=message):
        pvs.read(package(**replace), params())


def test_a_missing_manifest_is_named():
    files = {
        'Files/kubernetes/nfs-pv1.yaml': pv_yaml(1),
        'Files/kubernetes/nfs-pv3.yaml': pv_yaml(3),
    }
    with pytest.raises(
        exceptions.OperationFailed,
        match='pv_registration_params/1/pv_manifest_file_path: the VNF '
        'package has no file',
    ):
        pvs.read(PackageFiles('p', files), params())


def test_bound_names_each_pv_and_its_claim():
    items = [
        {'metadata': {'name': 'nfs-pv1'}, 'status': {'phase': 'Available'}},
        {
            'metadata': {'name': 'nfs-pv2'},
            'spec': {'claimRef': {'namespace': 'db', 'name': 'data-0'}},
            'status': {'phase': 'Bound'},
        },
    ]
    assert pvs.bound(items) == ['nfs-pv2 (claim db/data-0)']


# -- the hooks ----------------------------------------------------------------


class Vms(dict):
    """The fake VMs the driver logged into, by address; ``answers`` of
    the VMs to come, by address and step."""

    def __init__(self) -> None:
        super().__init__()
        self.answers: dict[str, dict[str, str]] = {}

    def connect(self, target: ssh.Target, *a: Any, **k: Any) -> Recorder:
        if target.host not in self:
            self[target.host] = Recorder(
                target.host, self.answers.get(target.host)
            )
        return self[target.host]


@pytest.fixture
def vms(monkeypatch: pytest.MonkeyPatch) -> Vms:
    made = Vms()
    monkeypatch.setattr(ssh, 'connect', made.connect)
    return made


def _ctx(hook: str, info: dict, **extra: Any) -> Any:
    extra.setdefault('request', {'additionalParams': with_storage()})
    extra.setdefault('vim_connection_info', {'kubernetes_cluster': {}})
    return make_ctx(hook, info, package=package(), vnfd=vnfd(), **extra)


def test_instantiate_end_sets_up_storage_clients_and_pvs(vms):
    info = info_with_storage()
    info['flavourId'] = 'cluster_install'
    cluster_driver().instantiate_end(_ctx('instantiate_end', info))

    server = vms[STORAGE_IP].steps
    assert server == ['volume', 'export-dirs', 'packages', 'nfs-kernel']
    assert vms['198.18.0.21'].steps == ['nfs-client']
    master = vms['198.18.0.11']
    assert 'nfs-client' in master.steps and 'pv-register' in master.steps
    uploaded = [yaml.safe_load(t) for t in master.files.values()]
    assert [d['metadata']['name'] for d in uploaded] == [
        'nfs-pv1',
        'nfs-pv2',
        'nfs-pv3',
    ]
    assert {d['spec']['nfs']['server'] for d in uploaded} == {STORAGE_IP}


def test_bad_storage_parameters_fail_before_any_vm_is_touched(vms):
    info = info_with_storage()
    info['flavourId'] = 'cluster_install'
    ctx = _ctx('instantiate_end', info)
    ctx.package = package(**{'Files/kubernetes/nfs-pv2.yaml': b'kind: X\n'})
    with pytest.raises(
        exceptions.OperationFailed, match='pv_registration_params/1'
    ):
        cluster_driver().instantiate_end(ctx)
    assert vms == {}


def test_a_scale_of_the_storage_server_is_refused(vms):
    info = info_with_storage()
    info['flavourId'] = 'cluster_install'
    ctx = _ctx(
        'scale_start',
        info,
        request={'type': 'SCALE_OUT', 'aspectId': 'storage_instance'},
        instantiate_request=lambda: {'additionalParams': with_storage()},
    )
    with pytest.raises(exceptions.OperationFailed, match='storage_server'):
        cluster_driver().scale_start(ctx)


def _pv_list(*bound: str) -> str:
    items = []
    for i in (1, 2, 3):
        name = f'nfs-pv{i}'
        item: dict[str, Any] = {
            'metadata': {'name': name},
            'status': {'phase': 'Available'},
        }
        if name in bound:
            item['status']['phase'] = 'Bound'
            item['spec'] = {
                'claimRef': {'namespace': 'app', 'name': f'claim-{i}'}
            }
        items.append(item)
    items.append(
        {'metadata': {'name': 'not-ours'}, 'status': {'phase': 'Bound'}}
    )
    return json.dumps({'items': items})


def _heal_ctx(hook: str) -> Any:
    info = info_with_storage()
    info['flavourId'] = 'cluster_install'
    return _ctx(
        hook,
        info,
        request={'vnfcInstanceId': ['s1']},
        instantiate_request=lambda: {'additionalParams': with_storage()},
    )


def test_heal_of_the_storage_vm_is_refused_while_a_pv_is_bound(vms):
    vms.answers['198.18.0.11'] = {'pv-read': _pv_list('nfs-pv2')}
    with pytest.raises(
        exceptions.OperationFailed,
        match=r'nfs-pv2 \(claim app/claim-2\).*nothing was changed',
    ):
        cluster_driver().heal_start(_heal_ctx('heal_start'))
    assert 'pv-delete' not in vms['198.18.0.11'].steps
    assert STORAGE_IP not in vms


def test_heal_start_deletes_the_pvs_when_none_is_bound(vms):
    vms.answers['198.18.0.11'] = {'pv-read': _pv_list()}
    cluster_driver().heal_start(_heal_ctx('heal_start'))
    assert vms['198.18.0.11'].steps == ['pv-read', 'pv-delete']


def test_heal_end_sets_up_the_new_storage_vm_and_registers_the_pvs(vms):
    ctx = _heal_ctx('heal_end')
    cluster_driver(joined(ctx.vnf_instance['instantiatedVnfInfo'])).heal_end(
        ctx
    )
    assert vms[STORAGE_IP].steps == [
        'volume',
        'export-dirs',
        'packages',
        'nfs-kernel',
    ]
    assert 'pv-register' in vms['198.18.0.11'].steps
    # No worker was healed: no worker touched.
    assert '198.18.0.21' not in vms


def test_scale_out_installs_the_nfs_client_on_the_new_worker_only(vms):
    before = info_with_storage()
    after = dict(
        before,
        vnfcResourceInfo=before['vnfcResourceInfo'] + [instances.worker(3)],
    )
    after['flavourId'] = 'cluster_install'
    keys = {
        v['computeResource']['resourceId']: ['ssh-ed25519 OLD']
        for v in before['vnfcResourceInfo']
    }
    ctx = _ctx(
        'scale_end',
        after,
        request={'type': 'SCALE_OUT', 'aspectId': 'worker_instance'},
        instantiate_request=lambda: {'additionalParams': with_storage()},
    )
    ctx.vnf_instance['metadata'] = {hostkeys.METADATA_KEY: keys}
    changes = cluster_driver(joined(before)).scale_end(ctx).changes
    assert vms['198.18.0.23'].steps == ['nfs-client']
    assert STORAGE_IP not in vms
    # The storage VM's pinned key is kept (not dropped as a gone VM's).
    assert 'server-s1' not in changes['metadata'][hostkeys.METADATA_KEY]
