"""Manifests: apply order, instance labels, create-or-patch.

Apply is create, and on 409 AlreadyExists a strategic-merge patch of the
whole manifest (merge patch for custom resources). Server-side apply is not
used: on 1.20 it is beta and behaves differently per kind. A patch keeps
fields the server or other controllers set (a Service's clusterIP, a PVC's
volumeName), which a PUT would reject. An existing object that does not
carry this instance's label is never adopted: it belongs to someone else.
"""

from __future__ import annotations

import copy
from typing import Any

from vnfm.clients.kubernetes import errors
from vnfm.clients.kubernetes.client import KubeClient
from vnfm.clients.kubernetes.client import ref

INSTANCE_LABEL = 'vnfm.io/vnf-instance-id'
VDU_LABEL = 'vnfm.io/vdu-id'

# Dependencies first: what others refer to is created before them.
KIND_ORDER = (
    'Namespace',
    'PriorityClass',
    'StorageClass',
    'CustomResourceDefinition',
    'ServiceAccount',
    'ClusterRole',
    'Role',
    'ClusterRoleBinding',
    'RoleBinding',
    'LimitRange',
    'ResourceQuota',
    'NetworkPolicy',
    'PodDisruptionBudget',
    'ConfigMap',
    'Secret',
    'PersistentVolume',
    'PersistentVolumeClaim',
    'Service',
    'Endpoints',
    'Ingress',
    'Pod',
    'ReplicaSet',
    'Deployment',
    'DaemonSet',
    'StatefulSet',
    'Job',
    'CronJob',
    'HorizontalPodAutoscaler',
)
WORKLOAD_KINDS = frozenset(
    (
        'Pod',
        'ReplicaSet',
        'Deployment',
        'DaemonSet',
        'StatefulSet',
        'Job',
        'CronJob',
    )
)


def _rank(obj: dict[str, Any]) -> int:
    kind = obj.get('kind', '')
    return (
        KIND_ORDER.index(kind)
        if kind in KIND_ORDER
        else KIND_ORDER.index('Pod') - 1
    )


def apply_order(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Objects in dependency order (stable within a kind)."""
    return sorted(objs, key=_rank)


def delete_order(objs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Objects in reverse dependency order."""
    return sorted(objs, key=_rank, reverse=True)


def labelled(obj: dict[str, Any], labels: dict[str, str]) -> dict[str, Any]:
    """A copy with ``labels`` on the object and on its Pod template, if any."""
    out = copy.deepcopy(obj)
    meta = out.setdefault('metadata', {})
    meta['labels'] = {**(meta.get('labels') or {}), **labels}
    template = _pod_template(out)
    if template is not None:
        tmeta = template.setdefault('metadata', {})
        tmeta['labels'] = {**(tmeta.get('labels') or {}), **labels}
    return out


def _pod_template(obj: dict[str, Any]) -> dict[str, Any] | None:
    spec = obj.get('spec')
    if not isinstance(spec, dict):
        return None
    if obj.get('kind') == 'CronJob':
        spec = ((spec.get('jobTemplate') or {}).get('spec')) or {}
    template = spec.get('template')
    return template if isinstance(template, dict) else None


def owned_by(obj: dict[str, Any] | None, instance_id: str) -> bool:
    """Tell whether a live object carries this instance's label."""
    labels = ((obj or {}).get('metadata') or {}).get('labels') or {}
    return labels.get(INSTANCE_LABEL) == instance_id


def apply(
    kube: KubeClient, obj: dict[str, Any], instance_id: str
) -> tuple[dict[str, Any], bool]:
    """Create or patch one labelled object; (live object, created?)."""
    meta = obj['metadata']
    try:
        return kube.create(obj), True
    except errors.KubernetesConflict:
        pass
    live = kube.get(
        obj['apiVersion'], obj['kind'], meta['name'], meta.get('namespace')
    )
    if live is None:  # deleted meanwhile (e.g. still terminating before)
        return kube.create(obj), True
    if not owned_by(live, instance_id):
        raise errors.KubernetesConflict(
            f'{ref(obj)} already exists and is not managed by VNF instance '
            f'{instance_id} (no label {INSTANCE_LABEL}={instance_id}); delete '
            'or rename it.'
        )
    if (live.get('metadata') or {}).get('deletionTimestamp'):
        raise errors.KubernetesConflict(
            f'{ref(obj)} is being deleted; retry later.'
        )
    patched = kube.patch(
        obj['apiVersion'],
        obj['kind'],
        meta['name'],
        meta.get('namespace'),
        obj,
    )
    return patched, False
