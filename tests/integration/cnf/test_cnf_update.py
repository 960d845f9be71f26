"""Seed 003 (CNF update with the container-update MgmtDriver) end to end
through the real client: ``openstack vnf package create/upload`` of
cnf_update_v1 and v2, ``openstack --os-tacker-api-version 2 vnflcm
create/instantiate/update/op show/op rollback`` against vnfm-api +
vnfm-conductor and the local Kubernetes control plane, checked with
kubectl.

Seed 003: after the update only the Pods whose ConfigMap/Secret or image
changed restart (env-test, volume-test, and the Pods of vdu1-update,
vdu2-update and daemonset-vdu5); env-test2, volume-test2 and
deployment2-vdu6 keep running.

Each client call costs seconds, so one instance walks the steps: a dry run,
a failed update (v3: v2 with an image that cannot be pulled) and its
rollback, then the update to v2. Set-up, polling and clean-up that the
scenario does not name go through raw HTTP.
"""

from __future__ import annotations

import base64
import uuid
from pathlib import Path
from typing import Any

import pytest

from vnfm_testbed.demo import seed003

from ..conftest import Api
from .conftest import K8S_VIM_TYPE
from .conftest import CnfInstance
from .conftest import pods_of
from .conftest import vnfcs_of
from .conftest import write_json

pytestmark = pytest.mark.timeout(180)

DEF_FILES = seed003.DEF_FILES
CONFIG_PATHS = seed003.CONFIG_PATHS
RESTARTED = {
    'env-test',
    'volume-test',
    'vdu1-update',
    'vdu2-update',
    'daemonset-vdu5',
}
KEPT = {'env-test2', 'volume-test2', 'deployment2-vdu6'}
VDU_OF = {
    'vdu1-update': 'VDU1',
    'vdu2-update': 'VDU2',
    'env-test': 'VDU3',
    'volume-test': 'VDU4',
    'daemonset-vdu5': 'VDU5',
    'deployment2-vdu6': 'VDU6',
    'env-test2': 'VDU7',
    'volume-test2': 'VDU8',
}
V1_IMAGES = dict.fromkeys(VDU_OF, 'nginx')
V2_IMAGES = {
    **V1_IMAGES,
    'vdu1-update': 'cirros',
    'env-test': 'tomcat',
    'volume-test': 'cirros',
    'daemonset-vdu5': 'cirros',
    'vdu2-update': 'celebdor/kuryr-demo',
}
V1_CM = 'configmap data\nfoo\nbar\n'
V2_CM = 'configmap2 data2\nfoo2\nbar2\n'
REPORT = 'vnfm_container_update'
Obj = dict[str, Any]


class Cnf(CnfInstance):
    """A seed 003 instance and what reaches it."""

    def op_ids(self) -> set[str]:
        """Ids of the instance's op occurrences."""
        return {
            o['id']
            for o in self.api.ok(
                'GET',
                '/vnf_lcm_op_occs',
                200,
                params={'filter': f'(eq,vnfInstanceId,{self.inst_id})'},
            ).json()
        }

    def lcm(self, state: str, *args: str) -> tuple[str, str]:
        """``openstack vnflcm <args>``; (the id of the op it started, once
        in ``state``; what the client printed)."""
        seen = self.op_ids()
        out = self.client.lcm(*args)
        (op_id,) = self.op_ids() - seen
        self.api.wait_op(op_id, state, timeout=60)
        return op_id, out

    def instantiate(self, vnfd_id: str, vim_id: str) -> None:
        """``vnflcm create`` and ``vnflcm instantiate`` of seed 003."""
        self.inst_id = self.client.lcm_json(
            'create', vnfd_id, '--name', 'seed003'
        )['ID']
        body = {
            'flavourId': 'simple',
            'vimConnectionInfo': {
                'vim1': {'vimId': vim_id, 'vimType': K8S_VIM_TYPE}
            },
            'additionalParams': {
                'lcm-kubernetes-def-files': DEF_FILES,
                'namespace': self.namespace,
            },
        }
        self.lcm(
            'COMPLETED',
            'instantiate',
            self.inst_id,
            write_json(self.tmp_path, 'inst.json', body),
        )

    def update(self, state: str, body: Obj) -> Obj:
        """``vnflcm update --I``; its op as ``vnflcm op show`` shows it."""
        path = write_json(self.tmp_path, f'{uuid.uuid4().hex}.json', body)
        op_id, out = self.lcm(state, 'update', self.inst_id, '--I', path)
        assert f'Update vnf:{self.inst_id}' in out
        return self.client.lcm_json('op', 'show', op_id)

    def uids(self) -> dict[str, set[str]]:
        """Workload name -> uids of its live Pods."""
        out: dict[str, set[str]] = {}
        for p in self.kubectl.json(
            'get',
            'pods',
            '-n',
            self.namespace,
            '-l',
            f'vnfm.io/vnf-instance-id={self.inst_id}',
        )['items']:
            if not p['metadata'].get('deletionTimestamp'):
                out.setdefault(p['metadata']['labels']['app'], set()).add(
                    p['metadata']['uid']
                )
        return out

    def images(self) -> dict[str, str]:
        """Workload name -> the image its Pod template (or Pod) names;
        checks every live Pod of the workload runs that image."""
        out, running = {}, {}
        for o in self.kubectl.json(
            'get',
            'deployments,replicasets,daemonsets,pods',
            '-n',
            self.namespace,
            '-l',
            f'vnfm.io/vnf-instance-id={self.inst_id}',
        )['items']:
            meta, spec = o['metadata'], o['spec']
            if meta['name'] in VDU_OF:
                pod_spec = spec.get('template', {}).get('spec') or spec
                out[meta['name']] = pod_spec['containers'][0]['image']
            if o['kind'] == 'Pod' and not meta.get('deletionTimestamp'):
                running.setdefault(meta['labels']['app'], set()).add(
                    spec['containers'][0]['image']
                )
        assert running == {w: {i} for w, i in out.items()}, running
        return out

    def config(self, kind: str, name: str, key: str) -> str:
        """One key of a ConfigMap or Secret (a Secret's decoded)."""
        data = self.kubectl.json('get', kind, name, '-n', self.namespace)[
            'data'
        ]
        return (
            base64.b64decode(data[key]).decode()
            if kind == 'secret'
            else data[key]
        )


def _dry_run_changes_nothing(cnf: Cnf, v1: str, v2: str) -> None:
    uids, inst = cnf.uids(), cnf.instance()
    op = cnf.update(
        'COMPLETED',
        {
            'vnfdId': v2,
            'metadata': {
                'configmap_secret_paths': CONFIG_PATHS,
                'vnfm_dry_run': True,
            },
        },
    )

    assert cnf.uids() == uids
    assert cnf.instance() == inst
    assert inst['vnfdId'] == v1
    assert cnf.config('configmap', 'cm-data', 'cmKey1.txt') == V1_CM
    assert cnf.images() == V1_IMAGES
    report = op['Changed Info']['metadata'][REPORT]
    assert report['dryRun'] is True
    assert [c['name'] for c in report['configMapsAndSecrets']] == [
        'cm-data',
        'secret-data',
    ]
    assert {w['name'] for w in report['workloads']} == RESTARTED
    assert not op.get('Resource Changes')


def _failed_update_rolls_back(cnf: Cnf, v1: str, v3: str) -> None:
    before = cnf.instance()
    op = cnf.update(
        'FAILED_TEMP',
        {
            'vnfdId': v3,
            'vnfInstanceName': 'modify_vnf_after',
            'metadata': {'configmap_secret_paths': CONFIG_PATHS},
        },
    )

    detail = op['Error']['detail']
    assert 'Pod vdu1-update-' in detail, detail
    assert 'ImagePullBackOff' in detail, detail
    assert cnf.config('configmap', 'cm-data', 'cmKey1.txt') == V2_CM
    assert cnf.api.instance(cnf.inst_id)['vnfdId'] == v1

    cnf.client.lcm('op', 'rollback', op['ID'])
    rolled_back = cnf.api.wait_op(op['ID'], 'ROLLED_BACK', timeout=60)

    assert rolled_back['changedInfo']['metadata'][REPORT]['rolledBack']
    inst = cnf.instance()
    assert inst['vnfdId'] == v1
    assert inst['vnfSoftwareVersion'] == '1.0'
    assert inst['vnfInstanceName'] == 'seed003'
    assert inst.get('metadata') == before.get('metadata')
    assert (
        inst['instantiatedVnfInfo']['metadata']
        == before['instantiatedVnfInfo']['metadata']
    )
    assert set(vnfcs_of(inst)) == set(vnfcs_of(before))
    assert cnf.config('configmap', 'cm-data', 'cmKey1.txt') == V1_CM
    assert cnf.config('secret', 'secret-data', 'password') == (
        '1mbb1G968fb1CUg'
    )
    assert cnf.images() == V1_IMAGES


def _update_restarts_only_what_changed(cnf: Cnf, v2: str) -> None:
    inst = cnf.instance()
    before, vnfcs = cnf.uids(), vnfcs_of(inst)
    assert set(before) == set(VDU_OF)

    # Seed 003's sample_param_file.json.
    op = cnf.update(
        'COMPLETED',
        {
            'vnfdId': v2,
            'vnfInstanceName': 'modify_vnf_after',
            'metadata': {'configmap_secret_paths': CONFIG_PATHS},
        },
    )

    after = cnf.uids()
    assert {w for w in before if not before[w] & after[w]} == RESTARTED
    assert {w for w in before if after[w] == before[w]} == KEPT
    assert cnf.images() == V2_IMAGES
    assert cnf.config('configmap', 'cm-data', 'cmKey1.txt') == V2_CM
    assert cnf.config('configmap', 'cm-data3', 'cmKey1.txt') == V1_CM
    assert cnf.config('secret', 'secret-data', 'password') == (
        '1mbb1G968fb1CUg2'
    )
    assert cnf.config('secret', 'secret-data3', 'password') == (
        '1mbb1G968fb1CUg'
    )
    shown = cnf.client.lcm_json('show', cnf.inst_id)
    assert shown['VNFD ID'] == v2
    assert shown['VNF Software Version'] == '2.0'
    assert shown['VNF Instance Name'] == 'modify_vnf_after'
    assert sorted(pods_of(shown)) == sorted(
        cnf.kubectl.live_pods(cnf.namespace, cnf.inst_id)
    )
    now = vnfcs_of(shown)
    assert set(now) == set(vnfcs)  # VNFC ids kept
    kept = {i for w in KEPT for i in vnfcs_of(shown, VDU_OF[w])}
    assert kept and {i: now[i] for i in kept} == {i: vnfcs[i] for i in kept}

    assert op['Changed Info']['vnfdId'] == v2
    report = op['Changed Info']['metadata'][REPORT]
    assert [
        (c['kind'], c['name']) for c in report['configMapsAndSecrets']
    ] == [('ConfigMap', 'cm-data'), ('Secret', 'secret-data')]
    assert {w['name']: w['restartedPods'] for w in report['workloads']} == {
        w: list(vnfcs_of(inst, VDU_OF[w]).values()) for w in RESTARTED
    }
    affected = op['Resource Changes']['affectedVnfcs']
    assert {a['vduId'] for a in affected} == {VDU_OF[w] for w in RESTARTED}
    for a in affected:
        assert a['changeType'] == 'MODIFIED'
        assert a['metadata']['previousResourceId'] == vnfcs[a['id']]
        assert a['computeResource']['resourceId'] == now[a['id']]


def _usage(api: Api, pkg: Obj) -> str:
    return api.request(
        'GET', f'/vnfpkgm/v1/vnf_packages/{pkg["id"]}', version=None
    ).json()['usageState']


def test_seed003_update_through_the_client(
    cnf_client,
    cnf_api,
    kubectl,
    namespace,
    update_pkgs: dict[str, Obj],
    k8s_vim: str,
    tmp_path: Path,
) -> None:
    v1, v2, v3 = (update_pkgs[n]['vnfdId'] for n in ('v1', 'v2', 'v3'))
    cnf = Cnf(cnf_client, cnf_api, kubectl, namespace, tmp_path)
    cnf.instantiate(v1, k8s_vim)
    assert cnf.images() == V1_IMAGES

    _dry_run_changes_nothing(cnf, v1, v2)
    assert _usage(cnf_api, update_pkgs['v2']) == 'NOT_IN_USE'
    _failed_update_rolls_back(cnf, v1, v3)
    assert _usage(cnf_api, update_pkgs['v3']) == 'NOT_IN_USE'
    _update_restarts_only_what_changed(cnf, v2)
    assert _usage(cnf_api, update_pkgs['v1']) == 'NOT_IN_USE'
    assert _usage(cnf_api, update_pkgs['v2']) == 'IN_USE'

    cnf_api.wait_op(
        cnf_api.start(
            cnf.inst_id, 'terminate', {'terminationType': 'FORCEFUL'}
        ),
        'COMPLETED',
        timeout=60,
    )
    cnf_api.ok('DELETE', f'/vnf_instances/{cnf.inst_id}', 204)
