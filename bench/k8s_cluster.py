"""Benchmark: a Kubernetes cluster VNF (seed 002) on the local OpenStack,
through the whole API path (vnfm-api + one vnfm-conductor with the
OpenStack and Kubernetes infra drivers, RabbitMQ, PostgreSQL), with the
vm_k8s_cluster test package (one master, one worker; the install script
starts the real control plane in the master VM and a simulated kubelet in
the worker VM).

For each round, instantiate broken down: Heat (the op's start to the stack
CREATE_COMPLETE, seen by this process polling Heat every 10 ms; vnfm's work
before the stack create is counted here), the SSH logins and the install
script's actions (the times the MgmtDriver keeps with the op), and vnfm's
own time after Heat (the rest; target <= 1 s); the SSH
connections per hook (one per VM is the design); the scale out of one
worker end to end (the op's start to COMPLETED) with its script time.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from _harness import Client
from _harness import create_instance
from _harness import emit
from _harness import epoch
from _harness import onboard
from _harness import run_op
from heatclient import client as heat_client  # noqa: E402
from openstack_lcm import StackWatch
from openstack_lcm import _register_vim

from vnfm.csar.build import build_csar  # noqa: E402
from vnfm_testbed.openstack import k8s_cluster_sample
from vnfm_testbed.openstack.cloud import LocalCloud  # noqa: E402
from vnfm_testbed.procs import VnfmServices  # noqa: E402


def _hook_work(svc: VnfmServices, op_id: str, hook: str) -> dict[str, Any]:
    """What the MgmtDriver kept in the op's work for ``hook``."""
    rows = svc.sql('SELECT work FROM vnf_lcm_op_occs WHERE id = %s', (op_id,))
    work = rows[0][0] if rows else None
    if isinstance(work, str):
        work = json.loads(work)
    steps = (work or {}).get('steps') or {}
    return (steps.get(hook) or {}).get('work') or {}


def _breakdown(work: dict[str, Any]) -> dict[str, Any]:
    logins = work.get('ssh_logins') or []
    scripts = work.get('script_seconds') or {}
    return {
        'ssh_connections': len(logins),
        'ssh_login_s': round(sum(s for _, s in logins), 3),
        'script_s': round(sum(scripts.values()), 3),
        'script_by_action_s': scripts,
    }


def _instantiate(
    client: Client,
    svc: VnfmServices,
    heat: heat_client.Client,
    vnfd_id: str,
    vim_id: str,
    name: str,
) -> tuple[str, dict[str, Any]]:
    inst = create_instance(client, vnfd_id)
    watch = StackWatch(heat, f'vnf-{inst}', 'CREATE_COMPLETE')
    watch.start()
    try:
        op = run_op(
            client,
            inst,
            'instantiate',
            k8s_cluster_sample.instantiate_request(vim_id, name),
        )
    finally:
        watch.join(30)
        watch.stop = True
    if watch.seen is None:
        raise RuntimeError(f'never saw the stack of {inst} CREATE_COMPLETE')
    start = epoch(op['startTime'])
    total = op['_completed'] - start
    heat_s = watch.seen - start
    figures = _breakdown(_hook_work(svc, op['id'], 'instantiate_end'))
    vnfm_s = total - heat_s - figures['ssh_login_s'] - figures['script_s']
    return inst, {
        'total_s': round(total, 3),
        'heat_s': round(heat_s, 3),
        **figures,
        'vnfm_own_s': round(vnfm_s, 3),
    }


def _scale_out(client: Client, svc: VnfmServices, inst: str) -> dict[str, Any]:
    body = {
        'type': 'SCALE_OUT',
        'aspectId': k8s_cluster_sample.WORKER_ASPECT,
    }
    op = run_op(client, inst, 'scale', body)
    total = op['_completed'] - epoch(op['startTime'])
    return {
        'total_s': round(total, 3),
        **_breakdown(_hook_work(svc, op['id'], 'scale_end')),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--rounds', type=int, default=2)
    args = parser.parse_args()
    state = Path(tempfile.mkdtemp(prefix='vnfm-bench-k8s-cluster-'))
    cloud = LocalCloud(state / 'cloud', name='benchk8s', die_with_parent=True)
    svc = VnfmServices(
        state / 'vnfm',
        conf={'infra': {'enabled_infra_drivers': 'openstack,kubernetes'}},
    )
    try:
        cloud.start(timeout=600)
        svc.start(conductors=1)
        client = Client(svc.api_url)
        vim_id = _register_vim(client, cloud)
        source = k8s_cluster_sample.package_source(state / 'pkg')
        onboard(client, build_csar(str(source)), timeout=60)
        vnfd_id = client.json('GET', '/vnfpkgm/v1/vnf_packages')[0]['vnfdId']
        heat = heat_client.Client('1', session=cloud.session('demo'))
        rounds = []
        for i in range(args.rounds):
            inst, figures = _instantiate(
                client, svc, heat, vnfd_id, vim_id, f'bench-k8s-{i}'
            )
            figures = {
                'instantiate': figures,
                'scale_out_one_worker': _scale_out(client, svc, inst),
            }
            run_op(client, inst, 'terminate', {'terminationType': 'FORCEFUL'})
            rounds.append(figures)
        emit(
            {
                'sample': 'vm_k8s_cluster: 1 master + 1 worker VM '
                '(AutoScalingGroups), control plane in the master VM, '
                'simulated kubelet per worker',
                'rounds': rounds,
                'target_vnfm_own_s': 1.0,
            }
        )
    except BaseException:
        print(svc.log_tails(), file=sys.stderr)
        raise
    finally:
        svc.stop()
        cloud.stop()
        shutil.rmtree(state, ignore_errors=True)


if __name__ == '__main__':
    main()
