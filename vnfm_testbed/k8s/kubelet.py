"""A simulated kubelet: registers Ready Nodes, runs their Pods on paper."""

from __future__ import annotations

import argparse
import heapq
import itertools
import logging
import re
import threading
import time
from typing import Any

import urllib3
from kubernetes import client
from kubernetes import config
from kubernetes import watch
from kubernetes.client.rest import ApiException

from vnfm_testbed.k8s import nodes as simnodes
from vnfm_testbed.k8s import podstatus

LOG = logging.getLogger('vnfm_testbed.k8s.kubelet')
MERGE_PATCH = 'application/merge-patch+json'
_WATCH_SECONDS = 60
#: Pod annotation: seconds the Pod's containers take to stop once asked
#: (default: the kubelet's ``termination_delay``). A terminating Pod is
#: finalised after that or its deletion grace period, whichever is shorter.
STOP_SECONDS = 'sim.vnfm.io/stop-seconds'
#: An image whose name holds ``pull-limit-<N>`` is pulled by its first N Pods
#: only; later Pods get ImagePullBackOff, as behind a registry's pull rate
#: limit. Tests use it to fail a rollout at a later Pod than the first.
PULL_LIMIT = re.compile(r'pull-limit-(\d+)')


class _PullCheck:
    """Whether one Pod fails to pull an image (``search``, as a pattern)."""

    def __init__(self, kubelet: SimKubelet, uid: str) -> None:
        self.kubelet, self.uid = kubelet, uid

    def search(self, image: str) -> bool:
        return self.kubelet.pull_refused(self.uid, image)


class _DelayQueue:
    """Actions due at a monotonic time, handed out in order to one worker."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, str, str]] = []
        self._seq = itertools.count()
        self._cond = threading.Condition()

    def put(self, delay: float, action: str, uid: str) -> None:
        with self._cond:
            heapq.heappush(
                self._heap,
                (time.monotonic() + delay, next(self._seq), action, uid),
            )
            self._cond.notify()

    def get(self, stop: threading.Event) -> tuple[str, str] | None:
        with self._cond:
            while not stop.is_set():
                if self._heap:
                    wait = self._heap[0][0] - time.monotonic()
                    if wait <= 0:
                        _, _, action, uid = heapq.heappop(self._heap)
                        return action, uid
                else:
                    wait = 1.0
                self._cond.wait(min(wait, 1.0))
        return None


class SimKubelet:
    """Plays kubelet for ``nodes`` Nodes: Pods run and get Ready, or fail."""

    def __init__(
        self,
        api: client.ApiClient,
        nodes: int = 2,
        node_prefix: str = 'vnfm',
        ready_delay: float = 0.2,
        failing_images: str = r'(^|/)no-such-image([:@]|$)',
        termination_delay: float = 0.0,
        node_name: str | None = None,
        node_ip: str | None = None,
    ) -> None:
        self.api = api
        self.core = client.CoreV1Api(api)
        if node_name:
            # One Node, as the kubelet of a VM registers: its host name.
            self.nodes = {node_name_of(node_name): 0}
        else:
            self.nodes = {f'{node_prefix}-node-{i}': i for i in range(nodes)}
        self.node_ip = node_ip
        self.ready_delay = ready_delay
        self.termination_delay = termination_delay
        self.failing = re.compile(failing_images)
        self._pods: dict[str, dict[str, Any]] = {}  # uid -> latest Pod seen
        self._pulled: dict[str, set[str]] = {}  # limited image -> Pod uids
        self._pull_lock = threading.Lock()
        self._ips: dict[str, str] = {}
        self._ip_seq = {name: itertools.count() for name in self.nodes}
        self._queue = _DelayQueue()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def host_ip(self, index: int) -> str:
        """InternalIP of simulated node ``index``: the given node address,
        else one of TEST-NET-1."""
        return self.node_ip or f'192.0.2.{index + 10}'

    def register_nodes(self) -> None:
        """Create the Nodes, mark them Ready, drop the not-ready taint."""
        for name, index in self.nodes.items():
            try:
                # The client takes a dict body; its types say V1Node only.
                self.core.create_node(
                    simnodes.node_body(name, index)  # type: ignore[arg-type]
                )
            except ApiException as e:
                if e.status != 409:
                    raise
            now = podstatus.now_rfc3339()
            self.core.patch_node_status(
                name,
                {
                    'status': simnodes.node_status(
                        name, self.host_ip(index), now
                    )
                },
                _content_type=MERGE_PATCH,
            )
            node = self.core.read_node(name)
            taints = [
                t
                for t in (node.spec.taints if node.spec else None) or []
                if not t.key.startswith('node.kubernetes.io/not-ready')
            ]
            self.core.patch_node(
                name,
                {
                    'spec': {
                        'taints': [
                            self.api.sanitize_for_serialization(t)
                            for t in taints
                        ]
                        or None
                    }
                },
                _content_type=MERGE_PATCH,
            )
        LOG.info('registered nodes %s', ', '.join(self.nodes))

    def _register_with_retry(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                return self.register_nodes()
            except (ApiException, urllib3.exceptions.HTTPError, OSError) as e:
                if time.monotonic() > deadline:
                    raise
                LOG.info(
                    'API server not ready yet (%s); retrying',
                    getattr(e, 'reason', e),
                )
                self._stop.wait(0.2)

    def start(self, register_timeout: float = 60.0) -> SimKubelet:
        """Register the Nodes; run the watch and worker threads."""
        self._register_with_retry(register_timeout)
        for target in (self._watch_loop, self._work_loop):
            thread = threading.Thread(
                target=target,
                name=f'sim-kubelet-{target.__name__}',
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)
        return self

    def stop(self) -> None:
        """Stop the background threads (the watch ends within its timeout)."""
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=2)

    # -- watching -----------------------------------------------------------

    def _watch_loop(self) -> None:
        resource_version = ''
        while not self._stop.is_set():
            try:
                if not resource_version:
                    resource_version = self._relist()
                resource_version = self._watch(resource_version)
            except ApiException as e:
                if e.status != 410:
                    LOG.warning('pod watch failed: %s', e.reason)
                    self._stop.wait(1.0)
                resource_version = ''
            except (urllib3.exceptions.HTTPError, OSError) as e:
                LOG.warning('pod watch connection failed: %s', e)
                self._stop.wait(1.0)
            except Exception:  # noqa: BLE001 - the thread must not die
                # e.g. the client's watch helper trips over an ERROR event
                # when not deserialising; start over from a fresh list.
                LOG.exception('pod watch broke; relisting')
                resource_version = ''
                self._stop.wait(1.0)

    def _relist(self) -> str:
        pods = self.api.sanitize_for_serialization(
            self.core.list_pod_for_all_namespaces()
        )
        seen = set()
        for pod in pods['items']:
            seen.add(pod['metadata']['uid'])
            self._observe(pod)
        for uid in set(self._pods) - seen:
            self._forget(uid)
        return str(pods['metadata']['resourceVersion'])

    def _watch(self, resource_version: str) -> str:
        stream = watch.Watch().stream(
            self.core.list_pod_for_all_namespaces,
            resource_version=resource_version,
            allow_watch_bookmarks=True,
            timeout_seconds=_WATCH_SECONDS,
            deserialize=False,
        )
        for event in stream:
            obj = event['object']
            resource_version = obj.get('metadata', {}).get(
                'resourceVersion', resource_version
            )
            if event['type'] == 'DELETED':
                self._forget(obj['metadata']['uid'])
            elif event['type'] in ('ADDED', 'MODIFIED'):
                self._observe(obj)
            if self._stop.is_set():
                break
        return resource_version

    def _forget(self, uid: str) -> None:
        self._pods.pop(uid, None)
        self._ips.pop(uid, None)

    def _observe(self, pod: dict[str, Any]) -> None:
        if pod.get('spec', {}).get('nodeName') not in self.nodes:
            return
        uid = pod['metadata']['uid']
        first = uid not in self._pods
        self._pods[uid] = pod
        if pod['metadata'].get('deletionTimestamp'):
            grace = pod['metadata'].get('deletionGracePeriodSeconds') or 0
            stop = (pod['metadata'].get('annotations') or {}).get(
                STOP_SECONDS, self.termination_delay
            )
            self._queue.put(min(float(grace), float(stop)), 'delete', uid)
        elif first or self._desired(pod)[1]:
            self._queue.put(self.ready_delay, 'sync', uid)

    # -- acting -------------------------------------------------------------

    def _pod_ip(self, pod: dict[str, Any]) -> str:
        uid = pod['metadata']['uid']
        if uid not in self._ips:
            node = pod['spec']['nodeName']
            self._ips[uid] = (
                f'10.244.{self.nodes[node]}.'
                f'{next(self._ip_seq[node]) % 250 + 2}'
            )
        return self._ips[uid]

    def pull_refused(self, uid: str, image: str) -> bool:
        """Whether Pod ``uid`` fails to pull ``image``."""
        if self.failing.search(image):
            return True
        limit = PULL_LIMIT.search(image)
        if limit is None:
            return False
        with self._pull_lock:
            pulled = self._pulled.setdefault(image, set())
            if uid not in pulled and len(pulled) < int(limit.group(1)):
                pulled.add(uid)
            return uid not in pulled

    def _desired(self, pod: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        host_ip = self.host_ip(self.nodes[pod['spec']['nodeName']])
        desired = podstatus.desired_status(
            pod,
            host_ip=host_ip,
            pod_ip=self._pod_ip(pod),
            failing=_PullCheck(self, pod['metadata']['uid']),
        )
        return desired, podstatus.needs_update(pod, desired)

    def _work_loop(self) -> None:
        while True:
            item = self._queue.get(self._stop)
            if item is None:
                return
            action, uid = item
            pod = self._pods.get(uid)
            if pod is None:
                continue
            try:
                if action == 'delete':
                    self._delete(pod)
                elif not pod['metadata'].get('deletionTimestamp'):
                    self._sync(pod)
            except ApiException as e:
                if e.status not in (404, 409):
                    LOG.warning(
                        '%s of pod %s failed: %s',
                        action,
                        pod['metadata']['name'],
                        e.reason,
                    )
            except (urllib3.exceptions.HTTPError, OSError) as e:
                LOG.warning(
                    '%s of pod %s failed: %s',
                    action,
                    pod['metadata']['name'],
                    e,
                )
                self._queue.put(1.0, action, uid)
            except Exception:  # noqa: BLE001 - the thread must not die
                LOG.exception('%s of pod %s failed', action, uid)

    def _sync(self, pod: dict[str, Any]) -> None:
        desired, changed = self._desired(pod)
        if changed:
            meta = pod['metadata']
            self.core.patch_namespaced_pod_status(
                meta['name'],
                meta['namespace'],
                {'status': desired},
                _content_type=MERGE_PATCH,
            )
            LOG.info(
                'pod %s/%s: %s',
                meta['namespace'],
                meta['name'],
                desired['phase'],
            )

    def _delete(self, pod: dict[str, Any]) -> None:
        meta = pod['metadata']
        body = client.V1DeleteOptions(
            grace_period_seconds=0,
            preconditions=client.V1Preconditions(uid=meta['uid']),
        )
        self.core.delete_namespaced_pod(
            meta['name'], meta['namespace'], body=body, grace_period_seconds=0
        )
        LOG.info('pod %s/%s: deleted', meta['namespace'], meta['name'])


def node_name_of(hostname: str) -> str:
    """The Node name a kubelet registers for ``hostname`` (lower case, as
    the kubelet's own default, ``--hostname-override`` unset)."""
    return hostname.strip().lower()


def main(argv: list[str] | None = None) -> None:
    """Run the simulated kubelet until killed."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--kubeconfig', required=True)
    parser.add_argument('--nodes', type=int, default=2)
    parser.add_argument('--node-prefix', default='vnfm')
    parser.add_argument('--ready-delay', type=float, default=0.2)
    parser.add_argument('--termination-delay', type=float, default=0.0)
    parser.add_argument(
        '--failing-images', default=r'(^|/)no-such-image([:@]|$)'
    )
    parser.add_argument(
        '--node-name',
        help='register one Node of this name (lower-cased, as a kubelet '
        "does with its host's name) instead of --nodes numbered ones",
    )
    parser.add_argument(
        '--node-ip', help="the Node's InternalIP (with --node-name)"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format='%(asctime)s %(levelname)s %(message)s'
    )
    api = config.new_client_from_config(config_file=args.kubeconfig)
    kubelet = SimKubelet(
        api,
        nodes=args.nodes,
        node_prefix=args.node_prefix,
        ready_delay=args.ready_delay,
        failing_images=args.failing_images,
        termination_delay=args.termination_delay,
        node_name=args.node_name,
        node_ip=args.node_ip,
    )
    kubelet.start()
    threading.Event().wait()


if __name__ == '__main__':
    main()
