"""The PersistentVolumes of ``pv_registration_params``: read from the
package, given the NFS server's real address, and registered, read and
deleted with kubectl on a master (as root, with the cluster's admin
kubeconfig), as the seed does.

Every PV is labelled with the VNF instance it belongs to. ``kubectl
apply`` reports each object ``created``, ``configured`` or ``unchanged``;
the first two are changes.
"""

from __future__ import annotations

import dataclasses
import json
import shlex
from collections.abc import Sequence
from typing import Any

import yaml

from vnfm.clients import ssh
from vnfm.common import exceptions
from vnfm.csar import bounded
from vnfm.drivers.mgmt.kubernetes_cluster import nfs
from vnfm.drivers.package_files import PackageFiles
from vnfm.objects import k8s_cluster
from vnfm.objects import k8s_storage

INSTANCE_LABEL = 'vnfm.io/vnf-instance-id'
ADMIN_KUBECONFIG = '/etc/kubernetes/admin.conf'
_PARAM = f'additionalParams/{k8s_cluster.PARAM}/pv_registration_params'


@dataclasses.dataclass(frozen=True)
class Manifest:
    """The PersistentVolumes of one manifest file."""

    registration: k8s_storage.PvRegistration
    documents: tuple[dict[str, Any], ...]

    def names(self) -> list[str]:
        """The PVs' names."""
        return [d['metadata']['name'] for d in self.documents]


def _fail(i: int, detail: str) -> exceptions.OperationFailed:
    return exceptions.OperationFailed(
        f'{_PARAM}/{i}/pv_manifest_file_path: {detail}'
    )


def _check_pv(i: int, path: str, doc: Any, exported: set[str]) -> None:
    if not isinstance(doc, dict) or doc.get('kind') != 'PersistentVolume':
        raise _fail(
            i,
            f'{path} holds something other than a '
            'PersistentVolume (kind: PersistentVolume).',
        )
    name = (doc.get('metadata') or {}).get('name')
    if not isinstance(name, str) or not name:
        raise _fail(i, f'{path}: a PersistentVolume without metadata.name.')
    spec_nfs = (doc.get('spec') or {}).get('nfs')
    if not isinstance(spec_nfs, dict) or not spec_nfs.get('path'):
        raise _fail(
            i, f'{path}: PersistentVolume {name} has no spec.nfs.path.'
        )
    if exported and str(spec_nfs['path']).rstrip('/') not in exported:
        raise _fail(
            i,
            f'{path}: PersistentVolume {name} names NFS path '
            f'{spec_nfs["path"]}, which storage_server does not export '
            f'(nfs_server_setup_params: {", ".join(sorted(exported))}).',
        )


def read(
    package: PackageFiles, params: k8s_cluster.ClusterParams
) -> list[Manifest]:
    """The manifests of ``pv_registration_params``, checked: files of the
    package holding PersistentVolumes on an exported NFS path, each name
    once; OperationFailed naming the parameter otherwise."""
    exported = {
        e.export_dir
        for e in (params.storage.exports if params.storage else ())
    }
    out: list[Manifest] = []
    seen: dict[str, int] = {}
    for i, reg in enumerate(params.pvs):
        path = reg.pv_manifest_file_path
        if path not in package:
            raise _fail(i, f'the VNF package has no file {path}.')
        try:
            docs = bounded.load_yaml_all(path, package.read(path))
        except bounded.BadDocument as e:
            raise _fail(i, f'{e.detail}.') from None
        if not docs:
            raise _fail(i, f'{path} holds no PersistentVolume.')
        for doc in docs:
            _check_pv(i, path, doc, exported)
            name = doc['metadata']['name']
            if name in seen:
                raise _fail(
                    i,
                    f'PersistentVolume {name} is also in '
                    f'pv_registration_params/{seen[name]}.',
                )
            seen[name] = i
        out.append(Manifest(reg, tuple(docs)))
    return out


def render(
    manifest: Manifest, server_address: str, vnf_instance_id: str
) -> str:
    """The manifest with ``spec.nfs.server`` replaced by the NFS server's
    address and the instance label added."""
    docs = []
    for doc in manifest.documents:
        doc = json.loads(json.dumps(doc))
        doc['spec']['nfs']['server'] = server_address
        labels = doc['metadata'].setdefault('labels', {}) or {}
        labels[INSTANCE_LABEL] = vnf_instance_id
        doc['metadata']['labels'] = labels
        docs.append(doc)
    return yaml.safe_dump_all(docs, sort_keys=False)


class Kubectl:
    """kubectl as root on one master."""

    def __init__(
        self,
        session: ssh.Session,
        timeout: float,
        kubectl: str = 'kubectl',
        kubeconfig: str = ADMIN_KUBECONFIG,
    ) -> None:
        self.session = session
        self.timeout = timeout
        self.base = (
            f'{shlex.quote(kubectl)} --kubeconfig {shlex.quote(kubeconfig)}'
        )

    def apply(self, files: dict[str, str], changes: nfs.Changes) -> None:
        """Apply the manifests ``files`` (name -> text)."""
        tmp = self.session.run('mktemp -d', 'pv-upload').stdout.strip()
        try:
            for name, text in files.items():
                self.session.put(text.encode(), f'{tmp}/{name}', 'pv-upload')
            out = self.session.run(
                f'{self.base} apply -f {shlex.quote(tmp)}',
                'pv-register',
                timeout=self.timeout,
                as_root=True,
            ).stdout
        finally:
            self.session.run(
                f'rm -rf {shlex.quote(tmp)}', 'pv-upload', check=False
            )
        for line in out.splitlines():
            if line.rstrip().endswith((' created', ' configured')):
                changes.made.append(
                    nfs.Change(self.session.target.host, 'pv-register', line)
                )

    def get(self, names: Sequence[str]) -> list[dict[str, Any]]:
        """The PersistentVolumes named ``names`` that exist."""
        out = self.session.run(
            f'{self.base} get persistentvolumes -o json',
            'pv-read',
            timeout=self.timeout,
            as_root=True,
        ).stdout
        try:
            doc = bounded.load_json('kubectl', out, bounded.PEER)
            items = doc.get('items') or []
        except (bounded.BadDocument, AttributeError):
            raise exceptions.OperationFailed(
                f'{self.session.target.host}: kubectl get persistentvolumes '
                'did not print JSON.'
            ) from None
        wanted = set(names)
        return [i for i in items if i['metadata']['name'] in wanted]

    def delete(self, names: Sequence[str]) -> None:
        """Delete the PersistentVolumes ``names`` (gone ones ignored)."""
        if not names:
            return
        quoted = ' '.join(shlex.quote(n) for n in names)
        self.session.run(
            f'{self.base} delete persistentvolume {quoted} '
            f'--ignore-not-found --wait=true --timeout={int(self.timeout)}s',
            'pv-delete',
            timeout=self.timeout + 10,
            as_root=True,
        )


def bound(pvs: Sequence[dict[str, Any]]) -> list[str]:
    """``PV (claim namespace/name)`` of each Bound PV."""
    out = []
    for pv in pvs:
        if (pv.get('status') or {}).get('phase') != 'Bound':
            continue
        claim = (pv.get('spec') or {}).get('claimRef') or {}
        out.append(
            f'{pv["metadata"]["name"]} (claim '
            f'{claim.get("namespace", "?")}/{claim.get("name", "?")})'
        )
    return out
