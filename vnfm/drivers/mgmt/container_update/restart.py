"""Carrying out a plan on the cluster: replace, patch, evict, wait.

ConfigMaps and Secrets first (so restarted Pods read the new content), then
every rolling workload's Pod template is patched at once (new images and
the ``vnfm.io/config-hash`` annotation; the controllers roll natively),
then the Pods of OnDelete workloads and ReplicaSets are evicted one at a
time, each replacement Ready before the next eviction, then bare Pods are
evicted and created again from the new manifest. Evictions honour
PodDisruptionBudgets: a 429 is retried until ``[kubernetes]
eviction_timeout`` (then the step fails naming the Pod and the budget),
and meanwhile the op occurrence shows what it waits for. A request that
accepts the disruption (``vnfm_disruption_allowed``) deletes the Pods
instead. Readiness is watched, never polled, through one Informer for the
whole update.

A rollback is a forced rollback (``k8s.ForcedRollback``): Pods made from
the template being reverted that are not Ready are deleted, not evicted,
and are no failure while their controller replaces them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vnfm.clients import kubernetes as k8s
from vnfm.clients.kubernetes import status
from vnfm.clients.kubernetes.watcher import Informer
from vnfm.clients.kubernetes.workloads import ReadyCheck
from vnfm.clients.kubernetes.workloads import watch_specs
from vnfm.conf import CONF
from vnfm.drivers.mgmt.container_update import content
from vnfm.drivers.mgmt.container_update.manifests import describe
from vnfm.drivers.mgmt.container_update.planner import EVICT
from vnfm.drivers.mgmt.container_update.planner import RECREATE
from vnfm.drivers.mgmt.container_update.planner import ConfigChange
from vnfm.drivers.mgmt.container_update.planner import Plan
from vnfm.drivers.mgmt.container_update.planner import WorkloadChange

Obj = dict[str, Any]
_API = {'Pod': 'v1', 'ConfigMap': 'v1', 'Secret': 'v1'}


def api_version(kind: str) -> str:
    """The apiVersion vnfm uses for a kind it updates."""
    return _API.get(kind, 'apps/v1')


def _ref(k: tuple[str, str, str]) -> Obj:
    return {
        'apiVersion': api_version(k[0]),
        'kind': k[0],
        'metadata': {'name': k[2], 'namespace': k[1]},
    }


def apply_config(
    kube: k8s.KubeClient,
    change: ConfigChange,
    instance_id: str,
    deadline: float,
) -> None:
    """Bring one ConfigMap or Secret to its new content."""
    kind, ns, name = change.key
    desired = content.as_manifest(
        k8s.labelled(change.desired, {k8s.INSTANCE_LABEL: instance_id}),
        content.normal(change.desired),
    )
    if change.action == 'patch' and change.live is not None:
        kube.patch(
            'v1',
            kind,
            name,
            ns,
            content.patch_body(change.desired, change.live),
        )
        return
    if change.action == 'recreate':
        k8s.delete_and_wait(
            kube,
            [_ref(change.key)],
            f'{k8s.INSTANCE_LABEL}={instance_id}',
            deadline,
            propagation='Background',
        )
    k8s.apply(kube, desired, instance_id)


def template_patch(change: WorkloadChange) -> Obj:
    """A strategic-merge patch setting images and the hash annotation
    (removing it when ``config_hash`` is None)."""
    spec: Obj = {}
    for qualified, image in change.images.items():
        list_name, _, name = qualified.partition('/')
        spec.setdefault(list_name, []).append({'name': name, 'image': image})
    meta = {'annotations': {content.HASH_ANNOTATION: change.config_hash}}
    if change.method == RECREATE:
        return {'metadata': meta, 'spec': spec}
    return {'spec': {'template': {'metadata': meta, 'spec': spec}}}


_ALLOW_HINT = (
    ' To restart it anyway, accept the disruption: repeat the '
    'request with "vnfm_disruption_allowed": true in its metadata '
    '(the Pod is then deleted, not evicted).'
)


class Restarter:
    """Restarts the workloads of a plan through one Informer."""

    def __init__(
        self,
        kube: k8s.KubeClient,
        instance_id: str,
        deadline: float,
        *,
        rollback: bool = False,
        disruption_allowed: bool = False,
        show_waiting: Callable[[str | None], None] | None = None,
    ) -> None:
        self.kube = kube
        self.instance_id = instance_id
        self.selector = f'{k8s.INSTANCE_LABEL}={instance_id}'
        self.deadline = deadline
        self.rollback = rollback
        self.disruption_allowed = disruption_allowed
        self.show_waiting = show_waiting or (lambda message: None)
        # Generation each patch produced: a wait must not judge an older
        # copy of the object that the watch has not replaced yet.
        self.generations: dict[tuple, int] = {}

    def run(self, plan: Plan) -> dict[tuple, list[Obj]]:
        """Restart every workload of the plan; their Pods by key."""
        changes = plan.workloads
        if not changes:
            return {}
        workloads = [_ref(c.key) for c in changes]
        with Informer(
            self.kube, watch_specs(workloads, self.selector)
        ) as informer:
            for c in changes:
                if c.method != RECREATE and c.template_stale:
                    self._patch(c)
            for c in changes:
                if c.method == EVICT:
                    self._evict_each(informer, c)
            for c in changes:
                if c.method == RECREATE:
                    self._recreate(informer, c)
            self._wait(informer, changes)
            objects = list(informer.objects.values())
            return {
                c.key: k8s.pods_of(informer.objects[c.key], objects)
                for c in changes
            }

    def _patch(self, c: WorkloadChange) -> None:
        kind, ns, name = c.key
        patched = self.kube.patch(
            api_version(kind), kind, name, ns, template_patch(c)
        )
        self.generations[c.key] = int(
            patched['metadata'].get('generation') or 0
        )

    def _wait(
        self,
        informer: Informer,
        changes: list[WorkloadChange],
        gone: tuple[str, str, str] | None = None,
    ) -> None:
        """Wait until ``changes`` are ready (and Pod ``gone`` = (namespace,
        name, uid) no longer runs)."""
        refs = [_ref(c.key) for c in changes]
        ready = (
            k8s.ForcedRollback(
                self.kube,
                informer,
                refs,
                CONF.kubernetes.graceful_termination_timeout,
            )
            if self.rollback
            else ReadyCheck(informer, refs)
        )

        def check() -> tuple[bool, str]:
            for c in changes:
                live = informer.objects.get(c.key) or {}
                seen = int((live.get('metadata') or {}).get('generation') or 0)
                if seen < self.generations.get(c.key, 0):
                    return False, f'{describe(c.key)}: patch not seen yet'
            if gone is not None:
                pod = informer.objects.get(('Pod', gone[0], gone[1]))
                meta = (pod or {}).get('metadata') or {}
                if meta.get('uid') == gone[2] and not meta.get(
                    'deletionTimestamp'
                ):
                    return False, f'Pod {gone[1]} is not evicted yet'
            return ready()

        informer.wait(
            check,
            self.deadline,
            f'{", ".join(describe(c.key) for c in changes)} to become ready',
        )

    def _remove(self, name: str, namespace: str, live: Obj | None) -> None:
        """Evict a Pod; delete it when the request accepts the disruption
        or, in a rollback, when it is not Ready (it serves nothing)."""
        grace = CONF.kubernetes.graceful_termination_timeout
        if self.disruption_allowed or (
            self.rollback and live is not None and not status.pod(live)[0]
        ):
            self.kube.delete('v1', 'Pod', name, namespace, 'Background', grace)
            return
        try:
            self.kube.evict_until(
                name, namespace, grace, self.deadline, self.show_waiting
            )
        except k8s.EvictionBlocked as e:
            raise k8s.EvictionBlocked(e.detail + _ALLOW_HINT) from None
        finally:
            self.show_waiting(None)

    def _evict_each(self, informer: Informer, c: WorkloadChange) -> None:
        # Highest name first, as a StatefulSet controller rolls (n-1 .. 0).
        # uids now: a Pod replaced meanwhile (a StatefulSet's keeps its
        # name) is not restarted twice.
        ns = c.key[1]
        planned = {
            pod: _uid(informer.objects.get(('Pod', ns, pod))) for pod in c.pods
        }
        for pod in sorted(c.pods, reverse=True):
            live = informer.objects.get(('Pod', ns, pod))
            uid = _uid(live)
            if live is None or uid != planned[pod]:
                continue
            self._remove(pod, ns, live)
            self._wait(informer, [c], (ns, pod, uid))

    def _recreate(self, informer: Informer, c: WorkloadChange) -> None:
        kind, ns, name = c.key
        live = informer.objects.get(c.key)
        labels = ((live or {}).get('metadata') or {}).get('labels') or {}
        if live is not None:
            self._remove(name, ns, live)
            informer.wait(
                lambda: (
                    c.key not in informer.objects,
                    f'Pod {ns}/{name} still exists',
                ),
                self.deadline,
                f'Pod {ns}/{name} to be deleted',
            )
        ours = {k: v for k, v in labels.items() if k.startswith('vnfm.io/')}
        body = k8s.labelled(
            c.desired, {**ours, k8s.INSTANCE_LABEL: self.instance_id}
        )
        meta = body['metadata']
        if c.config_hash:
            meta['annotations'] = {
                **(meta.get('annotations') or {}),
                content.HASH_ANNOTATION: c.config_hash,
            }
        self.kube.create(body)
        self._wait(informer, [c])


def _uid(obj: Obj | None) -> str:
    return ((obj or {}).get('metadata') or {}).get('uid', '')


def pod_names(pods: dict[tuple, list[Obj]]) -> dict[tuple, list[str]]:
    """Pod names by workload key."""
    return {k: [p['metadata']['name'] for p in v] for k, v in pods.items()}
