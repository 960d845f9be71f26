"""The container_update MgmtDriver's hooks on a ConfigMap-only update,
against a recording stand-in for the cluster: the VIM the instance runs
on, one LIST per kind by the instance's label, a dry run that changes
nothing, the content recorded before it is overwritten, and a rollback
with nothing recorded that does nothing (workload restarts:
tests/integration/container_update)."""

from __future__ import annotations

import time
from typing import Any

import pytest
import yaml

from vnfm.clients import kubernetes as k8s
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.container_update import driver
from vnfm.drivers.mgmt.container_update import manifests
from vnfm.drivers.package_files import PackageFiles

Obj = dict[str, Any]
IID = 'inst-1'
APP = 'Files/kubernetes/app.yaml'
K8S_VIM = {'vimType': k8s.VIM_TYPE, 'interfaceInfo': {'endpoint': 'k'}}
OTHER_VIM = {'vimType': k8s.VIM_TYPE, 'interfaceInfo': {'endpoint': 'o'}}


def _config(mode: str) -> Obj:
    return {
        'apiVersion': 'v1',
        'kind': 'ConfigMap',
        'metadata': {'name': 'settings', 'namespace': 'cnf'},
        'data': {'mode': mode},
    }


def _package(package_id: str, mode: str) -> PackageFiles:
    return PackageFiles(
        package_id, {APP: yaml.safe_dump(_config(mode)).encode()}
    )


class FakeKube:
    """The live objects; records LISTs and patches."""

    def __init__(self, vim: Obj) -> None:
        self.vim = vim
        self.requests = 0
        self.calls: list[tuple] = []
        live = _config('old')
        live['metadata']['labels'] = {k8s.INSTANCE_LABEL: IID}
        self.live = [live]

    def __enter__(self) -> FakeKube:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def list(self, api_version, kind, ns, selector) -> tuple[list[Obj], str]:
        self.requests += 1
        self.calls.append(('list', api_version, kind, ns, selector))
        return [o for o in self.live if o['kind'] == kind], '1'

    def patch(self, api_version, kind, name, ns, body) -> Obj:
        self.requests += 1
        self.calls.append(('patch', kind, name, body))
        return {}


@pytest.fixture
def clusters(monkeypatch: pytest.MonkeyPatch) -> list[FakeKube]:
    made: list[FakeKube] = []

    def client(vim: Obj) -> FakeKube:
        made.append(FakeKube(vim))
        return made[-1]

    monkeypatch.setattr(k8s, 'KubeClient', client)
    return made


def _ctx(
    request: Obj | None = None, work: Obj | None = None
) -> base.HookContext:
    vnfc = {
        'id': 'c1',
        'vduId': 'VDU1',
        'computeResource': {
            'vimConnectionId': 'vim-k',
            'resourceId': 'web-0',
            'vimLevelResourceType': 'Deployment',
        },
    }
    info = {
        'vnfcResourceInfo': [vnfc],
        'vnfcInfo': [
            {'id': 'VDU1-c1', 'vduId': 'VDU1', 'vnfcResourceInfoId': 'c1'}
        ],
        'metadata': {'namespace': 'cnf', manifests.DEF_FILES: [APP]},
    }
    return base.HookContext(
        hook='modify_information_end',
        operation='MODIFY_INFO',
        vnf_instance={'id': IID, 'instantiatedVnfInfo': info},
        vnf_lcm_op_occ={},
        request={'vnfdId': 'vnfd-2', **(request or {})},
        vim_connection_info={'vim-o': OTHER_VIM, 'vim-k': K8S_VIM},
        vnfd={},
        package=_package('pkg-2', 'new'),
        definition={},
        deadline=time.monotonic() + 60,
        source_package=_package('pkg-1', 'old'),
        work=dict(work or {}),
    )


def test_the_vim_is_the_one_the_vnfcs_run_on() -> None:
    ctx = _ctx()
    assert driver.vim_of(ctx) is K8S_VIM
    ctx.vnf_instance['instantiatedVnfInfo']['vnfcResourceInfo'] = []
    assert driver.vim_of(ctx) is OTHER_VIM  # else the first Kubernetes one
    ctx.vim_connection_info = {
        'v': {'vimType': 'ETSINFV.OPENSTACK_KEYSTONE.V_3'}
    }
    with pytest.raises(manifests.BadUpdate) as e:
        driver.vim_of(ctx)
    assert str(e.value) == (
        'modify_information_end: the VNF instance has no Kubernetes '
        f'vimConnectionInfo ({k8s.VIM_TYPE}).'
    )


def test_a_dry_run_reports_and_changes_nothing(
    clusters: list[FakeKube],
) -> None:
    ctx = _ctx({'metadata': {'vnfm_dry_run': True}})

    result = driver.ContainerUpdateDriver().modify_information_end(ctx)

    [kube] = clusters
    assert kube.vim is K8S_VIM
    # One LIST per kind, in the instance's namespace, by its label.
    assert kube.calls == [
        ('list', version, kind, 'cnf', f'{k8s.INSTANCE_LABEL}={IID}')
        for version, kind in (
            ('v1', 'ConfigMap'),
            ('v1', 'Pod'),
            ('apps/v1', 'ReplicaSet'),
        )
    ]
    assert result.changes == {
        'changedInfo': {
            'metadata': {
                driver.REPORT: {
                    'configMapsAndSecrets': [
                        {
                            'kind': 'ConfigMap',
                            'namespace': 'cnf',
                            'name': 'settings',
                            'action': 'patch',
                        }
                    ],
                    'workloads': [],
                    'notes': [],
                    'dryRun': True,
                }
            }
        }
    }
    assert ctx.work == {}


def test_the_content_is_recorded_before_it_is_replaced(
    clusters: list[FakeKube],
) -> None:
    saved: list[tuple[Obj, int]] = []
    ctx = _ctx()

    def persist() -> None:
        patches = [c for c in clusters[0].calls if c[0] == 'patch']
        saved.append((dict(ctx.work), len(patches)))

    ctx.persist = persist

    result = driver.ContainerUpdateDriver().modify_information_end(ctx)

    [kube] = clusters
    assert kube.calls[-1] == (
        'patch',
        'ConfigMap',
        'settings',
        {'data': {'mode': 'new'}},
    )
    [(work, patches_then)] = saved
    assert work and patches_then == 0  # persisted before the patch
    report = result.changes['changedInfo']['metadata'][driver.REPORT]
    assert report['kubernetesRequests'] == 4
    assert 'dryRun' not in report
    # No Pod restarted: the VNFCs are as they were.
    info = result.changes['instantiatedVnfInfo']
    assert [e['id'] for e in info['vnfcResourceInfo']] == ['c1']
    assert 'resourceChanges' not in result.changes


def test_a_rollback_with_nothing_recorded_does_nothing(
    clusters: list[FakeKube],
) -> None:
    result = driver.ContainerUpdateDriver().rollback_modify_information_end(
        _ctx()
    )
    assert result.changes == base.HookResult().changes
    assert clusters == []
