"""Manifest builders for the container-update tests."""

from __future__ import annotations

import copy
from typing import Any

Obj = dict[str, Any]


def configmap(name: str, **data: str) -> Obj:
    """A ConfigMap."""
    return {
        'apiVersion': 'v1',
        'kind': 'ConfigMap',
        'metadata': {'name': name},
        'data': dict(data),
    }


def secret(name: str, **data: str) -> Obj:
    """An Opaque Secret (stringData)."""
    return {
        'apiVersion': 'v1',
        'kind': 'Secret',
        'type': 'Opaque',
        'metadata': {'name': name},
        'stringData': dict(data),
    }


def spec(image: str = 'nginx', **container: Any) -> Obj:
    """A Pod spec with one container ``c``; ``volumes`` and
    ``initContainers`` may be given."""
    volumes = container.pop('volumes', None)
    init = container.pop('initContainers', None)
    out: Obj = {
        'terminationGracePeriodSeconds': 0,
        'containers': [{'name': 'c', 'image': image, **container}],
    }
    if volumes:
        out['volumes'] = volumes
    if init:
        out['initContainers'] = init
    return out


def pod(name: str, pod_spec: Obj) -> Obj:
    """A bare Pod."""
    return {
        'apiVersion': 'v1',
        'kind': 'Pod',
        'metadata': {'name': name, 'labels': {'app': name}},
        'spec': copy.deepcopy(pod_spec),
    }


def controller(
    kind: str, name: str, pod_spec: Obj, replicas: int = 1, **extra: Any
) -> Obj:
    """A Deployment, ReplicaSet, DaemonSet or StatefulSet."""
    body: Obj = {
        'selector': {'matchLabels': {'app': name}},
        'template': {
            'metadata': {'labels': {'app': name}},
            'spec': copy.deepcopy(pod_spec),
        },
    }
    if kind != 'DaemonSet':
        body['replicas'] = replicas
    if kind == 'StatefulSet':
        body['serviceName'] = name
    body.update(extra)
    return {
        'apiVersion': 'apps/v1',
        'kind': kind,
        'metadata': {'name': name},
        'spec': body,
    }


def env_from(kind: str, name: str) -> Obj:
    """An envFrom entry."""
    key = 'configMapRef' if kind == 'ConfigMap' else 'secretRef'
    return {key: {'name': name}}


def set_image(obj: Obj, image: str) -> Obj:
    """A copy of a workload with container ``c``'s image changed."""
    out = copy.deepcopy(obj)
    target = (
        out['spec']
        if out['kind'] == 'Pod'
        else out['spec']['template']['spec']
    )
    target['containers'][0]['image'] = image
    return out


def immutable(obj: Obj, flag: bool = True) -> Obj:
    """A copy of a ConfigMap or Secret with ``immutable: flag``."""
    return {**copy.deepcopy(obj), 'immutable': flag}
