"""The Kubernetes client of vnfm: the only code that imports ``kubernetes``.

``KubeClient(vim_connection_info)`` reaches a cluster with verified TLS and
per-request timeouts (see ``connection``); ``manifests`` applies labelled
objects idempotently in dependency order; ``workloads`` waits, by watch, for
rollouts and Pods and finds Pods by owner references; ``status`` holds the
pure readiness rules.
"""

from vnfm.clients.kubernetes.client import KubeClient
from vnfm.clients.kubernetes.client import ref
from vnfm.clients.kubernetes.connection import VIM_TYPE
from vnfm.clients.kubernetes.errors import BadVimConnection
from vnfm.clients.kubernetes.errors import EvictionBlocked
from vnfm.clients.kubernetes.errors import KubernetesConflict
from vnfm.clients.kubernetes.errors import KubernetesError
from vnfm.clients.kubernetes.errors import KubernetesForbidden
from vnfm.clients.kubernetes.errors import KubernetesNotFound
from vnfm.clients.kubernetes.errors import KubernetesUnreachable
from vnfm.clients.kubernetes.errors import WorkloadFailed
from vnfm.clients.kubernetes.manifests import INSTANCE_LABEL
from vnfm.clients.kubernetes.manifests import VDU_LABEL
from vnfm.clients.kubernetes.manifests import WORKLOAD_KINDS
from vnfm.clients.kubernetes.manifests import apply
from vnfm.clients.kubernetes.manifests import apply_order
from vnfm.clients.kubernetes.manifests import delete_order
from vnfm.clients.kubernetes.manifests import labelled
from vnfm.clients.kubernetes.manifests import owned_by
from vnfm.clients.kubernetes.workloads import ForcedRollback
from vnfm.clients.kubernetes.workloads import ReadyCheck
from vnfm.clients.kubernetes.workloads import delete_and_wait
from vnfm.clients.kubernetes.workloads import list_pods
from vnfm.clients.kubernetes.workloads import pods_of
from vnfm.clients.kubernetes.workloads import wait_gone
from vnfm.clients.kubernetes.workloads import wait_ready

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
