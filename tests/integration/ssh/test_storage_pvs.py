"""The storage server's PersistentVolumes, registered for real: kubectl
run as root over SSH on the "master" against the local Kubernetes control
plane, its PV controller binding a claim; the driver's heal_start of the
storage VNFC refused while the claim is Bound, deleting the PVs after.

The master here is the loopback sshd (this machine), where the control
plane's kubectl and kubeconfig are: a local-cloud VM cannot reach the
control plane, which listens on the host's loopback. The driver is told
which kubectl and kubeconfig to use, as an operator whose masters keep
them elsewhere than kubeadm's /etc/kubernetes/admin.conf would.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pytest
import yaml

from tests.integration.ssh.test_ssh_client import FAST
from tests.integration.ssh.test_ssh_client import LOOPBACK
from tests.unit.drivers.mgmt.kubernetes_cluster import instances
from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import VIP
from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import make_ctx
from tests.unit.drivers.mgmt.kubernetes_cluster.test_storage import package
from tests.unit.drivers.mgmt.kubernetes_cluster.test_storage import (
    storage_vnfc,
)
from tests.unit.objects.test_k8s_storage import with_storage
from vnfm.common import exceptions
from vnfm.drivers.mgmt.kubernetes_cluster import driver
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import pvs
from vnfm.drivers.mgmt.kubernetes_cluster import sessions
from vnfm.drivers.mgmt.kubernetes_cluster import storage
from vnfm.objects import k8s_cluster
from vnfm_testbed.k8s.cluster import LocalCluster
from vnfm_testbed.sshd import LoopbackSshd

NS = 'storage-pv-test'
FIRST, HEALED = '198.18.0.50', '198.18.0.51'


def _wait(check: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f'{what}: not within {seconds}s')
        time.sleep(0.2)


class Master:
    """The driver's storage Setup with the loopback sshd as master."""

    def __init__(self, server: LoopbackSshd, cluster: LocalCluster) -> None:
        self.server = server
        self.cluster = cluster
        base = k8s_cluster.parse(with_storage())
        login = {'username': server.username, 'password': server.password}
        self.params = dataclasses.replace(
            base, master=dataclasses.replace(base.master, **login)
        )
        self.vm = nodes.VmNode(
            nodes.MASTER, 'm1', 'masterNode', 'server-m1', '127.0.0.1', ''
        )
        self.manifests = pvs.read(package(), self.params)

    def setup(self, work: Callable[[storage.Setup], Any]) -> Any:
        pins = hostkeys.Pins.of({}, {})
        with sessions.Sessions(
            self.params,
            pins,
            {},
            lambda: None,
            LOOPBACK,
            FAST,
            port=self.server.port,
        ) as vms:
            setup = storage.Setup(
                self.params,
                vms,
                lambda: 60.0,
                kubectl=str(self.cluster.kubectl),
                kubeconfig=str(self.cluster.kubeconfig_path),
            )
            work(setup)
            return setup

    def register(self, address: str) -> storage.Setup:
        info = instances.info(
            instances.vnfc(
                's1',
                'storage_server',
                instances.cp('storage_server_CP', address),
            )
        )
        return self.setup(
            lambda s: s.register(self.vm, self.manifests, info, 'inst-1')
        )

    def heal_start(self) -> None:
        """The driver's heal_start of the storage VNFC, for real."""
        params = with_storage()
        master = params[k8s_cluster.PARAM]['master_node']
        master['username'] = self.server.username
        master['password'] = self.server.password
        info = instances.info(
            instances.vnfc(
                'm1',
                'masterNode',
                instances.cp('masterNode_CP1', '127.0.0.1'),
            ),
            storage_vnfc(),
            extCpInfo=[VIP],
            virtualStorageResourceInfo=[
                {
                    'id': 'st-1',
                    'virtualStorageDescId': 'storage_server_volume',
                    'storageResource': {'resourceId': 'vol-1'},
                }
            ],
        )
        ctx = make_ctx(
            'heal_start',
            info,
            request={'vnfcInstanceId': ['s1']},
            instantiate_request=lambda: {'additionalParams': params},
            package=package(),
        )
        driver.KubernetesClusterDriver(
            port=self.server.port,
            policy=LOOPBACK,
            kubectl=str(self.cluster.kubectl),
            kubeconfig=str(self.cluster.kubeconfig_path),
        ).heal_start(ctx)


def kubectl(
    cluster: LocalCluster, *args: str, stdin: str | None = None
) -> str:
    return subprocess.run(
        [
            str(cluster.kubectl),
            '--kubeconfig',
            str(cluster.kubeconfig_path),
            *args,
        ],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout


def our_pvs(cluster: LocalCluster) -> dict[str, dict[str, Any]]:
    items = json.loads(kubectl(cluster, 'get', 'pv', '-o', 'json'))['items']
    return {
        i['metadata']['name']: i
        for i in items
        if i['metadata']['name'].startswith('nfs-pv')
    }


CLAIM = {
    'apiVersion': 'v1',
    'kind': 'PersistentVolumeClaim',
    'metadata': {'name': 'data', 'namespace': NS},
    'spec': {
        'accessModes': ['ReadWriteOnce'],
        'storageClassName': '',
        'volumeName': 'nfs-pv2',
        'resources': {'requests': {'storage': '1Gi'}},
    },
}


@pytest.fixture
def master(sudo_sshd: LoopbackSshd, local_k8s: LocalCluster) -> Master:
    yield Master(sudo_sshd, local_k8s)
    kubectl(
        local_k8s,
        'delete',
        'namespace',
        NS,
        '--ignore-not-found',
        '--wait=false',
    )
    kubectl(
        local_k8s,
        'delete',
        'pv',
        'nfs-pv1',
        'nfs-pv2',
        'nfs-pv3',
        '--ignore-not-found',
    )


def test_pvs_registered_bound_guarded_and_re_registered(
    master: Master, local_k8s: LocalCluster
) -> None:
    first = master.register(FIRST)
    assert len(first.changes) == 3
    found = our_pvs(local_k8s)
    assert sorted(found) == ['nfs-pv1', 'nfs-pv2', 'nfs-pv3']
    assert {p['spec']['nfs']['server'] for p in found.values()} == {FIRST}
    assert {
        p['metadata']['labels'][pvs.INSTANCE_LABEL] for p in found.values()
    } == {'inst-1'}
    _wait(
        lambda: all(
            p['status'].get('phase') == 'Available'
            for p in our_pvs(local_k8s).values()
        ),
        30,
        'PVs Available',
    )
    # A second registration changes nothing.
    assert master.register(FIRST).changes.to_dict()['changed'] == 0

    # A claim binds (the real PV controller): the storage heal is refused,
    # naming the PV and its claim, and nothing is deleted.
    _claim_data_until_bound_to_pv2(local_k8s)
    with pytest.raises(exceptions.OperationFailed) as refused:
        master.heal_start()
    assert f'nfs-pv2 (claim {NS}/data)' in refused.value.detail
    assert 'nfs-pv1' not in refused.value.detail
    assert len(our_pvs(local_k8s)) == 3

    # Without the claim the PVs are deleted, then registered again with
    # the healed server's address.
    _delete_the_claim_until_released(local_k8s)
    master.heal_start()
    assert our_pvs(local_k8s) == {}
    again = master.register(HEALED)
    assert len(again.changes) == 3
    assert {
        p['spec']['nfs']['server'] for p in our_pvs(local_k8s).values()
    } == {HEALED}


def _claim_data_until_bound_to_pv2(local_k8s: LocalCluster) -> None:
    kubectl(local_k8s, 'create', 'namespace', NS)
    kubectl(local_k8s, 'apply', '-f', '-', stdin=yaml.safe_dump(CLAIM))
    _wait(
        lambda: (
            our_pvs(local_k8s)['nfs-pv2']['status'].get('phase') == 'Bound'
        ),
        60,
        'claim bound',
    )


def _delete_the_claim_until_released(local_k8s: LocalCluster) -> None:
    kubectl(local_k8s, 'delete', 'pvc', 'data', '-n', NS, '--wait=true')
    _wait(
        lambda: (
            our_pvs(local_k8s)['nfs-pv2']['status'].get('phase') != 'Bound'
        ),
        60,
        'claim released',
    )
