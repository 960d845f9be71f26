"""What a Pod spec uses: its ConfigMaps and Secrets, and its images.

Pure functions over API JSON. A reference is ``(kind, name)`` (the
namespace is the workload's own: a Pod can only use objects of its
namespace). Reference sources read:

* every container list (``initContainers`` with sidecars, ``containers``,
  ``ephemeralContainers``): ``env[].valueFrom.configMapKeyRef`` /
  ``secretKeyRef``, ``envFrom[].configMapRef`` / ``secretRef``;
* volumes: ``configMap``, ``secret``, ``projected.sources[].configMap`` /
  ``secret``, ``csi.nodePublishSecretRef`` and the ``secretRef`` of the
  other volume plugins (cephfs, rbd, iscsi, flexVolume, ...).

``imagePullSecrets`` are not references: a changed pull secret is used at
the next pull, it needs no restart. A plain ``env: {name, value}`` is a
value, not a reference.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Obj = dict[str, Any]
Ref = tuple[str, str]  # (kind, name)

CONTAINER_LISTS = ('initContainers', 'containers')
EPHEMERAL = 'ephemeralContainers'
CONFIG_KINDS = ('ConfigMap', 'Secret')
# Kinds whose Pods this driver can restart, and where their Pod spec is.
WORKLOAD_KINDS = (
    'Pod',
    'Deployment',
    'ReplicaSet',
    'DaemonSet',
    'StatefulSet',
)


def pod_template(obj: Obj) -> Obj | None:
    """The Pod template of a workload (the Pod itself for a Pod)."""
    if obj.get('kind') == 'Pod':
        return obj
    template = (obj.get('spec') or {}).get('template')
    return template if isinstance(template, dict) else None


def pod_spec(obj: Obj) -> Obj:
    """The Pod spec of a workload or Pod ({} if it has none)."""
    template = pod_template(obj) or {}
    spec = template.get('spec')
    return spec if isinstance(spec, dict) else {}


def _items(value: Any) -> list[Obj]:
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, dict)]


def _container_refs(container: Obj) -> Iterator[Ref]:
    for env in _items(container.get('env')):
        source = env.get('valueFrom')
        if not isinstance(source, dict):
            continue  # a plain value
        for key, kind in (
            ('configMapKeyRef', 'ConfigMap'),
            ('secretKeyRef', 'Secret'),
        ):
            name = (source.get(key) or {}).get('name')
            if name:
                yield kind, name
    for env_from in _items(container.get('envFrom')):
        for key, kind in (
            ('configMapRef', 'ConfigMap'),
            ('secretRef', 'Secret'),
        ):
            name = (env_from.get(key) or {}).get('name')
            if name:
                yield kind, name


def _volume_refs(volume: Obj) -> Iterator[Ref]:
    if (volume.get('configMap') or {}).get('name'):
        yield 'ConfigMap', volume['configMap']['name']
    if (volume.get('secret') or {}).get('secretName'):
        yield 'Secret', volume['secret']['secretName']
    for source in _items((volume.get('projected') or {}).get('sources')):
        if (source.get('configMap') or {}).get('name'):
            yield 'ConfigMap', source['configMap']['name']
        if (source.get('secret') or {}).get('name'):
            yield 'Secret', source['secret']['name']
    for plugin, value in volume.items():
        if not isinstance(value, dict):
            continue
        # csi.nodePublishSecretRef; cephfs/rbd/iscsi/flexVolume/... secretRef
        for key in ('nodePublishSecretRef', 'secretRef'):
            name = (value.get(key) or {}).get('name')
            if name:
                yield 'Secret', name
        if plugin == 'azureFile' and value.get('secretName'):
            yield 'Secret', value['secretName']


def config_refs(spec: Obj) -> set[Ref]:
    """ConfigMaps and Secrets a Pod spec uses, ephemeral containers aside."""
    refs: set[Ref] = set()
    for list_name in CONTAINER_LISTS:
        for container in _items(spec.get(list_name)):
            refs.update(_container_refs(container))
    for volume in _items(spec.get('volumes')):
        refs.update(_volume_refs(volume))
    return refs


def ephemeral_refs(spec: Obj) -> set[Ref]:
    """ConfigMaps and Secrets only ephemeral containers use (reported:
    ephemeral containers cannot be restarted)."""
    refs: set[Ref] = set()
    for container in _items(spec.get(EPHEMERAL)):
        refs.update(_container_refs(container))
    return refs - config_refs(spec)


def images(spec: Obj) -> dict[str, str]:
    """``<list>/<container name>`` -> image, for containers and
    initContainers."""
    return {
        f'{list_name}/{c.get("name")}': str(c.get('image') or '')
        for list_name in CONTAINER_LISTS
        for c in _items(spec.get(list_name))
    }
