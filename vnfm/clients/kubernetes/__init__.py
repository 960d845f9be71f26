"""The Kubernetes client of vnfm: the only code that imports ``kubernetes``.

``KubeClient(vim_connection_info)`` reaches a cluster with verified TLS and
per-request timeouts (see ``connection``); ``manifests`` applies labelled
objects idempotently in dependency order; ``workloads`` waits, by watch, for
rollouts and Pods and finds Pods by owner references; ``status`` holds the
pure readiness rules.
"""

from vnfm.clients.kubernetes.client import KubeClient, ref
from vnfm.clients.kubernetes.connection import VIM_TYPE
from vnfm.clients.kubernetes.errors import (
    BadVimConnection,
    EvictionBlocked,
    KubernetesConflict,
    KubernetesError,
    KubernetesForbidden,
    KubernetesNotFound,
    KubernetesUnreachable,
    WorkloadFailed,
)
from vnfm.clients.kubernetes.manifests import (
    INSTANCE_LABEL,
    VDU_LABEL,
    WORKLOAD_KINDS,
    apply,
    apply_order,
    delete_order,
    labelled,
    owned_by,
)
from vnfm.clients.kubernetes.workloads import (
    ForcedRollback,
    ReadyCheck,
    delete_and_wait,
    list_pods,
    pods_of,
    wait_gone,
    wait_ready,
)

__all__ = [
    'INSTANCE_LABEL',
    'VDU_LABEL',
    'VIM_TYPE',
    'WORKLOAD_KINDS',
    'BadVimConnection',
    'EvictionBlocked',
    'ForcedRollback',
    'KubeClient',
    'KubernetesConflict',
    'KubernetesError',
    'KubernetesForbidden',
    'KubernetesNotFound',
    'KubernetesUnreachable',
    'ReadyCheck',
    'WorkloadFailed',
    'apply',
    'apply_order',
    'delete_and_wait',
    'delete_order',
    'labelled',
    'list_pods',
    'owned_by',
    'pods_of',
    'ref',
    'wait_gone',
    'wait_ready',
]
