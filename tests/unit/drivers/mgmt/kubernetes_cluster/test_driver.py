"""The kubernetes_cluster MgmtDriver's hooks, with fake SSH sessions and a
fake Kubernetes API (the real ones: tests/integration/ssh)."""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest
import yaml

from tests.unit.drivers.mgmt.kubernetes_cluster import instances
from tests.unit.objects.test_k8s_cluster import valid
from vnfm.clients import outbound
from vnfm.clients import ssh
from vnfm.common import exceptions
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.kubernetes_cluster import census
from vnfm.drivers.mgmt.kubernetes_cluster import driver
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.kubernetes_cluster import nodes
from vnfm.drivers.mgmt.kubernetes_cluster import vim
from vnfm.drivers.package_files import PackageFiles
from vnfm_testbed.k8s import certs

CA = base64.b64encode(certs.make_ca().cert_pem).decode()
INSTANCE = '0e6d7c4a-1f2b-4c3d-8e9f-0a1b2c3d4e5f'
VIP = instances.cp('vip_CP', '198.18.0.100')


#: The Kubernetes API of the cluster the fake scripts build: a join
#: registers a Node under the config's NODE_NAME (None: the VM's host
#: name, the same on every worker, as Tacker's cluster package names them).
CLUSTER: dict[str, Any] = {'kube': None, 'node_name': 'config'}


def _config_value(config: str, key: str) -> str:
    for line in config.splitlines():
        if line.startswith(key + '='):
            return line.split('=', 1)[1]
    return ''


class FakeSession:
    """Runs the install script's actions by recording them."""

    def __init__(self, target: ssh.Target, log: list[str]) -> None:
        self.target = target
        self.log = log
        self.first_contact = not target.known_keys
        self.host_keys = [f'ssh-ed25519 KEY-{target.host}']
        self.config = ''

    def hide(self, *values: str) -> None:
        pass

    def put(self, data: bytes, path: str, step: str, mode: int = 0) -> None:
        if path.endswith('.conf'):
            self.config = data.decode()
        if step == 'pv-upload' and CLUSTER['kube'] is not None:
            # Registered by the kubectl apply that follows.
            for doc in yaml.safe_load_all(data.decode()):
                CLUSTER['kube'].pvs.append(doc['metadata']['name'])

    def run(self, command: str, step: str, **kwargs: Any) -> ssh.Result:
        out = ''
        if command.startswith('umask'):
            out = '/tmp/vnfm-k8s.x\n'
        elif command.startswith('bash'):
            action = command.split()[2]
            node = self.config.split('NODE_IP=')[1].split('\n')[0]
            self.log.append(f'{action} {node}')
            self._register(action, node)
            out = {
                'join-info': 'JOIN_TOKEN=abcdef.0123456789abcdef\n',
                'vim-access': 'SERVER=https://198.18.0.100:6443\n'
                f'CA_CERT={CA}\nTOKEN=sa-token-1\n',
            }.get(action, '')
        return ssh.Result(0, out, '')

    def _register(self, action: str, address: str) -> None:
        kube = CLUSTER['kube']
        if kube is None or action not in {'init-master', 'join-worker'}:
            return
        if action == 'init-master':
            kube.nodes.clear()  # a new cluster
        name = _config_value(self.config, 'NODE_NAME')
        if action == 'join-worker' and CLUSTER['node_name'] != 'config':
            name = CLUSTER['node_name']
        kube.nodes[name] = address

    def close(self) -> None:
        pass


class FakeKube:
    """Nodes and Pods in memory; records what was done to them."""

    def __init__(self, nodes: dict[str, str], pods: list[dict]) -> None:
        self.nodes = nodes  # name -> InternalIP
        self.pvs: list[str] = []
        self.pods = pods
        self.calls: list[str] = []

    def __enter__(self) -> FakeKube:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def list(self, api_version: str, kind: str, *a: Any) -> tuple:
        if kind == 'PersistentVolume':
            return [{'metadata': {'name': n}} for n in self.pvs], '1'
        if kind == 'Node':
            return [
                {
                    'metadata': {'name': n},
                    'status': {
                        'addresses': [{'type': 'InternalIP', 'address': a}]
                    },
                }
                for n, a in self.nodes.items()
            ], '1'
        return list(self.pods), '1'

    def patch(self, v: str, kind: str, name: str, ns: Any, body: dict):
        self.calls.append(f'cordon {name}')

    def evict_until(self, name: str, namespace: str, *a: Any) -> None:
        self.calls.append(f'evict {namespace}/{name}')

    def delete(self, v: str, kind: str, name: str, *a: Any, **k: Any):
        self.calls.append(f'delete {kind} {name}')
        self.nodes.pop(name, None)


def pod(name: str, node: str, daemon: bool = False) -> dict:
    owners = [{'kind': 'DaemonSet'}] if daemon else [{'kind': 'ReplicaSet'}]
    return {
        'metadata': {
            'name': name,
            'namespace': 'cnf',
            'ownerReferences': owners,
        },
        'spec': {'nodeName': node},
    }


@pytest.fixture
def actions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    log: list[str] = []
    monkeypatch.setitem(CLUSTER, 'kube', None)
    monkeypatch.setitem(CLUSTER, 'node_name', 'config')
    monkeypatch.setattr(
        ssh, 'connect', lambda target, *a, **k: FakeSession(target, log)
    )
    return log


def make_ctx(hook: str, info: dict, **extra: Any) -> base.HookContext:
    operation = extra.pop('operation', hook.split('_')[0].upper())
    defaults: dict[str, Any] = {
        'hook': hook,
        'operation': operation,
        'vnf_instance': {'id': INSTANCE, 'instantiatedVnfInfo': info},
        'vnf_lcm_op_occ': {},
        'request': {'additionalParams': valid()},
        'vim_connection_info': {},
        'vnfd': {},
        'package': PackageFiles(
            'p', {'Scripts/install_k8s_cluster.sh': b'#!/bin/bash\n'}
        ),
        'definition': {'builtin': 'kubernetes_cluster'},
        'deadline': time.monotonic() + 60,
    }
    defaults.update(extra)
    return base.HookContext(**defaults)


def cluster_driver(
    kube: FakeKube | None = None,
) -> driver.KubernetesClusterDriver:
    """The driver on ``kube`` (default: a cluster with no Node yet), the
    cluster the fake scripts register Nodes in."""
    if kube is None:
        kube = CLUSTER['kube'] or FakeKube({}, [])
    CLUSTER['kube'] = kube
    return driver.KubernetesClusterDriver(
        policy=outbound.Policy(allowed=()),
        kube_client=lambda vim_entry: kube,
    )


def joined(info: dict) -> FakeKube:
    """A cluster whose Nodes are the VMs of ``info`` (by their addresses)."""
    return FakeKube(
        {
            f'node-{v["id"]}': nodes.cp_addresses(v['vnfcCpInfo'][0])[0]
            for v in info['vnfcResourceInfo']
            if v['vduId'] in {'masterNode', 'workerNode'}
        },
        [],
    )


def two_workers() -> dict:
    return instances.info(
        instances.master(1),
        instances.worker(1),
        instances.worker(2),
        extCpInfo=[VIP],
    )


#: The install of two_workers(), action by action, in kubeadm's order.
INSTALL_TWO_WORKERS = [
    'prepare 198.18.0.11',
    'prepare 198.18.0.21',
    'prepare 198.18.0.22',
    'init-master 198.18.0.11',
    'join-info 198.18.0.11',
    'join-worker 198.18.0.21',
    'join-worker 198.18.0.22',
    'vim-access 198.18.0.11',
]


def test_instantiate_end_installs_and_registers_the_vim(actions):
    ctx = make_ctx('instantiate_end', two_workers())

    changes = cluster_driver().instantiate_end(ctx).changes

    assert actions == INSTALL_TWO_WORKERS
    vim_id = driver.vim_id_of(INSTANCE)
    [registered] = changes['vims']['register']
    assert registered['id'] == vim_id
    assert registered['name'] == 'kubernetes_vim'
    assert registered['auth_url'] == 'https://198.18.0.100:6443'
    assert 'BEGIN CERTIFICATE' in registered['auth_cred']['ssl_ca_cert']
    entry = changes['vimConnectionInfo'][vim.CONNECTION_KEY]
    assert entry['vimId'] == vim_id
    assert entry['accessInfo'] == {'bearer_token': 'sa-token-1'}
    pins = changes['metadata'][hostkeys.METADATA_KEY]
    assert sorted(pins) == ['server-m1', 'server-w1', 'server-w2']
    base.check_changes('instantiate_end hook', changes)


def test_each_vm_joins_under_a_node_name_of_its_own(actions):
    kube = FakeKube({}, [])

    cluster_driver(kube).instantiate_end(
        make_ctx('instantiate_end', two_workers())
    )

    assert kube.nodes == {
        'master-198-18-0-11': '198.18.0.11',
        'worker-198-18-0-21': '198.18.0.21',
        'worker-198-18-0-22': '198.18.0.22',
    }


def test_two_workers_registered_as_one_node_fail_naming_the_clash(
    actions, monkeypatch
):
    # Tacker's cluster package names every worker server workerNode; a
    # script that names Nodes after the host name makes one Node of two.
    monkeypatch.setitem(CLUSTER, 'node_name', 'workerNode')

    with pytest.raises(census.ClusterMismatch) as e:
        cluster_driver().instantiate_end(
            make_ctx('instantiate_end', two_workers())
        )

    detail = e.value.detail
    assert 'worker VNFC w1 (198.18.0.21) is 0 Nodes' in detail, detail
    assert 'workerNode (198.18.0.22)' in detail, detail
    assert 'its own host name' in detail, detail


def test_a_missing_script_fails_naming_script_path(actions):
    ctx = make_ctx(
        'instantiate_end', two_workers(), package=PackageFiles('p', {})
    )
    with pytest.raises(exceptions.OperationFailed, match='script_path'):
        cluster_driver().instantiate_end(ctx)
    assert actions == []


def test_terminate_start_refuses_naming_the_instances_using_the_vim():
    users = [{'id': 'cnf-1', 'vnfInstanceName': 'web'}]
    asked: list[str] = []
    ctx = make_ctx(
        'terminate_start',
        two_workers(),
        vim_users=lambda vim_id: asked.append(vim_id) or users,
    )
    with pytest.raises(exceptions.OperationFailed, match=r'cnf-1 \(web\)'):
        cluster_driver().terminate_start(ctx)
    assert asked == [driver.vim_id_of(INSTANCE)]
    ctx.vim_users = lambda vim_id: []
    assert cluster_driver().terminate_start(ctx).changes == {}


def test_terminate_end_deletes_the_vim_and_its_entry():
    changes = (
        cluster_driver()
        .terminate_end(make_ctx('terminate_end', two_workers()))
        .changes
    )
    assert changes['vims'] == {'delete': [driver.vim_id_of(INSTANCE)]}
    assert changes['vimConnectionInfo'] == {vim.CONNECTION_KEY: None}


def pinned(info: dict) -> dict:
    keys = {
        v['computeResource']['resourceId']: ['ssh-ed25519 OLD']
        for v in info['vnfcResourceInfo']
    }
    return {'metadata': {hostkeys.METADATA_KEY: keys}}


def test_scale_out_joins_only_the_new_worker(actions):
    before = two_workers()
    after = dict(
        before,
        vnfcResourceInfo=before['vnfcResourceInfo'] + [instances.worker(3)],
    )
    ctx = make_ctx(
        'scale_end',
        after,
        request={'type': 'SCALE_OUT', 'aspectId': 'worker_instance'},
        instantiate_request=lambda: {'additionalParams': valid()},
        vim_connection_info={vim.CONNECTION_KEY: {}},
    )
    ctx.vnf_instance.update(pinned(before))
    kube = FakeKube(
        {'m1': '198.18.0.11', 'w1': '198.18.0.21', 'w2': '198.18.0.22'}, []
    )

    changes = cluster_driver(kube).scale_end(ctx).changes

    assert actions == [
        'prepare 198.18.0.23',
        'join-info 198.18.0.11',
        'join-worker 198.18.0.23',
    ]
    assert changes['metadata'][hostkeys.METADATA_KEY] == {
        'server-w3': ['ssh-ed25519 KEY-198.18.0.23']
    }


def test_scale_in_deletes_the_nodes_no_vm_backs(actions):
    before = two_workers()
    after = dict(before, vnfcResourceInfo=before['vnfcResourceInfo'][:2])
    kube = FakeKube(
        {'m1': '198.18.0.11', 'w1': '198.18.0.21', 'w2': '198.18.0.22'}, []
    )
    ctx = make_ctx(
        'scale_end',
        after,
        request={'type': 'SCALE_IN'},
        instantiate_request=lambda: {'additionalParams': valid()},
        vim_connection_info={vim.CONNECTION_KEY: {}},
    )
    ctx.vnf_instance.update(pinned(before))

    changes = cluster_driver(kube).scale_end(ctx).changes

    assert kube.calls == ['delete Node w2']
    assert actions == []
    assert changes['metadata'][hostkeys.METADATA_KEY] == {'server-w2': None}


def test_heal_of_a_worker_drains_then_joins_the_new_vm(actions):
    info = two_workers()
    kube = FakeKube(
        {'m1': '198.18.0.11', 'w1': '198.18.0.21', 'w2': '198.18.0.22'},
        [pod('web-1', 'w1'), pod('proxy-1', 'w1', daemon=True)],
    )
    common = {
        'request': {'vnfcInstanceId': ['w1']},
        'instantiate_request': lambda: {'additionalParams': valid()},
        'vim_connection_info': {vim.CONNECTION_KEY: {}},
    }
    start = make_ctx('heal_start', info, **common)
    start.vnf_instance.update(pinned(info))

    cluster_driver(kube).heal_start(start)

    assert kube.calls == ['cordon w1', 'evict cnf/web-1', 'delete Node w1']
    healed = instances.vnfc(
        'w1', 'workerNode', instances.cp('workerNode_CP2', '198.18.0.21')
    )
    healed['computeResource']['resourceId'] = 'server-w1-new'
    after = dict(
        info,
        vnfcResourceInfo=[instances.master(1), healed, instances.worker(2)],
    )
    end = make_ctx('heal_end', after, **common)
    end.vnf_instance.update(pinned(info))

    changes = cluster_driver(kube).heal_end(end).changes

    assert actions == [
        'prepare 198.18.0.21',
        'join-info 198.18.0.11',
        'join-worker 198.18.0.21',
    ]
    assert changes['metadata'][hostkeys.METADATA_KEY] == {
        'server-w1': None,
        'server-w1-new': ['ssh-ed25519 KEY-198.18.0.21'],
    }


def test_heal_of_an_ha_master_is_refused_before_anything_changes():
    info = instances.info(
        instances.master(1),
        instances.master(2),
        instances.worker(1),
        extCpInfo=[VIP],
    )
    kube = FakeKube({'w1': '198.18.0.21'}, [])
    ctx = make_ctx(
        'heal_start',
        info,
        request={'vnfcInstanceId': ['m1']},
        instantiate_request=lambda: {'additionalParams': valid()},
    )
    with pytest.raises(exceptions.OperationFailed, match='2 masters'):
        cluster_driver(kube).heal_start(ctx)
    assert kube.calls == []


def test_heal_of_the_single_master_rebuilds_the_cluster(actions):
    info = two_workers()
    kube = FakeKube({'w1': '198.18.0.21', 'w2': '198.18.0.22'}, [])
    common = {
        'request': {'vnfcInstanceId': ['m1']},
        'instantiate_request': lambda: {'additionalParams': valid()},
        'vim_connection_info': {vim.CONNECTION_KEY: {}},
    }
    start = make_ctx('heal_start', info, **common)
    assert cluster_driver(kube).heal_start(start).changes == {}
    assert kube.calls == []  # nothing to drain: the cluster is rebuilt

    healed = instances.master(1)
    healed['computeResource']['resourceId'] = 'server-m1-new'
    after = dict(
        info,
        vnfcResourceInfo=[healed, instances.worker(1), instances.worker(2)],
    )
    end = make_ctx('heal_end', after, **common)
    end.vnf_instance.update(pinned(info))

    changes = cluster_driver(kube).heal_end(end).changes

    # The workers leave the old cluster, then all is built again.
    assert actions[:2] == ['reset 198.18.0.21', 'reset 198.18.0.22']
    assert actions[2:] == INSTALL_TWO_WORKERS
    [registered] = changes['vims']['register']
    assert registered['id'] == driver.vim_id_of(INSTANCE)
    pins = changes['metadata'][hostkeys.METADATA_KEY]
    assert pins['server-m1-new'] and pins['server-m1'] is None  # dropped


def test_rollback_of_a_scale_out_deletes_the_nodes_it_added():
    kube = FakeKube(
        {'m1': '198.18.0.11', 'w1': '198.18.0.21', 'w3': '198.18.0.23'}, []
    )
    ctx = make_ctx(
        'scale_end',
        instances.info(instances.master(1), instances.worker(1)),
        request={'type': 'SCALE_OUT'},
        instantiate_request=lambda: {'additionalParams': valid()},
        vim_connection_info={vim.CONNECTION_KEY: {}},
    )

    assert cluster_driver(kube).rollback_scale_end(ctx).changes == {}

    assert kube.calls == ['delete Node w3']


def test_scale_in_of_the_masters_is_refused_before_anything_changes():
    request = {'type': 'SCALE_IN', 'aspectId': 'master_instance'}
    ctx = make_ctx(
        'scale_start',
        two_workers(),
        request=request,
        instantiate_request=lambda: {'additionalParams': valid()},
    )
    with pytest.raises(exceptions.OperationFailed, match='master_instance'):
        cluster_driver().scale_start(ctx)


FLAVOUR = {
    'flavour_id': 'cluster_install',
    'vdus': {
        'masterNode': {'initial_delta': 1},
        'workerNode': {'initial_delta': 1},
    },
    'scaling_aspects': {
        'worker_instance': {
            'max_scale_level': 3,
            'step_deltas': ['delta_1'],
            'vdu_deltas': {'workerNode': {'delta_1': 1}},
        },
    },
}


def test_scale_in_of_workers_drains_the_newest_worker_first():
    info = two_workers()
    info['flavourId'] = 'cluster_install'
    info['scaleStatus'] = [{'aspectId': 'worker_instance', 'scaleLevel': 1}]
    for n, entry in enumerate(info['vnfcResourceInfo']):
        entry['metadata'] = {'creation_time': f'2026-11-26T06:0{n}:00Z'}
    kube = FakeKube(
        {'m1': '198.18.0.11', 'w1': '198.18.0.21', 'w2': '198.18.0.22'},
        [pod('web-1', 'w1'), pod('web-2', 'w2')],
    )
    ctx = make_ctx(
        'scale_start',
        info,
        request={'type': 'SCALE_IN', 'aspectId': 'worker_instance'},
        instantiate_request=lambda: {'additionalParams': valid()},
        vim_connection_info={vim.CONNECTION_KEY: {}},
        vnfd={'flavours': {'cluster_install': FLAVOUR}},
    )

    assert cluster_driver(kube).scale_start(ctx).changes == {}

    # w2 is the newest: the infra driver removes it, so its Node goes now.
    assert kube.calls == ['cordon w2', 'evict cnf/web-2', 'delete Node w2']

    ctx.request['additionalParams'] = {'vnfcInstanceIds': ['w1']}
    kube.calls.clear()
    cluster_driver(kube).scale_start(ctx)
    assert kube.calls == ['cordon w1', 'evict cnf/web-1', 'delete Node w1']


def test_a_refused_login_names_the_vm_and_the_step(monkeypatch):
    def refuse(target: ssh.Target, *a: Any, **k: Any) -> None:
        if target.host == '198.18.0.22':
            raise ssh.AuthenticationFailed(
                f'{target.host}: SSH login as ubuntu was refused'
            )
        return FakeSession(target, [])

    monkeypatch.setattr(ssh, 'connect', refuse)
    ctx = make_ctx('instantiate_end', two_workers())

    with pytest.raises(ssh.AuthenticationFailed) as caught:
        cluster_driver().instantiate_end(ctx)

    assert str(caught.value).startswith(
        'install script prepare on worker VNFC w2 (198.18.0.22): '
        '198.18.0.22: SSH login'
    )
