"""Benchmark: VM VNF instantiate and terminate through the whole API path
(vnfm-api + one vnfm-conductor with the OpenStack infra driver, RabbitMQ,
PostgreSQL) on the local OpenStack (real Keystone and Heat), with the
vm_simple sample (Tacker v2 package layout).

For each round: the time from the moment the stack is CREATE_COMPLETE in
Heat (seen by this process polling Heat every 10 ms) to the op's COMPLETED
(its stateEnteredTime, the conductor's commit), and from the stack gone to
terminate COMPLETED; and the Keystone and Heat requests the driver made
in each op (from the op's work). Tacker waits on Heat in fixed steps
(target: <= 0.5 s p50).

Each round also scales VDU1 out by one VM and back in. For those, Heat's
own time is from the stack first seen UPDATE_IN_PROGRESS to UPDATE_COMPLETE
(polled every 10 ms); vnfm's own time is the rest of the op, from the POST
to its COMPLETED: the part before Heat starts (API, RPC, grant, Keystone,
the stack's input and the update request) and the part after (noticing the
end, reading the resources back, committing). Prints one JSON object.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from _harness import Client
from _harness import create_instance
from _harness import emit
from _harness import onboard
from _harness import percentiles
from _harness import run_op
from heatclient import client as heat_client  # noqa: E402
from heatclient import exc as heat_exc  # noqa: E402

from vnfm.csar.build import build_csar  # noqa: E402
from vnfm_testbed.openstack import vmsample
from vnfm_testbed.openstack.cloud import LocalCloud  # noqa: E402
from vnfm_testbed.procs import VnfmServices  # noqa: E402

POLL = 0.01


def _register_vim(client: Client, cloud: LocalCloud) -> str:
    creds = cloud.credentials('demo')
    body = {
        'vim': {
            'name': 'bench-os',
            'type': 'openstack',
            'auth_url': creds['auth_url'],
            'vim_project': {
                'name': creds['project_name'],
                'project_domain_name': 'Default',
            },
            'auth_cred': {
                'username': creds['username'],
                'password': creds['password'],
                'user_domain_name': 'Default',
                'cert_verify': 'True',
            },
        }
    }
    return client.json('POST', '/v1.0/vims', body, expect=201)['vim']['id']


class StackWatch(threading.Thread):
    """Polls one stack until it reaches ``status`` (or is gone, for
    DELETE_COMPLETE); ``seen`` is when this process saw it."""

    def __init__(self, heat: heat_client.Client, name: str, status: str):
        super().__init__(daemon=True)
        self.heat, self.name, self.status = heat, name, status
        self.seen: float | None = None
        self.stop = False

    def run(self) -> None:
        while not self.stop:
            try:
                now = self.heat.stacks.get(self.name).stack_status
            except heat_exc.HTTPNotFound:
                now = (
                    'DELETE_COMPLETE'
                    if self.status.startswith('DELETE')
                    else ''
                )
            if now == self.status:
                self.seen = time.time()
                return
            time.sleep(POLL)


class PhaseWatch(threading.Thread):
    """Polls one stack: ``started`` is when this process first saw it
    ``<action>_IN_PROGRESS``, ``ended`` when it then saw it leave that."""

    def __init__(self, heat: heat_client.Client, name: str, action: str):
        super().__init__(daemon=True)
        self.heat, self.name, self.action = heat, name, action
        self.started: float | None = None
        self.ended: float | None = None
        self.stop = False

    def run(self) -> None:
        while not self.stop:
            now = self.heat.stacks.get(self.name).stack_status
            if now == f'{self.action}_IN_PROGRESS' and self.started is None:
                self.started = time.time()
            elif self.started is not None and not now.endswith('PROGRESS'):
                self.ended = time.time()
                return
            time.sleep(POLL)


def _scaled(client: Client, heat, inst: str, kind: str) -> dict[str, float]:
    """One scale of VDU1 by one step: Heat's time and vnfm's (ms)."""
    watch = PhaseWatch(heat, f'vnf-{inst}', 'UPDATE')
    watch.start()
    body = {'type': kind, 'aspectId': 'VDU1_scale', 'numberOfSteps': 1}
    try:
        op = run_op(client, inst, 'scale', body)
    finally:
        watch.join(30)
        watch.stop = True
    if watch.started is None or watch.ended is None:
        raise RuntimeError(f'never saw the {kind} update of {inst}')
    total = op['_completed'] - op['_posted']
    heat_s = watch.ended - watch.started
    return {
        'total': total * 1000,
        'heat': heat_s * 1000,
        'vnfm': (total - heat_s) * 1000,
        'before_heat': (watch.started - op['_posted']) * 1000,
        'after_heat': (op['_completed'] - watch.ended) * 1000,
        'op_id': op['id'],
    }


def _requests(svc: VnfmServices, op_id: str) -> dict | None:
    """Keystone and Heat requests the driver made in the op."""
    rows = svc.sql('SELECT work FROM vnf_lcm_op_occs WHERE id = %s', (op_id,))
    work = rows[0][0] if rows else None
    infra = ((work or {}).get('steps') or {}).get('infra') or {}
    return ((infra.get('result') or {}).get('work') or {}).get('requests')


def _timed(
    client: Client, heat, inst: str, action: str, body: dict, status: str
):
    watch = StackWatch(heat, f'vnf-{inst}', status)
    watch.start()
    try:
        op = run_op(client, inst, action, body)
    finally:
        watch.join(30)
        watch.stop = True
    if watch.seen is None:
        raise RuntimeError(f'never saw the stack of {inst} {status}')
    return op, (op['_completed'] - watch.seen) * 1000


def _split(rounds: list[dict[str, float]]) -> dict[str, dict]:
    """Percentiles of each part of the scale ops' time."""
    parts = ('vnfm', 'before_heat', 'after_heat', 'heat', 'total')
    return {
        f'{part}_ms': percentiles([r[part] for r in rounds]) for part in parts
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args()
    state = Path(tempfile.mkdtemp(prefix='vnfm-bench-os-'))
    cloud = LocalCloud(state / 'cloud', name='bench', die_with_parent=True)
    svc = VnfmServices(
        state / 'vnfm', conf={'infra': {'enabled_infra_drivers': 'openstack'}}
    )
    try:
        cloud.start(timeout=600)
        svc.start(conductors=1)
        client = Client(svc.api_url)
        vim_id = _register_vim(client, cloud)
        _, _ = onboard(client, build_csar(str(vmsample.SAMPLE)), timeout=60)
        vnfd_id = client.json('GET', '/vnfpkgm/v1/vnf_packages')[0]['vnfdId']
        heat = heat_client.Client('1', session=cloud.session('demo'))
        figures: dict[str, list] = {
            'inst': [],
            'term': [],
            'inst_req': [],
            'term_req': [],
            'out': [],
            'in': [],
            'out_req': [],
        }
        for _ in range(args.rounds):
            inst = create_instance(client, vnfd_id)
            op, ms = _timed(
                client,
                heat,
                inst,
                'instantiate',
                vmsample.instantiate_request(vim_id),
                'CREATE_COMPLETE',
            )
            figures['inst'].append(ms)
            figures['inst_req'].append(_requests(svc, op['id']))
            for kind, key in (('SCALE_OUT', 'out'), ('SCALE_IN', 'in')):
                scaled = _scaled(client, heat, inst, kind)
                figures[key].append(scaled)
                if key == 'out':
                    figures['out_req'].append(
                        _requests(svc, str(scaled['op_id']))
                    )
            op, ms = _timed(
                client,
                heat,
                inst,
                'terminate',
                {'terminationType': 'FORCEFUL'},
                'DELETE_COMPLETE',
            )
            figures['term'].append(ms)
            figures['term_req'].append(_requests(svc, op['id']))
        emit(
            {
                'sample': 'vm_simple: 2 VMs (an AutoScalingGroup member '
                'and a server), 3 ports, 1 volume',
                'instantiate_create_complete_to_completed': percentiles(
                    figures['inst']
                ),
                'terminate_stack_gone_to_completed': percentiles(
                    figures['term']
                ),
                'scale_out_one_vm': _split(figures['out']),
                'scale_in_one_vm': _split(figures['in']),
                'scale_out_requests': figures['out_req'],
                'instantiate_requests': figures['inst_req'],
                'terminate_requests': figures['term_req'],
                'poll_interval_ms': POLL * 1000,
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
