"""Benchmark: the Alertmanager receiver (POST /alert) on the real services
(vnfm-api, one conductor, PostgreSQL, RabbitMQ, noop VIM). Prints JSON:

- alert_to_heal_starting: from sending an alert for a VNFC of an instance
  with isAutohealEnabled to its heal op's startTime (the op row is
  STARTING when it is written), per round; each round waits for the heal
  to complete (cool-down 0) and alerts with a new fingerprint.
- receiver_throughput: alerts/s recorded as new alarms, posts of
  ``BATCH`` alerts from ``THREADS`` connections, to an instance without
  auto-heal; a repeat of every post then raises nothing (no duplicate).
"""

from __future__ import annotations

import concurrent.futures
import time

from _harness import V2
from _harness import Client
from _harness import create_instance
from _harness import emit
from _harness import epoch
from _harness import make_package
from _harness import onboard
from _harness import percentiles
from _harness import run_op
from _harness import services

TOKEN = 'bench-alertmanager-token'
BEARER = {'Authorization': f'Bearer {TOKEN}'}
FM = {'Version': '1.3.0'}
INSTANTIATE = {
    'flavourId': 'simple',
    'vimConnectionInfo': {'vim1': {'vimType': 'VNFM.NOOP.V_1'}},
}
ROUNDS = 30
TOTAL, BATCH, THREADS = 5000, 100, 4


def _alert(inst: str, vnfc: str, fingerprint: str) -> dict:
    return {
        'status': 'firing',
        'labels': {
            'alertname': 'VnfcDown',
            'function_type': 'vnffm',
            'vnf_instance_id': inst,
            'vnfc_info_id': vnfc,
            'perceived_severity': 'CRITICAL',
        },
        'annotations': {'probable_cause': 'bench'},
        'startsAt': '2026-11-27T10:00:00Z',
        'fingerprint': fingerprint,
    }


def _post(client: Client, alerts: list[dict]) -> dict:
    return client.json(
        'POST', '/alert', {'version': '4', 'alerts': alerts}, BEARER
    )


def _instance(client: Client, vnfd_id: str, autoheal: bool) -> tuple:
    inst = create_instance(client, vnfd_id)
    run_op(client, inst, 'instantiate', INSTANTIATE)
    if autoheal:
        status, _, data = client.request(
            'PATCH',
            f'/vnflcm/v2/vnf_instances/{inst}',
            {'vnfConfigurableProperties': {'isAutohealEnabled': True}},
            {**V2, 'Content-Type': 'application/merge-patch+json'},
        )
        if status != 202:
            raise RuntimeError(f'PATCH: {status} {data[:300]!r}')
        _wait_idle(client, inst)
    shown = client.json('GET', f'/vnflcm/v2/vnf_instances/{inst}', None, V2)
    return inst, shown['instantiatedVnfInfo']['vnfcInfo'][0]['id']


def _ops(client: Client, inst: str) -> list[dict]:
    return client.json(
        'GET',
        f'/vnflcm/v2/vnf_lcm_op_occs?filter=(eq,vnfInstanceId,{inst})',
        None,
        V2,
    )


def _wait_idle(client: Client, inst: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while any(
        o['operationState'] not in ('COMPLETED', 'FAILED', 'ROLLED_BACK')
        for o in _ops(client, inst)
    ):
        if time.monotonic() > deadline:
            raise RuntimeError(f'{inst}: an op still runs')
        time.sleep(0.01)


def _heal_latency(client: Client, vnfd_id: str) -> dict:
    inst, vnfc = _instance(client, vnfd_id, autoheal=True)
    ms = []
    for i in range(ROUNDS):
        before = {o['id'] for o in _ops(client, inst)}
        sent = time.time()
        _post(client, [_alert(inst, vnfc, f'heal-{i}')])
        [heal] = [o for o in _ops(client, inst) if o['id'] not in before]
        assert heal['operation'] == 'HEAL', heal
        ms.append((epoch(heal['startTime']) - sent) * 1000)
        _wait_idle(client, inst)
    return percentiles(ms)


def _throughput(base_url: str, vnfd_id: str, setup: Client) -> dict:
    inst, vnfc = _instance(setup, vnfd_id, autoheal=False)
    batches = [
        [_alert(inst, vnfc, f'tp-{b}-{j}') for j in range(BATCH)]
        for b in range(TOTAL // BATCH)
    ]
    clients = [Client(base_url) for _ in range(THREADS)]

    def run(round_robin: int) -> int:
        client = clients[round_robin]
        return sum(
            _post(client, batch)['raised']
            for batch in batches[round_robin::THREADS]
        )

    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        start = time.perf_counter()
        raised = sum(pool.map(run, range(THREADS)))
        elapsed = time.perf_counter() - start
        repeated = sum(pool.map(run, range(THREADS)))
    for client in clients:
        client.close()
    if raised != TOTAL or repeated != 0:
        raise RuntimeError(f'raised {raised} of {TOTAL}, then {repeated}')
    return {
        'alerts': TOTAL,
        'alerts_per_post': BATCH,
        'connections': THREADS,
        'seconds': round(elapsed, 2),
        'alerts_per_s': round(TOTAL / elapsed),
        'duplicates_on_repeat': repeated,
    }


def main() -> None:
    """Run the benchmark and print its figures."""
    conf = {
        'fault_management': {
            'receiver_token': TOKEN,
            'autoheal_cooldown': 0,
        },
    }
    with services(conductors=1, conf=conf) as svc:
        client = Client(svc.api_url)
        data, vnfd_id = make_package(hooks=False)
        onboard(client, data)
        emit(
            {
                'alert_to_heal_starting': _heal_latency(client, vnfd_id),
                'receiver_throughput': _throughput(
                    svc.api_url, vnfd_id, client
                ),
            }
        )
        client.close()


if __name__ == '__main__':
    main()
