"""The Node objects the simulated kubelet registers: spec, labels, status."""

from __future__ import annotations

from typing import Any

from vnfm_testbed.k8s import podstatus

NODE_CAPACITY = {
    'cpu': '8',
    'memory': '16Gi',
    'pods': '110',
    'ephemeral-storage': '100Gi',
}


def node_body(name: str, index: int) -> dict[str, Any]:
    """The Node a kubelet registers (its status is patched separately)."""
    return {
        'apiVersion': 'v1',
        'kind': 'Node',
        'metadata': {
            'name': name,
            'labels': {
                'kubernetes.io/hostname': name,
                'kubernetes.io/os': 'linux',
                'kubernetes.io/arch': 'amd64',
                'beta.kubernetes.io/os': 'linux',
                'beta.kubernetes.io/arch': 'amd64',
                'vnfm.io/simulated': 'true',
            },
        },
        'spec': {
            'podCIDR': f'10.244.{index}.0/24',
            'podCIDRs': [f'10.244.{index}.0/24'],
        },
    }


def node_status(name: str, host_ip: str, now: str) -> dict[str, Any]:
    """A Ready node status with capacity, addresses and node info."""

    def cond(ctype: str, status: str, reason: str) -> dict[str, str]:
        return {
            'type': ctype,
            'status': status,
            'reason': reason,
            'message': reason,
            'lastHeartbeatTime': now,
            'lastTransitionTime': now,
        }

    return {
        'capacity': NODE_CAPACITY,
        'allocatable': NODE_CAPACITY,
        'conditions': [
            cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory'),
            cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
            cond('PIDPressure', 'False', 'KubeletHasSufficientPID'),
            cond('Ready', 'True', 'KubeletReady'),
        ],
        'addresses': [
            {'type': 'InternalIP', 'address': host_ip},
            {'type': 'Hostname', 'address': name},
        ],
        'daemonEndpoints': {'kubeletEndpoint': {'Port': 10250}},
        'nodeInfo': {
            'machineID': podstatus.image_id(name)[-32:],
            'systemUUID': podstatus.image_id(name)[-36:],
            'bootID': podstatus.image_id(name + 'boot')[-36:],
            'kernelVersion': '6.1.0-simulated',
            'osImage': 'vnfm simulated node',
            'containerRuntimeVersion': 'containerd://simulated',
            'kubeletVersion': 'v1.20.2',
            'kubeProxyVersion': 'v1.20.2',
            'operatingSystem': 'linux',
            'architecture': 'amd64',
        },
    }
