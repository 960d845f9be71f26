"""Benchmark: CNF instantiate and terminate through the whole API path
(vnfm-api + one vnfm-conductor with the Kubernetes infra driver, RabbitMQ,
PostgreSQL) on the local Kubernetes 1.20 control plane, started here with a
known simulated-kubelet readiness delay.

* A CNF of 10 Deployments x 10 Pods (manifests generated): wall time from
  the POST to COMPLETED, the part of it beyond the kubelet's readiness
  delay, the Kubernetes API requests the driver made, and the time from the
  last Pod Ready (or the last object gone) to COMPLETED.
* A one-Deployment CNF, several rounds: time from the last Pod Ready to
  instantiate COMPLETED and from the last object gone to terminate
  COMPLETED (Tacker 16 measured 10.3 s / 10.2 s; target <= 1 s).

Kubernetes-side times come from watches (the moment an event arrives here);
COMPLETED is the op's stateEnteredTime (the conductor's commit). Prints one
JSON object.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import kubernetes  # noqa: E402  (the bench watches the cluster itself)
import urllib3  # noqa: E402
import yaml  # noqa: E402
from _harness import ROOT
from _harness import V2
from _harness import Client
from _harness import emit
from _harness import onboard
from _harness import run_op

from vnfm.csar.build import build_csar  # noqa: E402
from vnfm_testbed.k8s.cluster import LocalCluster  # noqa: E402
from vnfm_testbed.procs import VnfmServices  # noqa: E402

SAMPLE = ROOT / 'samples' / 'packages' / 'cnf_simple'
SAMPLE_ID = '7c2a4d1e-3b5f-4e8a-9c61-2f0d8e4b5a10'
LABEL = 'vnfm.io/vnf-instance-id'


# -- the generated CNF ------------------------------------------------------


def _deployment(name: str, replicas: int) -> dict:
    labels = {'app': name}
    return {
        'apiVersion': 'apps/v1',
        'kind': 'Deployment',
        'metadata': {'name': name},
        'spec': {
            'replicas': replicas,
            'selector': {'matchLabels': labels},
            'template': {
                'metadata': {'labels': labels},
                'spec': {
                    'containers': [{'name': 'web', 'image': 'nginx:1.25'}]
                },
            },
        },
    }


def make_package(workloads: int, replicas: int) -> tuple[bytes, str, list]:
    """A CNF of ``workloads`` Deployments of ``replicas`` Pods; (zip,
    vnfdId, lcm-kubernetes-def-files)."""
    vnfd_id = str(uuid.uuid4())
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / 'pkg'
        shutil.copytree(SAMPLE, src)
        for path in (src / 'Definitions').glob('*.yaml'):
            path.write_text(path.read_text().replace(SAMPLE_ID, vnfd_id))
        kube_dir = src / 'Files' / 'kubernetes'
        shutil.rmtree(kube_dir)
        kube_dir.mkdir()
        df_path = src / 'Definitions' / 'cnf_df_simple.yaml'
        df = yaml.safe_load(df_path.read_text())
        nodes = {'VNF': df['topology_template']['node_templates']['VNF']}
        policies, files = [], []
        for i in range(1, workloads + 1):
            vdu, name = f'VDU{i}', f'vdu{i}'
            nodes[vdu] = {
                'type': 'tosca.nodes.nfv.Vdu.OsContainerDeployableUnit',
                'properties': {
                    'name': name,
                    'description': f'workload {i}',
                    'vdu_profile': {
                        'min_number_of_instances': replicas,
                        'max_number_of_instances': replicas,
                    },
                },
            }
            policies.append(
                {
                    f'{vdu}_initial_delta': {
                        'type': 'tosca.policies.nfv.VduInitialDelta',
                        'properties': {
                            'initial_delta': {'number_of_instances': replicas}
                        },
                        'targets': [vdu],
                    }
                }
            )
            rel = f'Files/kubernetes/{name}.yaml'
            (src / rel).write_text(yaml.safe_dump(_deployment(name, replicas)))
            files.append(rel)
        df['topology_template']['node_templates'] = nodes
        df['topology_template']['policies'] = policies
        df_path.write_text(yaml.safe_dump(df, sort_keys=False))
        return build_csar(str(src)), vnfd_id, files


# -- watching the cluster ----------------------------------------------------


class Recorder:
    """Watches a namespace's Pods, ReplicaSets and Deployments; records
    when each Pod first became Ready and when each object was deleted."""

    def __init__(
        self, api_client: kubernetes.client.ApiClient, namespace: str
    ) -> None:
        self.core = kubernetes.client.CoreV1Api(api_client)
        self.apps = kubernetes.client.AppsV1Api(api_client)
        self.namespace = namespace
        self.ready: dict[str, float] = {}
        self.created: dict[str, float] = {}
        self.deleting: dict[str, float] = {}
        self.deleted: dict[str, float] = {}
        self._stop = threading.Event()
        self._threads = [
            threading.Thread(target=self._run, args=(fn, kind), daemon=True)
            for fn, kind in (
                (self.core.list_namespaced_pod, 'Pod'),
                (self.apps.list_namespaced_replica_set, 'ReplicaSet'),
                (self.apps.list_namespaced_deployment, 'Deployment'),
            )
        ]
        self._started = threading.Barrier(len(self._threads) + 1)

    def __enter__(self) -> Recorder:
        for t in self._threads:
            t.start()
        self._started.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:  # each watch ends within its 1 s timeout
            t.join(5)

    def _run(self, list_fn, kind: str) -> None:
        rv = list_fn(self.namespace).metadata.resource_version
        self._started.wait(30)
        while not self._stop.is_set():
            try:
                for event in kubernetes.watch.Watch().stream(
                    list_fn,
                    self.namespace,
                    resource_version=rv,
                    timeout_seconds=1,
                ):
                    self._record(kind, event['type'], event['object'])
                    rv = event['object'].metadata.resource_version
            except urllib3.exceptions.HTTPError:
                continue  # the watch connection dropped: resume from rv

    def _record(self, kind: str, event: str, obj) -> None:
        now = time.time()
        key = f'{kind}/{obj.metadata.name}'
        self.created.setdefault(key, now)
        if event == 'DELETED' or obj.metadata.deletion_timestamp:
            self.deleting.setdefault(key, now)
        if event == 'DELETED':
            self.deleted.setdefault(key, now)
        if kind == 'Pod' and any(
            c.type == 'Ready' and c.status == 'True'
            for c in (obj.status.conditions or [])
        ):
            self.ready.setdefault(key, now)


# -- the API path -----------------------------------------------------------


def k8s_requests(svc: VnfmServices, op_id: str) -> int | None:
    """Kubernetes API requests the driver made in the op (from its work)."""
    rows = svc.sql('SELECT work FROM vnf_lcm_op_occs WHERE id = %s', (op_id,))
    work = rows[0][0] if rows else None
    infra = ((work or {}).get('steps') or {}).get('infra') or {}
    return ((infra.get('result') or {}).get('work') or {}).get('requests')


def new_namespace(cluster: LocalCluster) -> str:
    """A namespace whose default ServiceAccount has its token."""
    return cluster.create_namespace(f'bench-{uuid.uuid4().hex[:8]}')


def vim_of(cluster: LocalCluster) -> dict:
    """Inline vimConnectionInfo of the local cluster."""
    return {
        'vim1': {
            'vimId': 'local',
            'vimType': 'ETSINFV.KUBERNETES.V_1',
            'interfaceInfo': {
                'endpoint': cluster.endpoint,
                'ssl_ca_cert': cluster.ca_cert_path.read_text(),
            },
            'accessInfo': {'bearer_token': cluster.admin_token},
        }
    }


def lifecycle(ctx: dict, vnfd_id: str, files: list[str]) -> dict:
    """Instantiate then terminate one CNF in a fresh namespace; figures."""
    client, cluster, svc = ctx['client'], ctx['cluster'], ctx['svc']
    ns = new_namespace(cluster)
    inst = client.json(
        'POST', '/vnflcm/v2/vnf_instances', {'vnfdId': vnfd_id}, V2, expect=201
    )['id']
    body = {
        'flavourId': 'simple',
        'vimConnectionInfo': vim_of(cluster),
        'additionalParams': {
            'lcm-kubernetes-def-files': files,
            'namespace': ns,
        },
    }
    with Recorder(ctx['kube'], ns) as rec:
        inst_op = run_op(client, inst, 'instantiate', body)
        ready, created = dict(rec.ready), dict(rec.created)
        term_op = run_op(client, inst, 'terminate', ctx['terminate'])
        gone, deleting = dict(rec.deleted), dict(rec.deleting)
    ctx['core'].delete_namespace(ns)
    return {
        'pods': len(ready),
        'instantiate': _instantiate_figures(svc, inst_op, ready, created),
        'terminate': _terminate_figures(svc, term_op, gone, deleting),
    }


def _of(kind: str, times: dict[str, float]) -> list[float]:
    return [t for k, t in times.items() if k.startswith(f'{kind}/')]


def _instantiate_figures(
    svc: VnfmServices, op: dict, ready: dict, created: dict
) -> dict:
    """vnfm's own time: from the POST until it created the last workload,
    and from the last Pod Ready until COMPLETED (the rest is Kubernetes:
    controllers, scheduler, the kubelet's readiness delay)."""
    applied = max(_of('Deployment', created)) - op['_posted']
    tail = op['_completed'] - max(ready.values())
    return {
        'wall_s': op['_completed'] - op['_posted'],
        'post_to_last_workload_created_s': applied,
        'last_pod_ready_to_completed_s': tail,
        'vnfm_own_s': applied + tail,
        'k8s_requests': k8s_requests(svc, op['id']),
    }


def _terminate_figures(
    svc: VnfmServices, op: dict, gone: dict, deleting: dict
) -> dict:
    """vnfm's own time: from the POST until the last workload was being
    deleted, and from the last object gone until COMPLETED (the rest is
    Kubernetes' garbage collector)."""
    asked = max(_of('Deployment', deleting)) - op['_posted']
    tail = op['_completed'] - max(gone.values())
    return {
        'wall_s': op['_completed'] - op['_posted'],
        'post_to_last_workload_deleting_s': asked,
        'post_to_first_pod_gone_s': min(_of('Pod', gone)) - op['_posted'],
        'last_pod_gone_to_completed_s': op['_completed']
        - max(_of('Pod', gone)),
        'last_object_gone_to_completed_s': tail,
        'vnfm_own_s': asked + tail,
        'k8s_requests': k8s_requests(svc, op['id']),
    }


def _rounded(value):
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    return value


def _summary(values: list[float]) -> dict:
    return {
        'median_s': round(statistics.median(values), 3),
        'max_s': round(max(values), 3),
    }


def main() -> None:
    """Run the benchmark; print the figures as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--pod-ready-delay', type=float, default=0.5)
    parser.add_argument('--workloads', type=int, default=10)
    parser.add_argument('--replicas', type=int, default=10)
    parser.add_argument(
        '--rounds',
        type=int,
        default=5,
        help='rounds of the one-Deployment CNF',
    )
    parser.add_argument(
        '--termination-type',
        default='GRACEFUL',
        choices=('GRACEFUL', 'FORCEFUL'),
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix='vnfm-bench-cnf-'))
    cluster = LocalCluster(
        work / 'k8s',
        nodes=2,
        pod_ready_delay=args.pod_ready_delay,
        name='vnfmbench',
        die_with_parent=True,
    )
    svc = VnfmServices(
        work / 'vnfm',
        conf={
            'conductor': {
                'lease_seconds': 30,
                'heartbeat_interval': 5,
                'sweep_interval': 5,
                'unclaimed_grace_seconds': 10,
            },
            'infra': {'enabled_infra_drivers': 'noop,kubernetes'},
            'kubernetes': {'sync_interval': 60},
        },
    )
    try:
        cluster.start(timeout=120)
        svc.start(conductors=1)
        kube = kubernetes.config.new_client_from_config(
            str(cluster.kubeconfig_path)
        )
        client = Client(svc.api_url)
        ctx = {
            'client': client,
            'cluster': cluster,
            'svc': svc,
            'kube': kube,
            'core': kubernetes.client.CoreV1Api(kube),
            'terminate': {
                'terminationType': args.termination_type,
                'gracefulTerminationTimeout': 1,
            },
        }
        big, big_id, big_files = make_package(args.workloads, args.replicas)
        one, one_id, one_files = make_package(1, 1)
        onboard(client, big, timeout=60)
        onboard(client, one, timeout=60)
        large = lifecycle(ctx, big_id, big_files)
        large['instantiate']['beyond_pod_ready_delay_s'] = (
            large['instantiate']['wall_s'] - args.pod_ready_delay
        )
        rounds = [
            lifecycle(ctx, one_id, one_files) for _ in range(args.rounds)
        ]
    except BaseException:
        print(svc.log_tails(), file=sys.stderr)
        raise
    finally:
        svc.stop()
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    emit(
        {
            'path': 'API (vnfm-api + 1 vnfm-conductor, RabbitMQ, PostgreSQL)',
            'pod_ready_delay_s': args.pod_ready_delay,
            'termination_type': args.termination_type,
            f'cnf_{args.workloads}x{args.replicas}': _rounded(large),
            'one_deployment': {
                'rounds': args.rounds,
                'instantiate_last_pod_ready_to_completed': _summary(
                    [
                        r['instantiate']['last_pod_ready_to_completed_s']
                        for r in rounds
                    ]
                ),
                'terminate_last_object_gone_to_completed': _summary(
                    [
                        r['terminate']['last_object_gone_to_completed_s']
                        for r in rounds
                    ]
                ),
                'instantiate_wall': _summary(
                    [r['instantiate']['wall_s'] for r in rounds]
                ),
                'terminate_wall': _summary(
                    [r['terminate']['wall_s'] for r in rounds]
                ),
                'k8s_requests': {
                    'instantiate': rounds[-1]['instantiate']['k8s_requests'],
                    'terminate': rounds[-1]['terminate']['k8s_requests'],
                },
                'target_s': 1.0,
                'tacker_16_s': {'instantiate': 10.3, 'terminate': 10.2},
            },
        }
    )


if __name__ == '__main__':
    main()
