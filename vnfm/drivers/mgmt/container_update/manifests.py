"""The Kubernetes objects of the current and of the new package.

Both are read from the manifest files the instance was instantiated with
(``instantiatedVnfInfo.metadata['lcm-kubernetes-def-files']``): from the
current package, and from the new one at the same paths. The request's
``metadata.configmap_secret_paths`` (seed 003) names more files of the new
package holding ConfigMaps and Secrets; an object found there replaces the
one of the same kind, namespace and name. Every namespaced object is placed
in the instance's namespace, as the Kubernetes infra driver placed it.
"""

from __future__ import annotations

from typing import Any

from vnfm.common import exceptions
from vnfm.csar import bounded
from vnfm.drivers.mgmt.container_update import references
from vnfm.drivers.package_files import PackageFiles

Obj = dict[str, Any]
Key = tuple[str, str, str]  # kind, namespace, name
DEF_FILES = 'lcm-kubernetes-def-files'
PATHS_PARAM = 'configmap_secret_paths'
CLUSTER_SCOPED = frozenset(
    (
        'Namespace',
        'PriorityClass',
        'StorageClass',
        'CustomResourceDefinition',
        'ClusterRole',
        'ClusterRoleBinding',
        'PersistentVolume',
        'IngressClass',
        'RuntimeClass',
        'CSIDriver',
        'VolumeAttachment',
        'MutatingWebhookConfiguration',
        'ValidatingWebhookConfiguration',
    )
)


class BadUpdate(exceptions.OperationFailed):
    """The new package changes something a container update cannot."""

    title = 'Container Update Refused'


def key(obj: Obj) -> Key:
    """(kind, namespace, name) of an object."""
    meta = obj.get('metadata') or {}
    return (
        obj.get('kind', ''),
        meta.get('namespace') or '',
        meta.get('name') or '',
    )


def describe(k: Key) -> str:
    """``Kind namespace/name`` of a key, for messages."""
    return f'{k[0]} {k[1]}/{k[2]}' if k[1] else f'{k[0]} {k[2]}'


def read(package: PackageFiles, path: str) -> list[Obj]:
    """The objects of one manifest file (``kind: List`` unpacked)."""
    if path not in package:
        raise BadUpdate(f'{path} is not in VNF package {package.package_id}.')
    try:
        docs = bounded.load_yaml_all(
            f'{path} of VNF package {package.package_id}', package.read(path)
        )
    except bounded.BadDocument as e:
        raise BadUpdate(f'{e.detail}.') from None
    out = []
    for doc in docs:
        items = (
            doc.get('items') or []
            if isinstance(doc, dict) and doc.get('kind') == 'List'
            else [doc]
        )
        for obj in items:
            if obj is None:
                continue
            if (
                not isinstance(obj, dict)
                or not obj.get('kind')
                or not (obj.get('metadata') or {}).get('name')
            ):
                raise BadUpdate(
                    f'{path}: every object needs kind and metadata.name.'
                )
            out.append(obj)
    return out


def placed(objs: list[Obj], namespace: str, where: str) -> dict[Key, Obj]:
    """Objects by key, namespaced ones in ``namespace``."""
    out: dict[Key, Obj] = {}
    for obj in objs:
        meta = dict(obj['metadata'])
        named = meta.get('namespace')
        if obj['kind'] in CLUSTER_SCOPED:
            meta.pop('namespace', None)
        else:
            if named and named != namespace:
                raise BadUpdate(
                    f'{where}: {obj["kind"]} {meta["name"]} names namespace '
                    f'{named}, but the VNF instance lives in {namespace}.'
                )
            meta['namespace'] = namespace
        obj = {**obj, 'metadata': meta}
        k = key(obj)
        if k in out:
            raise BadUpdate(f'{where}: {describe(k)} is defined twice.')
        out[k] = obj
    return out


def def_files(instantiated_vnf_info: Obj) -> tuple[str, list[str]]:
    """(namespace, manifest paths) the instance was instantiated with."""
    meta = instantiated_vnf_info.get('metadata') or {}
    files = meta.get(DEF_FILES)
    if not files or not isinstance(files, list):
        raise BadUpdate(
            'The VNF instance has no Kubernetes manifests recorded '
            f'(instantiatedVnfInfo.metadata.{DEF_FILES}); is it a CNF '
            'instantiated by the Kubernetes infra driver?'
        )
    return str(meta.get('namespace') or 'default'), [str(f) for f in files]


def config_paths(request: Obj) -> list[str]:
    """``metadata.configmap_secret_paths`` of a modify request."""
    paths = (request.get('metadata') or {}).get(PATHS_PARAM) or []
    if not isinstance(paths, list) or not all(
        isinstance(p, str) for p in paths
    ):
        raise BadUpdate(
            f'metadata.{PATHS_PARAM} must be a list of file '
            'paths in the new VNF package.'
        )
    return paths


def objects(
    package: PackageFiles,
    files: list[str],
    extra: list[str],
    namespace: str,
    strict: bool = False,
) -> dict[Key, Obj]:
    """The objects of a package: the instance's manifest paths (those it
    has, unless ``strict``), overridden by the ConfigMaps/Secrets of the
    ``extra`` files."""
    where = f'VNF package {package.package_id}'
    objs = [
        o for f in files if strict or f in package for o in read(package, f)
    ]
    out = placed(objs, namespace, where)
    overrides = placed(
        [o for f in extra for o in read(package, f)],
        namespace,
        f'{where} ({PATHS_PARAM})',
    )
    for k, obj in overrides.items():
        if k[0] not in references.CONFIG_KINDS:
            raise BadUpdate(
                f'{where}: metadata.{PATHS_PARAM} may only name '
                f'ConfigMaps and Secrets, not {describe(k)}.'
            )
        out[k] = obj
    return out
