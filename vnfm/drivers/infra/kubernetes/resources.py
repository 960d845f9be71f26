"""The Kubernetes objects of a VNF: read, placed, mapped to VDUs.

``additionalParams.lcm-kubernetes-def-files`` lists manifest files in the
package (multi-document YAML; ``kind: List`` is unpacked). Namespace: the
request's ``additionalParams.namespace``, else the one the manifests name
(they must agree), else ``default``. A VDU's workload is the Pod, Deployment,
ReplicaSet, DaemonSet or StatefulSet whose ``metadata.name`` is the VDU's
``properties.name``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.common import exceptions
from vnfm.csar import bounded
from vnfm.drivers.package_files import PackageFiles

DEF_FILES = 'lcm-kubernetes-def-files'
VDU_KINDS = ('Pod', 'Deployment', 'ReplicaSet', 'DaemonSet', 'StatefulSet')
SCALABLE_KINDS = ('Deployment', 'ReplicaSet', 'StatefulSet')


class BadManifests(exceptions.OperationFailed):
    """The manifests named by the request cannot be used."""

    title = 'Bad Kubernetes Manifests'


@dataclasses.dataclass
class Deployed:
    """The objects of a VNF instance in apply order, and the VDU workloads."""

    namespace: str
    def_files: list[str]
    objects: list[dict[str, Any]]
    vdus: dict[str, dict[str, Any]]  # VDU id -> its workload object

    def refs(self) -> list[dict[str, str]]:
        """apiVersion/kind/name/namespace of each object (for metadata)."""
        return [ref_of(o) for o in self.objects]


def ref_of(obj: dict[str, Any]) -> dict[str, str]:
    """The identity of an object as a small dict."""
    out = {
        'apiVersion': obj['apiVersion'],
        'kind': obj['kind'],
        'name': obj['metadata']['name'],
    }
    if obj['metadata'].get('namespace'):
        out['namespace'] = obj['metadata']['namespace']
    return out


def as_object(ref: dict[str, str]) -> dict[str, Any]:
    """A minimal object for a ref (enough to delete or find it)."""
    meta = {'name': ref['name']}
    if ref.get('namespace'):
        meta['namespace'] = ref['namespace']
    return {
        'apiVersion': ref['apiVersion'],
        'kind': ref['kind'],
        'metadata': meta,
    }


def def_files(request: dict[str, Any]) -> list[str]:
    """The manifest paths of a request; BadManifests if missing."""
    files = (request.get('additionalParams') or {}).get(DEF_FILES)
    if not files or not isinstance(files, list):
        raise BadManifests(
            f'additionalParams.{DEF_FILES} must list the Kubernetes '
            'manifest files of the package.'
        )
    return [str(f) for f in files]


def read_manifests(
    package: PackageFiles, files: list[str]
) -> list[dict[str, Any]]:
    """Every object of the manifest files, in file order."""
    out: list[dict[str, Any]] = []
    for path in files:
        if path not in package:
            raise BadManifests(
                f'{DEF_FILES}: {path} is not in package {package.package_id}.'
            )
        try:
            docs = bounded.load_yaml_all(path, package.read(path))
        except bounded.BadDocument as e:
            raise BadManifests(f'{DEF_FILES}: {e.detail}.') from None
        for doc in docs:
            items = (
                doc.get('items', [])
                if isinstance(doc, dict) and doc.get('kind') == 'List'
                else [doc]
            )
            for obj in items:
                if obj is None:
                    continue
                if (
                    not isinstance(obj, dict)
                    or not obj.get('kind')
                    or not obj.get('apiVersion')
                    or not (obj.get('metadata') or {}).get('name')
                ):
                    raise BadManifests(
                        f'{path}: every object needs apiVersion, kind and '
                        'metadata.name.'
                    )
                out.append(obj)
    return out


def place(
    kube: k8s.KubeClient, objs: list[dict[str, Any]], namespace: str | None
) -> tuple[str, list[dict[str, Any]]]:
    """Set the namespace of namespaced objects; (namespace, objects)."""
    named = {o['metadata'].get('namespace') for o in objs} - {None, ''}
    if namespace and named - {namespace}:
        raise BadManifests(
            f'additionalParams.namespace is {namespace} but manifests name '
            f'namespace {", ".join(sorted(named - {namespace}))}.'
        )
    if not namespace and len(named) > 1:
        raise BadManifests(
            f'Manifests name several namespaces ({", ".join(sorted(named))}); '
            'a VNF instance lives in one.'
        )
    ns = namespace or (named.pop() if named else 'default')
    out = []
    for obj in objs:
        obj = {**obj, 'metadata': dict(obj['metadata'])}
        if kube.resource(obj['apiVersion'], obj['kind']).namespaced:
            obj['metadata']['namespace'] = ns
        else:
            obj['metadata'].pop('namespace', None)
        out.append(obj)
    return ns, out


def map_vdus(
    flavour: dict[str, Any], objs: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """VDU id -> workload object; BadManifests if a VDU has none."""
    by_name = {
        o['metadata']['name']: o for o in objs if o['kind'] in VDU_KINDS
    }
    out = {}
    for vdu_id, vdu in sorted((flavour.get('vdus') or {}).items()):
        obj = by_name.get(vdu['vdu_name'])
        if obj is None:
            raise BadManifests(
                f'VDU {vdu_id} (properties.name {vdu["vdu_name"]!r}) has '
                'no Pod, Deployment, ReplicaSet, DaemonSet or StatefulSet '
                'of that name in the manifests.'
            )
        out[vdu_id] = obj
    return out


def prepare(
    kube: k8s.KubeClient,
    package: PackageFiles,
    files: list[str],
    namespace: str | None,
    flavour: dict[str, Any],
    instance_id: str,
    counts: dict[str, int],
) -> Deployed:
    """Labelled objects in apply order, with VDU replica counts set."""
    ns, objs = place(kube, read_manifests(package, files), namespace)
    vdu_of = {id(o): v for v, o in map_vdus(flavour, objs).items()}
    labels = {k8s.INSTANCE_LABEL: instance_id}
    ready: list[dict[str, Any]] = []
    vdus = {}
    for obj in objs:
        vdu_id = vdu_of.get(id(obj))
        obj = k8s.labelled(
            obj, {**labels, k8s.VDU_LABEL: vdu_id} if vdu_id else labels
        )
        if vdu_id:
            _set_replicas(obj, vdu_id, counts.get(vdu_id))
            vdus[vdu_id] = obj
        ready.append(obj)
    return Deployed(ns, files, k8s.apply_order(ready), vdus)


def _set_replicas(obj: dict[str, Any], vdu_id: str, count: int | None) -> None:
    if count is None:
        return
    if obj['kind'] in SCALABLE_KINDS:
        obj.setdefault('spec', {})['replicas'] = count
    elif obj['kind'] == 'Pod' and count != 1:
        raise BadManifests(
            f'VDU {vdu_id} is a bare Pod ({obj["metadata"]["name"]}); it has '
            f'exactly one instance, the VNFD asks for {count}.'
        )
