"""Seed 002 end to end on the local cloud, through the real client: a
cluster VNF (Heat VMs, Kubernetes installed over SSH by the
``kubernetes_cluster`` MgmtDriver with the test package's script) is
registered as a Kubernetes VIM; a CNF runs on it; the cluster's workers
scale out and in, one heals; its master heals (the cluster built again,
its VIM updated); the cluster cannot be terminated while the CNF uses it,
and its VIM goes with it. Failures: a wrong password, a script failing
halfway (then retried)."""

from __future__ import annotations

import base64
import contextlib
import json
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from vnfm.csar.build import build_csar
from vnfm_testbed import procs
from vnfm_testbed.client import ClientError
from vnfm_testbed.client import TackerClient
from vnfm_testbed.demo import k8s as demo_k8s
from vnfm_testbed.k8s import k8sbuild
from vnfm_testbed.openstack import k8s_cluster_sample
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import LocalCloud

from ..conftest import Api
from ..conftest import running
from ..conftest import wait_for
from .conftest import vim_config
from .test_vnf_lifecycle import _ssh_run
from .test_vnf_lifecycle import _stacks

pytestmark = pytest.mark.timeout(1500)
VIM_NAME = 'k8s-on-vms'
MASTER_STATE = '/var/lib/vnfm-localk8s/master'


@pytest.fixture(scope='module')
def services(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[procs.VnfmServices]:
    """vnfm-api and a conductor with the OpenStack and Kubernetes drivers."""
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('vnfm-k8s-cluster'),
        conf={'infra': {'enabled_infra_drivers': 'openstack,kubernetes'}},
    )
    with running('k8s_cluster_services', svc, conductors=1):
        yield svc


@pytest.fixture(scope='module')
def client(services: procs.VnfmServices) -> TackerClient:
    """The real ``openstack`` client pointed at vnfm-api."""
    return TackerClient(services.api_url, timeout=120)


@pytest.fixture(scope='module')
def api(
    services: procs.VnfmServices, tmp_path_factory: pytest.TempPathFactory
) -> Api:
    """Raw HTTP to vnfm-api (polling op occurrences)."""
    return Api(services.api_url, tmp_path_factory.mktemp('h') / 'none')


def _onboard(client: TackerClient, src: Path, tmp: Path) -> dict:
    """``openstack vnf package create`` + ``upload``; the onboarded info."""
    path = tmp / f'{src.name}.zip'
    path.write_bytes(build_csar(str(src)))
    pkg_id = client.pkg_json('create')['ID']
    client.pkg('upload', '--path', str(path), pkg_id)

    def onboarded() -> dict | None:
        info = client.pkg_json('show', pkg_id)
        assert info['Onboarding State'] != 'ERROR', info
        return info if info['Onboarding State'] == 'ONBOARDED' else None

    return wait_for(onboarded, 60, f'{src.name} ONBOARDED', interval=0.5)


def _run(
    client: TackerClient,
    api: Api,
    inst_id: str,
    operation: str,
    *args: str,
    state: str = 'COMPLETED',
) -> dict:
    client.lcm(*args)
    return api.wait_op(
        api.latest_op(inst_id, operation)['id'], state, timeout=600
    )


def _ssh(address: str, command: str) -> str:
    """``command`` on a cluster VM as its login user; its stdout."""
    login = k8s_cluster_sample.LOGIN
    return _ssh_run(address, login['username'], login['password'], command)


def _vms(api: Api, inst_id: str) -> dict[str, list[str]]:
    """VDU id -> the SSH addresses of its VMs."""
    info = api.instance(inst_id)['instantiatedVnfInfo']
    out: dict[str, list[str]] = {}
    for vnfc in info['vnfcResourceInfo']:
        cp = vnfc['vnfcCpInfo'][0]
        ip = cp['cpProtocolInfo'][0]['ipOverEthernet']['ipAddresses'][0]
        out.setdefault(vnfc['vduId'], []).append(ip['addresses'][0])
    return out


class Kubectl:
    """Real kubectl on the cluster, with the admin credentials an operator
    takes from the master VM (not vnfm's)."""

    def __init__(self, master: str, tmp: Path) -> None:
        self.token = _ssh(
            master,
            f"sudo awk '/token:/ {{print $2}}' "
            f'{MASTER_STATE}/admin.kubeconfig',
        )
        ca = _ssh(master, f'sudo base64 -w0 {MASTER_STATE}/pki/ca.crt')
        self.ca = tmp / 'cluster-ca.crt'
        self.ca.write_bytes(base64.b64decode(ca))
        self.server = f'https://{master}:6443'
        binaries = k8sbuild.cached()
        assert binaries is not None
        self.kubectl = str(binaries.kubectl)

    def json(self, *args: str) -> Any:
        out = subprocess.run(
            [
                self.kubectl,
                f'--server={self.server}',
                f'--certificate-authority={self.ca}',
                f'--token={self.token}',
                '--request-timeout=30s',
                *args,
                '-o',
                'json',
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return json.loads(out.stdout)

    def ready_nodes(self) -> set[str]:
        return {
            n['metadata']['name']
            for n in self.json('get', 'nodes')['items']
            if any(
                c['type'] == 'Ready' and c['status'] == 'True'
                for c in n['status'].get('conditions') or []
            )
        }

    def running_pods(self) -> dict[str, str]:
        """Pod name -> Node of the Running Pods of namespace default."""
        return {
            p['metadata']['name']: p['spec'].get('nodeName', '')
            for p in self.json('get', 'pods', '-n', 'default')['items']
            if p['status'].get('phase') == 'Running'
            and not p['metadata'].get('deletionTimestamp')
        }


def _node_name(address: str) -> str:
    """The Node name of a worker VM: derived from its address, so two
    workers whose servers share a name are two Nodes."""
    return 'worker-' + address.replace('.', '-')


def _hostnames(addresses: list[str]) -> set[str]:
    """The Node names the workers register."""
    return {_node_name(a) for a in addresses}


def _vnfc_on(api: Api, inst_id: str, node: str) -> str:
    """The vnfcInfo id of the VM that is Node ``node``."""
    info = api.instance(inst_id)['instantiatedVnfInfo']
    by_resource = {v['vnfcResourceInfoId']: v['id'] for v in info['vnfcInfo']}
    for vnfc in info['vnfcResourceInfo']:
        cp = vnfc['vnfcCpInfo'][0]
        ip = cp['cpProtocolInfo'][0]['ipOverEthernet']['ipAddresses'][0]
        if _node_name(ip['addresses'][0]) == node:
            return by_resource[vnfc['id']]
    raise AssertionError(f'no VM {node}')


def _servers(api: Api, inst_id: str) -> set[str]:
    info = api.instance(inst_id)['instantiatedVnfInfo']
    return {
        v['computeResource']['resourceId'] for v in info['vnfcResourceInfo']
    }


def _master_vnfc(api: Api, inst_id: str) -> tuple[str, str]:
    """The vnfcInfo id of the master VM and its server."""
    info = api.instance(inst_id)['instantiatedVnfInfo']
    servers = {
        v['id']: v['computeResource']['resourceId']
        for v in info['vnfcResourceInfo']
    }
    for vnfc in info['vnfcInfo']:
        if vnfc['vduId'] == 'masterNode':
            return vnfc['id'], servers[vnfc['vnfcResourceInfoId']]
    raise AssertionError('no master VNFC')


def _vim(client: TackerClient) -> dict | None:
    for vim in client.json('vim', 'list'):
        if vim['Name'] == VIM_NAME:
            return vim
    return None


@pytest.fixture(scope='module')
def os_vim(
    client: TackerClient,
    local_cloud: LocalCloud,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict:
    """The local cloud registered as a VIM of its demo user."""
    config = vim_config(local_cloud, tmp_path_factory.mktemp('v') / 'v.yaml')
    return client.json(
        'vim', 'register', '--config-file', config, 'local-os-k8s'
    )


@pytest.fixture(scope='module')
def fail_dir() -> Iterator[Path]:
    """Where a test names install actions to fail once (the VMs see the
    host's /var/tmp, not its /tmp)."""
    path = Path(tempfile.mkdtemp(prefix='vnfm-vmk8s-', dir='/var/tmp'))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope='module')
def packages(
    client: TackerClient,
    fail_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, str]:
    """vnfdId of the cluster test package and of cnf_simple, onboarded."""
    tmp = tmp_path_factory.mktemp('k8s-packages')
    source = k8s_cluster_sample.package_source(tmp / 'k8s', fail_dir)
    # As in Tacker's cluster package, every worker server has one name
    # (which was its host name and so its Node's: two workers made one).
    for nested in source.glob('BaseHOT/*/nested/workerNode.yaml'):
        text = nested.read_text()
        named = text.replace(
            '    properties:\n      flavor:',
            '    properties:\n      name: workerNode\n      flavor:',
            1,
        )
        assert named != text
        nested.write_text(named)
    cnf = k8s_cluster_sample.SAMPLE.with_name('cnf_simple')
    return {
        'cluster': _onboard(client, source, tmp)['VNFD ID'],
        'cnf': _onboard(client, cnf, tmp)['VNFD ID'],
    }


def test_a_cluster_vnf_hosts_a_cnf(
    client: TackerClient,
    api: Api,
    os_vim: dict,
    packages: dict[str, str],
    tmp_path: Path,
) -> None:
    inst = client.lcm_json('create', packages['cluster'], '--name', 'k8s')[
        'ID'
    ]
    body = tmp_path / 'instantiate.json'
    body.write_text(
        json.dumps(
            k8s_cluster_sample.instantiate_request(os_vim['id'], VIM_NAME)
        )
    )

    # Instantiate: VMs from Heat, Kubernetes on them, the cluster a VIM.
    _run(client, api, inst, 'INSTANTIATE', 'instantiate', inst, str(body))

    vim = _vim(client)
    assert vim is not None and vim['Type'] == 'kubernetes', vim
    vms = _vms(api, inst)
    kube = Kubectl(vms['masterNode'][0], tmp_path)
    workers = _hostnames(vms['workerNode'])
    wait_for(lambda: kube.ready_nodes() == workers, 60, f'Nodes {workers}')

    # A CNF on the cluster's VIM: its Pods run on the workers.
    cnf = client.lcm_json('create', packages['cnf'], '--name', 'on-k8s')['ID']
    cnf_body = tmp_path / 'cnf.json'
    cnf_body.write_text(
        json.dumps(demo_k8s.cnf_instantiate_request('default', vim['ID']))
    )
    _run(client, api, cnf, 'INSTANTIATE', 'instantiate', cnf, str(cnf_body))
    pods = kube.running_pods()
    assert pods and set(pods.values()) <= workers, pods

    # The cluster cannot go while the CNF uses it: refused at once.
    with pytest.raises(ClientError) as refused:
        client.lcm('terminate', inst)
    assert cnf in refused.value.output and 'on-k8s' in refused.value.output
    assert _vim(client) is not None

    # Scale out: the new worker VM joins as a Node of its own name.
    scale = ('scale', inst, '--aspect-id', 'worker_instance')
    _run(client, api, inst, 'SCALE', *scale, '--type', 'SCALE_OUT')
    grown = _hostnames(_vms(api, inst)['workerNode'])
    assert len(grown) == len(workers) + 1
    wait_for(lambda: kube.ready_nodes() == grown, 60, f'Nodes {grown}')
    (new,) = grown - workers

    # The CNF grows onto the new worker.
    cnf_scale = ('scale', cnf, '--aspect-id', 'vdu1_aspect')
    _run(client, api, cnf, 'SCALE', *cnf_scale, '--type', 'SCALE_OUT')
    moved = wait_for(
        lambda: [p for p, n in kube.running_pods().items() if n == new],
        60,
        f'a Pod on {new}',
    )

    # Heal of the new worker: its Node drained (its Pods move to the other
    # worker) and deleted, the new VM (on the same port, so of the same
    # Node name) joined again.
    before = _servers(api, inst)
    _run(
        client,
        api,
        inst,
        'HEAL',
        'heal',
        inst,
        '--vnfc-instance',
        _vnfc_on(api, inst, new),
    )
    healed = _hostnames(_vms(api, inst)['workerNode'])
    assert healed == grown, healed
    assert len(_servers(api, inst) - before) == 1  # a new VM
    wait_for(lambda: kube.ready_nodes() == healed, 60, f'Nodes {healed}')
    running = kube.running_pods()
    assert not set(moved) & set(running), running
    assert len(running) == len(pods) + 1
    assert set(running.values()) <= workers, running

    # Scale in: the newest worker's Node is drained and deleted before
    # its VM goes; the CNF runs on.
    _run(client, api, inst, 'SCALE', *scale, '--type', 'SCALE_IN')
    assert _hostnames(_vms(api, inst)['workerNode']) == workers
    assert kube.ready_nodes() == workers
    assert len(kube.running_pods()) == len(pods) + 1

    _run(client, api, cnf, 'TERMINATE', 'terminate', cnf)

    # Heal of the single master: the cluster is built again on the new VM
    # (the worker leaves the old one) and the VIM updated: a CNF runs on it.
    master, server = _master_vnfc(api, inst)
    _run(client, api, inst, 'HEAL', 'heal', inst, '--vnfc-instance', master)
    assert _master_vnfc(api, inst)[1] != server  # a new VM
    kube = Kubectl(_vms(api, inst)['masterNode'][0], tmp_path)
    wait_for(lambda: kube.ready_nodes() == workers, 60, f'Nodes {workers}')
    _run(client, api, cnf, 'INSTANTIATE', 'instantiate', cnf, str(cnf_body))
    assert set(kube.running_pods().values()) <= workers

    # The CNF, then the cluster: its VIM is gone with it.
    _run(client, api, cnf, 'TERMINATE', 'terminate', cnf)
    _run(client, api, inst, 'TERMINATE', 'terminate', inst)
    assert _vim(client) is None
    with contextlib.suppress(Exception):
        client.lcm('delete', cnf)
    client.lcm('delete', inst)


def test_a_wrong_password_fails_naming_the_vm_and_rollback_removes_it(
    client: TackerClient,
    api: Api,
    os_vim: dict,
    packages: dict[str, str],
    local_cloud: LocalCloud,
    tmp_path: Path,
) -> None:
    inst = client.lcm_json('create', packages['cluster'], '--name', 'bad')[
        'ID'
    ]
    request = k8s_cluster_sample.instantiate_request(os_vim['id'], 'bad-pw')
    param = request['additionalParams']['k8s_cluster_installation_param']
    param['worker_node']['password'] = 'wrong-pw-4711'
    body = tmp_path / 'instantiate.json'
    body.write_text(json.dumps(request))

    failed = _run(
        client,
        api,
        inst,
        'INSTANTIATE',
        'instantiate',
        inst,
        str(body),
        state='FAILED_TEMP',
    )

    detail = failed['error']['detail']
    assert re.search(
        r'install script prepare on worker VNFC \S+ \(198\.1[89]\.[\d.]+\)',
        detail,
    ), detail
    assert 'refused' in detail, detail
    shown = client.lcm('op', 'show', failed['id']) + client.printed()
    assert 'wrong-pw-4711' not in shown
    assert f'vnf-{inst}' in _stacks(local_cloud)

    client.lcm('op', 'rollback', failed['id'])
    api.wait_op(failed['id'], 'ROLLED_BACK', timeout=300)

    assert f'vnf-{inst}' not in _stacks(local_cloud)
    assert 'bad-pw' not in {v['Name'] for v in client.json('vim', 'list')}
    client.lcm('delete', inst)


def test_a_v1_instantiate_that_fails_halfway_completes_on_retry(
    client: TackerClient,
    api: Api,
    os_vim: dict,
    packages: dict[str, str],
    fail_dir: Path,
    tmp_path: Path,
) -> None:
    created = client.json(
        'vnflcm', 'create', packages['cluster'], '--name', 'v1-k8s',
        api_version='1',
    )  # fmt: skip
    inst = created['ID']
    body = tmp_path / 'instantiate.json'
    body.write_text(
        json.dumps(
            vmsample.as_v1(
                k8s_cluster_sample.instantiate_request(
                    os_vim['id'], 'v1-k8s-vim'
                )
            )
        )
    )
    (fail_dir / 'join-worker').touch()

    client.run('vnflcm', 'instantiate', inst, str(body), api_version='1')
    op_id = api.latest_op(inst, 'INSTANTIATE')['id']
    failed = api.wait_op(op_id, 'FAILED_TEMP', timeout=600)

    assert (
        'install script join-worker on worker VNFC'
        in (failed['error']['detail'])
    ), failed['error']
    assert 'v1-k8s-vim' not in {v['Name'] for v in client.json('vim', 'list')}

    # The steps done stay done; the worker joins this time.
    client.lcm('op', 'retry', op_id)
    api.wait_op(op_id, 'COMPLETED', timeout=600)

    assert 'v1-k8s-vim' in {v['Name'] for v in client.json('vim', 'list')}
    vms = _vms(api, inst)
    kube = Kubectl(vms['masterNode'][0], tmp_path)
    workers = _hostnames(vms['workerNode'])
    wait_for(lambda: kube.ready_nodes() == workers, 60, f'Nodes {workers}')

    client.run('vnflcm', 'terminate', inst, api_version='1')
    api.wait_op(
        api.latest_op(inst, 'TERMINATE')['id'], 'COMPLETED', timeout=600
    )
    assert 'v1-k8s-vim' not in {v['Name'] for v in client.json('vim', 'list')}
    client.run('vnflcm', 'delete', inst, api_version='1')
