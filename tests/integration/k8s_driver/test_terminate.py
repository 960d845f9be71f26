"""Terminate gives each Pod the grace period the request allows, no more.

The Pods of these CNFs take ten minutes to stop once asked (the simulated
kubelet's ``sim.vnfm.io/stop-seconds``) and ask for ten minutes
(``terminationGracePeriodSeconds: 600``) or two seconds. A kubelet keeps
the grace period of a Pod's first delete, so the first delete is what is
checked, as a watch sees it.
"""

from __future__ import annotations

import threading
from typing import Any

import urllib3

from vnfm.clients import kubernetes as k8s
from vnfm.clients.kubernetes.client import events
from vnfm.drivers.infra.kubernetes.driver import KubernetesInfraDriver
from vnfm_testbed.k8s.kubelet import STOP_SECONDS
from vnfm_testbed.procs import wait_for

from .conftest import labelled
from .conftest import package

DRIVER = KubernetesInfraDriver()
DEPLOYMENT = 'Files/kubernetes/deployment.yaml'
POD = 'Files/kubernetes/pod.yaml'
SLOW_PODS = {
    DEPLOYMENT: (
        """\
    metadata:
      labels:
        app: cnf-simple-web
    spec:
""",
        f"""\
    metadata:
      labels:
        app: cnf-simple-web
      annotations:
        {STOP_SECONDS}: "600"
    spec:
      terminationGracePeriodSeconds: 600
""",
    ),
    POD: (
        """\
  labels:
    app: cnf-simple-helper
spec:
  terminationGracePeriodSeconds: 5
""",
        f"""\
  labels:
    app: cnf-simple-helper
  annotations:
    {STOP_SECONDS}: "600"
spec:
  terminationGracePeriodSeconds: 2
""",
    ),
}


class FirstDeletes:
    """Watches the instance's Pods: the deletionGracePeriodSeconds each was
    first seen terminating with, and which are gone."""

    def __init__(
        self, kube: k8s.KubeClient, namespace: str, instance_id: str
    ) -> None:
        sel = f'{k8s.INSTANCE_LABEL}={instance_id}'
        pods, version = kube.list('v1', 'Pod', namespace, sel)
        self.pods = {p['metadata']['name'] for p in pods}
        self.grace: dict[str, int] = {}
        self.gone: set[str] = set()
        self._resp = kube.open_watch('v1', 'Pod', namespace, sel, version, 600)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for event in events(self._resp):
                meta = event['object'].get('metadata') or {}
                if meta.get('deletionTimestamp'):
                    self.grace.setdefault(
                        meta['name'], meta.get('deletionGracePeriodSeconds')
                    )
                if event['type'] == 'DELETED':
                    self.gone.add(meta['name'])
        except (urllib3.exceptions.HTTPError, OSError, ValueError):
            pass  # closed by close()

    def wait_gone(self) -> None:
        """Wait until every Pod seen at the start was seen deleted."""
        assert wait_for(lambda: self.pods <= self.gone, 60), (
            self.pods - self.gone
        )

    def close(self) -> None:
        """Stop watching."""
        self._resp.shutdown()  # ends the read in the watching thread
        self._thread.join(10)
        self._resp.release_conn()


def _instantiate(make_ctx: Any) -> tuple[dict[str, Any], Any, Any]:
    """A CNF of slow Pods: two of the Deployment, the bare Pod vdu2."""
    files, vnfd = package(replace=SLOW_PODS)
    ctx = make_ctx('INSTANTIATE', package=files, vnfd=vnfd)
    ctx.request['instantiationLevelId'] = 'instantiation_level_2'
    result = DRIVER.instantiate(ctx)
    instance = {
        **ctx.vnf_instance,
        'instantiatedVnfInfo': result.instantiated_vnf_info,
    }
    return instance, files, vnfd


def _terminate(
    make_ctx: Any, kube: k8s.KubeClient, namespace: str, request: dict
) -> dict[str, int]:
    """Terminate a CNF of slow Pods; the first grace period of each Pod."""
    instance, files, vnfd = _instantiate(make_ctx)
    iid = instance['id']
    watch = FirstDeletes(kube, namespace, iid)
    try:
        DRIVER.terminate(
            make_ctx('TERMINATE', request, instance, package=files, vnfd=vnfd)
        )
        assert all(not v for v in labelled(kube, namespace, iid).values())
        watch.wait_gone()
    finally:
        watch.close()
    assert len(watch.pods) == 3 and 'vdu2' in watch.pods
    assert watch.pods <= set(watch.grace), watch.grace
    return watch.grace


def test_graceful_terminate_cuts_each_pods_grace_to_the_timeout(
    make_ctx, kube, namespace
):
    grace = _terminate(
        make_ctx,
        kube,
        namespace,
        {'terminationType': 'GRACEFUL', 'gracefulTerminationTimeout': 3},
    )
    # The Deployment's Pods ask for 600 s and get the 3 s of the request;
    # the bare Pod asks for 2 s and keeps them. Without the cut the
    # terminate would have waited for the Pods' ten minutes.
    assert grace == {name: 2 if name == 'vdu2' else 3 for name in grace}, grace


def test_forceful_terminate_does_not_wait_for_the_pods_to_stop(
    make_ctx, kube, namespace
):
    grace = _terminate(
        make_ctx, kube, namespace, {'terminationType': 'FORCEFUL'}
    )
    # Pods that take ten minutes to stop are gone already (_terminate
    # checked it); the bare Pod, which only vnfm deletes, got no grace.
    assert grace['vdu2'] == 0, grace
