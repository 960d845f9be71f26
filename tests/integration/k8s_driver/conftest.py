"""Fixtures for the Kubernetes infra driver against the local control plane."""

from __future__ import annotations

import io
import pathlib
import time
import uuid
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from vnfm.clients import kubernetes as k8s
from vnfm.conf import CONF
from vnfm.csar import read_csar
from vnfm.csar.build import build_csar
from vnfm.drivers.infra import base
from vnfm.drivers.package_files import PackageFiles
from vnfm_testbed.k8s.cluster import LocalCluster
from vnfm_testbed.k8s.fixtures import local_k8s  # noqa: F401

SAMPLE = (
    pathlib.Path(__file__).resolve().parents[3]
    / 'samples'
    / 'packages'
    / 'cnf_simple'
)
DEF_FILES = [
    f'Files/kubernetes/{n}.yaml'
    for n in ('configmap', 'secret', 'service', 'deployment', 'pod')
]
VIM_ID = 'vim-k8s'


def sample_files() -> dict[str, bytes]:
    """Files of the built cnf_simple sample."""
    with zipfile.ZipFile(io.BytesIO(build_csar(str(SAMPLE)))) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def package(
    replace: dict[str, tuple[str, str]] | None = None,
    add: dict[str, str] | None = None,
) -> tuple[PackageFiles, dict[str, Any]]:
    """(files, vnfd dict) of cnf_simple with text replacements per file
    and files added."""
    files = sample_files()
    files.update({path: text.encode() for path, text in (add or {}).items()})
    for path, (old, new) in (replace or {}).items():
        text = files[path].decode()
        assert old in text, (path, old)
        files[path] = text.replace(old, new).encode()
    vnfd = read_csar(_zip(files)).vnfd.to_dict()
    return PackageFiles(str(uuid.uuid4()), files), vnfd


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def vim_info(cluster: LocalCluster, **access: Any) -> dict[str, Any]:
    """A VimConnectionInfo for the local cluster (admin token by default)."""
    return {
        'vimId': 'local',
        'vimType': k8s.VIM_TYPE,
        'interfaceInfo': {
            'endpoint': cluster.endpoint,
            'ssl_ca_cert': cluster.ca_cert_path.read_text(),
        },
        'accessInfo': access or {'bearer_token': cluster.admin_token},
    }


@pytest.fixture(autouse=True)
def _conf() -> Iterator[None]:
    CONF.set_override('ready_timeout', 60, group='kubernetes')
    CONF.set_override('graceful_termination_timeout', 1, group='kubernetes')
    yield
    CONF.clear_override('ready_timeout', group='kubernetes')
    CONF.clear_override('graceful_termination_timeout', group='kubernetes')


@pytest.fixture
def vim(local_k8s: LocalCluster) -> dict[str, Any]:  # noqa: F811
    """Admin vimConnectionInfo."""
    return vim_info(local_k8s)


@pytest.fixture
def kube(vim: dict[str, Any]) -> Iterator[k8s.KubeClient]:
    """A client for assertions."""
    with k8s.KubeClient(vim) as client:
        yield client


@pytest.fixture
def namespace(
    kube: k8s.KubeClient,
    local_k8s: LocalCluster,  # noqa: F811
) -> Iterator[str]:
    """A fresh namespace whose default ServiceAccount has its token."""
    name = local_k8s.create_namespace(f'cnf-{uuid.uuid4().hex[:8]}')
    yield name
    kube.delete('v1', 'Namespace', name, None, 'Background')


@pytest.fixture
def make_ctx(
    vim: dict[str, Any], namespace: str
) -> Callable[..., base.InfraContext]:
    """Build an InfraContext for the sample package in the test namespace."""
    files, vnfd = package()

    def make(
        operation: str,
        request: dict[str, Any] | None = None,
        instance: dict[str, Any] | None = None,
        **kw: Any,
    ) -> base.InfraContext:
        request = (
            request
            if request is not None
            else {
                'flavourId': 'simple',
                'additionalParams': {
                    'lcm-kubernetes-def-files': DEF_FILES,
                    'namespace': namespace,
                },
            }
        )
        fields = dict(
            operation=operation,
            vnf_instance=instance or {'id': str(uuid.uuid4())},
            request=request,
            vnfd=kw.pop('vnfd', vnfd),
            flavour_id='simple',
            vim_connection_info={VIM_ID: kw.pop('vim', vim)},
            package=kw.pop('package', files),
            deadline=time.monotonic() + 90,
        )
        fields.update(kw)
        return base.InfraContext(**fields)

    return make


KINDS = (
    ('v1', 'ConfigMap'),
    ('v1', 'Secret'),
    ('v1', 'Service'),
    ('apps/v1', 'Deployment'),
    ('apps/v1', 'ReplicaSet'),
    ('v1', 'Pod'),
)


def labelled(
    kube: k8s.KubeClient,
    namespace: str,
    instance_id: str,
    kinds: tuple[tuple[str, str], ...] = KINDS,
) -> dict[str, list[str]]:
    """Names of the instance's objects of ``kinds`` (apiVersion, kind) in
    the namespace, by kind."""
    sel = f'{k8s.INSTANCE_LABEL}={instance_id}'
    out = {}
    for api, kind in kinds:
        items = kube.list(api, kind, namespace, sel)[0]
        out[kind] = sorted(o['metadata']['name'] for o in items)
    return out


def live_pods(
    kube: k8s.KubeClient, namespace: str, instance_id: str
) -> set[str]:
    """Names of the instance's Pods that are not terminating."""
    sel = f'{k8s.INSTANCE_LABEL}={instance_id}'
    return {
        p['metadata']['name']
        for p in kube.list('v1', 'Pod', namespace, sel)[0]
        if not p['metadata'].get('deletionTimestamp')
    }
