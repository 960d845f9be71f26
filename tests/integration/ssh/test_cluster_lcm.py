"""The kubernetes_cluster MgmtDriver run by the LCM driver, over real SSH
and sudo, with an infra driver that reports the VMs' CPs (as the OpenStack
one does) and a recording install script: instantiate registers the VIM
with the op, terminate is refused while a CNF uses it, then deletes it."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from tests.integration.ssh.test_cluster_driver import params
from tests.integration.ssh.test_cluster_driver import vm
from tests.integration.ssh.test_cluster_install import fake_script
from tests.integration.ssh.test_ssh_client import LOOPBACK
from tests.unit.drivers.mgmt.kubernetes_cluster.test_driver import FakeKube
from tests.unit.lcm.fixtures import NOOP_VIM
from tests.unit.lcm.fixtures import SAMPLES
from tests.unit.lcm.fixtures import conf  # noqa: F401
from tests.unit.lcm.fixtures import db_url  # noqa: F401
from tests.unit.lcm.fixtures import instantiate_params
from tests.unit.lcm.fixtures import new_instance
from tests.unit.lcm.fixtures import onboarded_csar
from tests.unit.lcm.fixtures import run_op
from tests.unit.lcm.fixtures import user_retries
from vnfm.common import crypto
from vnfm.csar.build import build_csar
from vnfm.db import api as db
from vnfm.db import registry
from vnfm.drivers.infra import base as infra_base
from vnfm.drivers.infra.noop.driver import NoopInfraDriver
from vnfm.drivers.infra.registry import InfraDrivers
from vnfm.drivers.mgmt.kubernetes_cluster import driver
from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.drivers.mgmt.runner import MgmtRunner
from vnfm.lcm.driver import LcmDriver
from vnfm_testbed.sshd import LoopbackSshd

HOOKS = ('instantiate_end', 'terminate_start', 'terminate_end')


def cluster_package(tmp_path: Path, script: bytes) -> dict:
    """The noop sample with its hooks run by kubernetes_cluster."""
    src = tmp_path / 'pkg'
    shutil.copytree(Path(SAMPLES) / 'noop_vnf', src)
    flavour = src / 'Definitions' / 'noop_df_simple.yaml'
    text = flavour.read_text()
    start = text.index('        Vnflcm:')
    end = text.index('\n    VDU1:')
    hooks = ''.join(
        f'          {h}:\n            implementation: cluster\n' for h in HOOKS
    )
    text = (
        text[:start]
        + '        Vnflcm:\n'
        + hooks
        + '      artifacts:\n        cluster:\n'
        + '          type: vnfm.artifacts.BuiltinMgmtDriver\n'
        + '          file: kubernetes_cluster\n'
        + text[end:]
    )
    flavour.write_text(text)
    (src / 'Scripts' / 'install_k8s_cluster.sh').write_bytes(script)
    return onboarded_csar(build_csar(str(src)))


class VmInfra(NoopInfraDriver):
    """The noop driver reporting a master and a worker VM with CPs."""

    def instantiate(self, ctx: infra_base.InfraContext) -> Any:
        result = super().instantiate(ctx)
        info = dict(result.instantiated_vnf_info or {})
        info['vnfcResourceInfo'] = [
            vm('m1', 'masterNode', '198.18.0.11'),
            vm('w1', 'w', '198.18.0.21'),
        ]
        result.instantiated_vnf_info = info
        return result


def cluster_lcm(server: LoopbackSshd) -> LcmDriver:
    # The recording script installs nothing: the cluster's API is a fake
    # with a Node of each VM, as kubeadm would have registered them.
    kube = FakeKube(
        {
            'master-198-18-0-11': '198.18.0.11',
            'worker-198-18-0-21': '198.18.0.21',
        },
        [],
    )
    cluster = driver.KubernetesClusterDriver(
        port=server.port, policy=LOOPBACK, kube_client=lambda vim: kube
    )
    return LcmDriver(
        'c1',
        InfraDrivers({'noop': VmInfra()}),
        MgmtRunner({'kubernetes_cluster': cluster}),
    )


def test_cluster_registered_refused_while_used_then_unregistered(
    db_url: str,  # noqa: F811
    sudo_sshd: LoopbackSshd,
    tmp_path: Path,
) -> None:
    tmp_path.chmod(0o755)
    log = tmp_path / 'actions.log'
    package = cluster_package(tmp_path, fake_script(log, tmp_path / 'none'))
    lcm = cluster_lcm(sudo_sshd)
    inst = new_instance(package, project_id='p1')

    op = run_op(
        lcm,
        inst,
        'INSTANTIATE',
        instantiate_params(additionalParams=params(sudo_sshd)),
    )

    assert op['operation_state'] == 'COMPLETED', op['error']
    assert len(log.read_text().splitlines()) == 6
    vim_id = driver.vim_id_of(inst['id'])
    inst = _assert_the_vim_registered_with_its_token_sealed(inst, op, vim_id)

    cnf = new_instance(
        package,
        vim_connection_info={'k8s': {'vimId': vim_id}},
        instantiation_state='INSTANTIATED',
        vnf_instance_name='web',
        project_id='p1',
    )
    op = run_op(lcm, inst, 'TERMINATE', {'terminationType': 'FORCEFUL'})

    assert op['operation_state'] == 'FAILED_TEMP'
    assert f'{cnf["id"]} (web)' in op['error']['detail']
    assert registry.vim_get(vim_id)

    db.instance_update(cnf['id'], {'instantiation_state': 'NOT_INSTANTIATED'})
    user_retries(op['id'])
    lcm.start(op['id'])

    assert db.op_get(op['id'])['operation_state'] == 'COMPLETED'
    assert registry.vim_list({'id': vim_id}) == []
    inst = db.instance_get(inst['id'])
    assert 'kubernetes_cluster' not in inst['vim_connection_info']
    assert (
        NOOP_VIM['vim1']['vimId']
        == inst['vim_connection_info']['vim1']['vimId']
    )


def _assert_the_vim_registered_with_its_token_sealed(
    inst: dict, op: dict, vim_id: str
) -> dict:
    """The instance as stored, after checking the VIM vnfm registered in
    its project, its token only sealed, and the VMs' host keys kept."""
    row = registry.vim_get(vim_id)
    assert (row['name'], row['project_id']) == ('kubernetes_vim', 'p1')
    inst = db.instance_get(inst['id'])
    stored = inst['vim_connection_info']
    assert 'sa-token-1' not in repr(stored) + repr(op['work'])
    clear = crypto.unseal_vim_connection_info(stored)
    assert clear['kubernetes_cluster']['accessInfo'] == {
        'bearer_token': 'sa-token-1'
    }
    assert sorted(inst['metadata'][hostkeys.METADATA_KEY]) == [
        'server-m1',
        'server-w1',
    ]
    return inst
