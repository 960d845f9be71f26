"""CNF fixtures: vnfm-api and a separate vnfm-conductor with the Kubernetes
infra driver (RabbitMQ + PostgreSQL), the local Kubernetes control plane,
the real client, and the CNF sample packages built into zips."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import shutil
import subprocess  # nosec B404 - running kubectl
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from vnfm.csar.build import build_csar
from vnfm_testbed import procs
from vnfm_testbed.client import TackerClient
from vnfm_testbed.k8s.cluster import LocalCluster
from vnfm_testbed.k8s.fixtures import local_k8s  # noqa: F401

from ..conftest import Api
from ..conftest import running
from ..conftest import wait_for

SAMPLES = Path(__file__).resolve().parents[3] / 'samples' / 'packages'
V1_VNFD_ID = '7c2a4d1e-3b5f-4e8a-9c61-2f0d8e4b5a10'
V2_VNFD_ID = '9afa3b6e-985e-48e9-8765-0acabb06cd17'
K8S_VIM_TYPE = 'ETSINFV.KUBERNETES.V_1'
DEF_FILES = [
    f'Files/kubernetes/{n}.yaml'
    for n in ('configmap', 'secret', 'service', 'deployment', 'pod')
]
# The simulated kubelet fails to pull images matching this (cluster.py).
BAD_IMAGE = 'no-such-image:1.0'
# Seed 003's second package (cnf_update_v2).
V2_DESCRIPTOR = 'a0f3c6d2-1b7e-4c59-8e2a-3d4f5b6c7e02'


def _variant(
    src: Path, dst: Path, vnfd_id: str, replace: dict[str, tuple[str, str]]
) -> Path:
    """A copy of sample ``src`` with its own vnfdId and text replaced."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns('__pycache__'))
    for path in (dst / 'Definitions').glob('*.yaml'):
        path.write_text(path.read_text().replace(V1_VNFD_ID, vnfd_id))
    for rel, (old, new) in replace.items():
        text = (dst / rel).read_text()
        assert old in text, (rel, old)
        (dst / rel).write_text(text.replace(old, new))
    return dst


@pytest.fixture(scope='session')
def cnf_zips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Zips by name: v1 (cnf_simple), v2 (cnf_simple_v2), badimage (v1 whose
    web image cannot be pulled)."""
    root = tmp_path_factory.mktemp('cnf-packages')
    bad = _variant(
        SAMPLES / 'cnf_simple',
        root / 'badimage',
        str(uuid.uuid4()),
        {
            'Files/kubernetes/deployment.yaml': (
                'image: nginx:1.25',
                f'image: {BAD_IMAGE}',
            )
        },
    )
    out = {}
    for name, src in (
        ('v1', SAMPLES / 'cnf_simple'),
        ('v2', SAMPLES / 'cnf_simple_v2'),
        ('badimage', bad),
    ):
        out[name] = root / f'{name}.zip'
        out[name].write_bytes(build_csar(str(src)))
    return out


@pytest.fixture(scope='session')
def cnf_services(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[procs.VnfmServices]:
    """vnfm-api and one vnfm-conductor serving Kubernetes VIMs, syncing
    Pods every second; cnf_flavours' hook script may run."""
    script = SAMPLES / 'cnf_flavours' / 'Scripts' / 'record_hook.py'
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('vnfm-cnf'),
        conf={
            'mgmt_driver': {
                'allowed_script_sha256': hashlib.sha256(
                    script.read_bytes()
                ).hexdigest()
            },
            'infra': {'enabled_infra_drivers': 'noop,kubernetes'},
            'kubernetes': {
                'sync_interval': 1,
                'ready_timeout': 60,
                'graceful_termination_timeout': 1,
            },
        },
    )
    with running('cnf_services', svc, conductors=1):
        yield svc


@pytest.fixture(scope='session')
def cnf_client(cnf_services: procs.VnfmServices) -> TackerClient:
    """The real ``openstack`` client pointed at the CNF vnfm-api."""
    return TackerClient(cnf_services.api_url)


@pytest.fixture(scope='session')
def cnf_api(
    cnf_services: procs.VnfmServices, tmp_path_factory: pytest.TempPathFactory
) -> Api:
    """Raw HTTP to the CNF vnfm-api (set-up and polling)."""
    return Api(
        cnf_services.api_url,
        tmp_path_factory.mktemp('cnf-hooks') / 'none.jsonl',
    )


@pytest.fixture(scope='session')
def cnf_packages(cnf_api: Api, cnf_zips: dict[str, Path]) -> dict[str, dict]:
    """The CNF packages, onboarded, by name."""
    return {name: cnf_api.onboard(path) for name, path in cnf_zips.items()}


class Kubectl:
    """The real kubectl 1.20 on the local cluster (admin kubeconfig)."""

    def __init__(self, cluster: LocalCluster) -> None:
        self.cluster = cluster

    def run(self, *args: str) -> str:
        """``kubectl <args>``; its stdout (fails the test on error)."""
        out = subprocess.run(  # nosec B603 - fixed argv
            [
                str(self.cluster.kubectl),
                '--kubeconfig',
                str(self.cluster.kubeconfig_path),
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert out.returncode == 0, out.stderr
        return out.stdout

    def json(self, *args: str) -> Any:
        """``kubectl <args> -o json``, parsed."""
        return json.loads(self.run(*args, '-o', 'json'))

    def objects(self, namespace: str, instance_id: str) -> dict[str, list]:
        """Names of the instance's objects by kind (terminating Pods too)."""
        items = self.json(
            'get',
            'configmaps,secrets,services,deployments,replicasets,pods',
            '-n',
            namespace,
            '-l',
            f'vnfm.io/vnf-instance-id={instance_id}',
        )['items']
        out: dict[str, list] = {}
        for o in items:
            out.setdefault(o['kind'], []).append(o['metadata']['name'])
        return {k: sorted(v) for k, v in out.items()}

    def live_pods(self, namespace: str, instance_id: str) -> set[str]:
        """Names of the instance's Pods that are not terminating."""
        items = self.json(
            'get',
            'pods',
            '-n',
            namespace,
            '-l',
            f'vnfm.io/vnf-instance-id={instance_id}',
        )['items']
        return {
            p['metadata']['name']
            for p in items
            if not p['metadata'].get('deletionTimestamp')
        }


@pytest.fixture(scope='session')
def kubectl(local_k8s: LocalCluster) -> Kubectl:  # noqa: F811
    """kubectl on the local cluster."""
    return Kubectl(local_k8s)


@pytest.fixture
def namespace(kubectl: Kubectl) -> Iterator[str]:
    """A fresh namespace whose default ServiceAccount has its token."""
    name = f'cnf-{uuid.uuid4().hex[:8]}'
    kubectl.cluster.create_namespace(name)
    yield name
    kubectl.run('delete', 'namespace', name, '--wait=false')


@dataclasses.dataclass
class CnfInstance:
    """A VNF instance under test and what reaches it (``inst_id`` is set
    once the test creates it)."""

    client: TackerClient
    api: Api
    kubectl: Kubectl
    namespace: str
    tmp_path: Path
    inst_id: str = ''

    def instance(self) -> dict:
        """GET the instance (raw HTTP); check vnfcResourceInfo names exactly
        the live Pods."""
        inst = self.api.instance(self.inst_id)
        assert sorted(pods_of(inst)) == sorted(
            self.kubectl.live_pods(self.namespace, self.inst_id)
        )
        return inst


def vim_yaml(
    cluster: LocalCluster, path: Path, ca_pem: str | None = None
) -> Path:
    """The vim.yaml ``openstack vim register`` takes for the cluster."""
    path.write_text(
        yaml.safe_dump(
            {
                'auth_url': cluster.endpoint,
                'bearer_token': cluster.admin_token,
                'ssl_ca_cert': ca_pem or cluster.ca_cert_path.read_text(),
                'project_name': 'default',
                'type': 'kubernetes',
            }
        )
    )
    return path


def write_json(tmp_path: Path, name: str, body: dict) -> str:
    """Write a request body file for the client; its path."""
    path = tmp_path / name
    path.write_text(json.dumps(body))
    return str(path)


def wait_done(
    api: Api,
    instance_id: str,
    operation: str,
    state: str = 'COMPLETED',
    timeout: float = 60.0,
) -> dict:
    """Wait until the newest ``operation`` op of the instance is in
    ``state``; fail early on another final state."""
    op_id = api.latest_op(instance_id, operation)['id']
    return api.wait_op(op_id, state, timeout=timeout)


def pods_of(instance: dict, vdu: str | None = None) -> list[str]:
    """Pod names in the instance's vnfcResourceInfo (of one VDU)."""
    info = (
        instance.get('instantiatedVnfInfo')
        or instance.get('Instantiated Vnf Info')
        or {}
    )
    return [
        e['computeResource']['resourceId']
        for e in info.get('vnfcResourceInfo') or []
        if vdu is None or e['vduId'] == vdu
    ]


def vnfcs_of(instance: dict, vdu: str | None = None) -> dict[str, str]:
    """VNFC id -> Pod name of the instance (of one VDU)."""
    info = (
        instance.get('instantiatedVnfInfo')
        or instance.get('Instantiated Vnf Info')
        or {}
    )
    return {
        e['id']: e['computeResource']['resourceId']
        for e in info.get('vnfcResourceInfo') or []
        if vdu is None or e['vduId'] == vdu
    }


def instantiate_body(namespace: str, vim: dict) -> dict:
    """An InstantiateVnfRequest of the sample CNF into ``namespace``."""
    return {
        'flavourId': 'simple',
        'vimConnectionInfo': {'vim1': vim},
        'additionalParams': {
            'lcm-kubernetes-def-files': DEF_FILES,
            'namespace': namespace,
        },
    }


def inline_vim(cluster: LocalCluster) -> dict:
    """A VimConnectionInfo of the cluster given inline (admin token)."""
    return {
        'vimId': 'local',
        'vimType': K8S_VIM_TYPE,
        'interfaceInfo': {
            'endpoint': cluster.endpoint,
            'ssl_ca_cert': cluster.ca_cert_path.read_text(),
        },
        'accessInfo': {'bearer_token': cluster.admin_token},
    }


# Seed 003's packages and VIM, onboarded once for every module that uses
# them (a vnfdId can be onboarded only once).
def _v3(root: Path) -> Path:
    """v2 with its own vnfdId whose vdu1-update image cannot be pulled."""
    dst = root / 'cnf_update_v3'
    shutil.copytree(SAMPLES / 'cnf_update_v2', dst)
    vnfd_id = str(uuid.uuid4())
    for path in (dst / 'Definitions').glob('*.yaml'):
        path.write_text(path.read_text().replace(V2_DESCRIPTOR, vnfd_id))
    dep = dst / 'Files' / 'kubernetes' / 'deployment.yaml'
    text = dep.read_text()
    assert text.count('image: cirros') == 1
    dep.write_text(text.replace('image: cirros', f'image: {BAD_IMAGE}'))
    return dst


@pytest.fixture(scope='session')
def update_pkgs(
    cnf_client: TackerClient,
    cnf_api: Api,
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, dict]:
    """VnfPkgInfo by name of the seed 003 packages: v1 and v2 onboarded
    with ``openstack vnf package create/upload``, v3 by raw HTTP."""
    root = tmp_path_factory.mktemp('cnf-update')
    out = {}
    for name, src in (
        ('v1', SAMPLES / 'cnf_update_v1'),
        ('v2', SAMPLES / 'cnf_update_v2'),
        ('v3', _v3(root)),
    ):
        zip_path = root / f'{name}.zip'
        zip_path.write_bytes(build_csar(str(src)))
        if name == 'v3':
            out[name] = cnf_api.onboard(zip_path)
            continue
        pkg_id = cnf_client.pkg_json('create')['ID']
        assert pkg_id in cnf_client.pkg(
            'upload', pkg_id, '--path', str(zip_path)
        )
        onboarded = functools.partial(_onboarded, cnf_api, pkg_id)
        out[name] = wait_for(onboarded, 30, f'package {name} ONBOARDED')
    return out


def _onboarded(api: Api, pkg_id: str) -> dict | None:
    info = api.request(
        'GET', f'/vnfpkgm/v1/vnf_packages/{pkg_id}', version=None
    ).json()
    assert info['onboardingState'] != 'ERROR', info
    return info if info['onboardingState'] == 'ONBOARDED' else None


@pytest.fixture(scope='session')
def k8s_vim(
    cnf_client: TackerClient,
    cnf_api: Api,
    local_k8s: LocalCluster,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """The local cluster registered with ``openstack vim register``."""
    path = vim_yaml(local_k8s, tmp_path_factory.mktemp('vim') / 'vim.yaml')
    vim = cnf_client.json(
        'vim',
        'register',
        '--config-file',
        str(path),
        f'k8s-update-{uuid.uuid4().hex[:8]}',
    )
    yield vim['id']
    cnf_api.request('DELETE', f'/v1.0/vims/{vim["id"]}', version=None)
