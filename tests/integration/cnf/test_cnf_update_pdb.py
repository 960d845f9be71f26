"""Seed 003's update while a PodDisruptionBudget forbids restarting the
bare Pod env-test: ``openstack vnflcm op show`` tells the operator what the
op waits for, and the op completes once the budget allows the eviction.

The budget is real (kube-controller-manager's disruption controller keeps
its status); the conductor's eviction deadline is the default (minutes),
so the test lifts the budget itself rather than waiting for it.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from ..conftest import wait_for
from .test_cnf_update import CONFIG_PATHS
from .test_cnf_update import Cnf

pytestmark = pytest.mark.timeout(240)
PDB = 'keep-env-test'


def _budget_computed(cnf: Cnf) -> bool:
    pdb = cnf.kubectl.json(
        'get', 'poddisruptionbudget', PDB, '-n', cnf.namespace
    )
    st = pdb.get('status') or {}
    return st.get('currentHealthy') == 1 and st.get(
        'observedGeneration'
    ) == pdb['metadata'].get('generation')


def test_blocked_eviction_is_shown_by_op_show(
    cnf_client,
    cnf_api,
    kubectl,
    namespace,
    update_pkgs: dict,
    k8s_vim: str,
    tmp_path: Path,
) -> None:
    v1, v2 = (update_pkgs[n]['vnfdId'] for n in ('v1', 'v2'))
    cnf = Cnf(cnf_client, cnf_api, kubectl, namespace, tmp_path)
    cnf.instantiate(v1, k8s_vim)
    _budget_allowing_no_eviction(cnf, kubectl, namespace)
    op_id = _start_update_to(cnf, cnf_client, v2, tmp_path)

    def warnings() -> list | None:
        shown = cnf_client.lcm_json('op', 'show', op_id)
        # STARTING until the conductor claims it; never further.
        assert shown['Operation State'] in ('STARTING', 'PROCESSING'), shown
        return shown.get('warnings')

    shown = wait_for(warnings, 60, 'op show to name the blocked eviction')
    assert shown[0].startswith(
        f'waiting for eviction of Pod {namespace}/env-test, blocked by '
        f'PodDisruptionBudget {namespace}/{PDB} ('
    ), shown

    kubectl.run('delete', 'poddisruptionbudget', PDB, '-n', namespace)
    cnf_api.wait_op(op_id, 'COMPLETED', timeout=60)
    assert 'warnings' not in cnf_client.lcm_json('op', 'show', op_id)


def _budget_allowing_no_eviction(cnf: Cnf, kubectl, namespace: str) -> None:
    """PDB ``PDB``: min 1 available of app=env-test (its one Pod), once
    its status is computed."""
    kubectl.run(
        'create',
        'poddisruptionbudget',
        PDB,
        '-n',
        namespace,
        '--selector',
        'app=env-test',
        '--min-available',
        '1',
    )
    wait_for(lambda: _budget_computed(cnf), 30, 'the PDB status')


def _start_update_to(
    cnf: Cnf, cnf_client, vnfd_id: str, tmp_path: Path
) -> str:
    """Start ``vnflcm update`` to ``vnfd_id`` with the config paths; its
    op id."""
    body = tmp_path / f'{uuid.uuid4().hex}.json'
    body.write_text(
        json.dumps(
            {
                'vnfdId': vnfd_id,
                'metadata': {'configmap_secret_paths': CONFIG_PATHS},
            }
        )
    )
    seen = cnf.op_ids()
    cnf_client.lcm('update', cnf.inst_id, '--I', str(body))
    (op_id,) = cnf.op_ids() - seen
    return op_id
