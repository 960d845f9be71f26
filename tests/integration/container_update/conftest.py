"""Fixtures for the container_update MgmtDriver on the local Kubernetes.

``Cnf`` deploys manifests the way the Kubernetes infra driver does (objects
labelled with the instance id, VDU workloads with their VDU id, the
instance's ``instantiatedVnfInfo`` recording namespace, manifest paths and
VDU workloads) and runs the driver's hooks with a HookContext.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import yaml

from vnfm.clients import kubernetes as k8s
from vnfm.conf import CONF
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.container_update import ContainerUpdateDriver
from vnfm.drivers.package_files import PackageFiles
from vnfm_testbed.k8s.cluster import LocalCluster
from vnfm_testbed.k8s.fixtures import local_k8s  # noqa: F401

VIM_ID = 'vim-k8s'
WORKLOADS = ('Pod', 'Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet')
Obj = dict[str, Any]


def vim_info(cluster: LocalCluster) -> Obj:
    """Admin vimConnectionInfo of the local cluster."""
    return {
        'vimId': 'local',
        'vimType': k8s.VIM_TYPE,
        'interfaceInfo': {
            'endpoint': cluster.endpoint,
            'ssl_ca_cert': cluster.ca_cert_path.read_text(),
        },
        'accessInfo': {'bearer_token': cluster.admin_token},
    }


def files_of(docs: dict[str, list[Obj]]) -> dict[str, bytes]:
    """Package files from objects per path."""
    return {p: yaml.safe_dump_all(objs).encode() for p, objs in docs.items()}


class Cnf:
    """One VNF instance deployed from ``files`` into ``namespace``."""

    def __init__(
        self,
        kube: k8s.KubeClient,
        vim: Obj,
        namespace: str,
        files: dict[str, bytes],
    ) -> None:
        self.kube, self.vim, self.namespace = kube, vim, namespace
        self.id = str(uuid.uuid4())
        self.package = PackageFiles('pkg-v1', files)
        self.selector = f'{k8s.INSTANCE_LABEL}={self.id}'
        self.instance = self._deploy(sorted(files))
        self.work: Obj = {}

    def _deploy(self, paths: list[str]) -> Obj:
        objs, vdus = [], {}
        for path in paths:
            for obj in yaml.safe_load_all(self.package.read(path)):
                obj['metadata']['namespace'] = self.namespace
                labels = {k8s.INSTANCE_LABEL: self.id}
                if obj['kind'] in WORKLOADS:
                    vdu = f'VDU_{obj["metadata"]["name"]}'
                    labels[k8s.VDU_LABEL] = vdu
                    vdus[vdu] = obj
                objs.append(k8s.labelled(obj, labels))
        for obj in k8s.apply_order(objs):
            k8s.apply(self.kube, obj, self.id)
        pods = k8s.wait_ready(
            self.kube,
            list(vdus.values()),
            self.selector,
            time.monotonic() + 60,
        )
        vnfcs = []
        for vdu, w in sorted(vdus.items()):
            key = (w['kind'], self.namespace, w['metadata']['name'])
            for pod in pods[key]:
                vnfcs.append(
                    {
                        'id': str(uuid.uuid4()),
                        'vduId': vdu,
                        'computeResource': {
                            'vimConnectionId': VIM_ID,
                            'resourceId': pod['metadata']['name'],
                            'vimLevelResourceType': w['kind'],
                        },
                    }
                )
        return {
            'id': self.id,
            'vnfdId': 'vnfd-v1',
            'instantiatedVnfInfo': {
                'flavourId': 'simple',
                'vnfcResourceInfo': vnfcs,
                'vnfcInfo': [],
                'metadata': {
                    'namespace': self.namespace,
                    'lcm-kubernetes-def-files': paths,
                    'vdus': {
                        v: {
                            'apiVersion': w['apiVersion'],
                            'kind': w['kind'],
                            'name': w['metadata']['name'],
                            'namespace': self.namespace,
                        }
                        for v, w in vdus.items()
                    },
                },
            },
        }

    def ctx(
        self,
        new_files: dict[str, bytes],
        metadata: Obj | None = None,
        timeout: float = 60,
        progress: Callable[[str | None], None] | None = None,
    ) -> Any:
        """A modify_information_end HookContext towards ``new_files``
        (``progress`` gets what the hook waits for)."""
        return base.HookContext(
            hook='modify_information_end',
            operation='MODIFY_INFO',
            vnf_instance=self.instance,
            vnf_lcm_op_occ={},
            request={'vnfdId': 'vnfd-v2', 'metadata': metadata or {}},
            vim_connection_info={VIM_ID: self.vim},
            vnfd={},
            package=PackageFiles('pkg-v2', new_files),
            definition={'builtin': 'container_update'},
            deadline=time.monotonic() + timeout,
            source_package=self.package,
            work=self.work,
            progress=progress,
        )

    def update(self, new_files: dict[str, bytes], **kw: Any) -> Obj:
        """Run the hook; its changes (applied to ``instance`` as LCM
        would)."""
        changes = (
            ContainerUpdateDriver()
            .modify_information_end(self.ctx(new_files, **kw))
            .changes
        )
        info = changes.get('instantiatedVnfInfo')
        if info:
            merged = dict(self.instance['instantiatedVnfInfo'])
            meta = {**merged['metadata'], **info.pop('metadata', {})}
            merged.update(info, metadata=meta)
            self.instance = {**self.instance, 'instantiatedVnfInfo': merged}
        return changes

    def rollback(self, new_files: dict[str, bytes]) -> Obj:
        """Run the rollback of the hook."""
        return (
            ContainerUpdateDriver()
            .rollback_modify_information_end(self.ctx(new_files))
            .changes
        )

    def uids(self) -> dict[str, str]:
        """Live (not terminating) Pod name -> uid."""
        return {
            p['metadata']['name']: p['metadata']['uid']
            for p in self.kube.list(
                'v1', 'Pod', self.namespace, self.selector
            )[0]
            if not p['metadata'].get('deletionTimestamp')
        }

    def owner_uids(self, prefix: str) -> set[str]:
        """uids of the live Pods whose name starts with ``prefix``."""
        return {u for n, u in self.uids().items() if n.startswith(prefix)}

    def get(self, kind: str, name: str) -> Obj:
        """A live object of the namespace."""
        api = 'v1' if kind in ('Pod', 'ConfigMap', 'Secret') else 'apps/v1'
        obj = self.kube.get(api, kind, name, self.namespace)
        assert obj is not None, (kind, name)
        return obj


@pytest.fixture(autouse=True)
def _conf() -> Iterator[None]:
    CONF.set_override('ready_timeout', 60, group='kubernetes')
    CONF.set_override('graceful_termination_timeout', 0, group='kubernetes')
    yield
    CONF.clear_override('ready_timeout', group='kubernetes')
    CONF.clear_override('graceful_termination_timeout', group='kubernetes')


@pytest.fixture
def vim(local_k8s: LocalCluster) -> Obj:  # noqa: F811
    """Admin vimConnectionInfo."""
    return vim_info(local_k8s)


@pytest.fixture
def kube(vim: Obj) -> Iterator[k8s.KubeClient]:
    """A client for setting up and asserting."""
    with k8s.KubeClient(vim) as client:
        yield client


@pytest.fixture
def deploy(
    kube: k8s.KubeClient,
    vim: Obj,
    local_k8s: LocalCluster,  # noqa: F811
) -> Iterator[Callable[..., Cnf]]:
    """Deploy a CNF from package files into a fresh namespace."""
    made: list[str] = []

    def make(files: dict[str, bytes]) -> Cnf:
        ns = local_k8s.create_namespace(f'cu-{uuid.uuid4().hex[:8]}')
        made.append(ns)
        return Cnf(kube, vim, ns, files)

    yield make
    for ns in made:
        kube.delete('v1', 'Namespace', ns, None, 'Background')
