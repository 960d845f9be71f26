"""Benchmark: 1, 2 and 4 conductors, each on a host of its own (a network
namespace reaching RabbitMQ and PostgreSQL over a bridge), under many VNF
instances and many operations sent at once (noop VIM, the sample hook
script sleeping in instantiate_start). Prints JSON.

Per number of conductors: operations per second (first 202 to last
COMPLETED), p50/p99 from the 202 to the claim (STARTING -> PROCESSING) and
from the op's insert (STARTING) to the claim, and from the claim to
COMPLETED; database statements per op (pg_stat_statements) with the
busiest statements; ops lost (not COMPLETED) or stuck (still owned).
State changes are timed by a trigger the bench adds to its own database.

Environment (the issue's figures are the defaults; scale down on a small
machine): VNFM_BENCH_INSTANCES (10000), VNFM_BENCH_OPS (500),
VNFM_BENCH_CONDUCTORS (1,2,4), VNFM_BENCH_HOOK_SLEEP (seconds, 1.0),
VNFM_BENCH_WORKERS ([conductor] workers, 8). Needs root.
"""

from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
import tempfile
import time
from pathlib import Path

from _harness import _CONDUCTOR_DEFAULTS
from _harness import V2
from _harness import Client
from _harness import create_instance
from _harness import emit
from _harness import make_package
from _harness import onboard
from _harness import percentiles
from _harness import script_sha256

from vnfm_testbed import hostns
from vnfm_testbed import procs

INSTANCES = int(os.environ.get('VNFM_BENCH_INSTANCES', '10000'))
OPS = int(os.environ.get('VNFM_BENCH_OPS', '500'))
CONDUCTORS = [
    int(n) for n in os.environ.get('VNFM_BENCH_CONDUCTORS', '1,2,4').split(',')
]
HOOK_SLEEP = float(os.environ.get('VNFM_BENCH_HOOK_SLEEP', '1.0'))
WORKERS = int(os.environ.get('VNFM_BENCH_WORKERS', '8'))
SENDERS = 8
SWEPT = re.compile(r'Picked up (\d+) unclaimed ops')

# Every change of operation_state, timed by the database's clock.
TRIGGER = """
CREATE TABLE bench_op_states (
    op_id text, state text, at timestamptz DEFAULT clock_timestamp());
CREATE FUNCTION bench_op_state() RETURNS trigger AS $$
BEGIN
    INSERT INTO bench_op_states (op_id, state)
        VALUES (NEW.id, NEW.operation_state);
    RETURN NEW;
END $$ LANGUAGE plpgsql;
CREATE TRIGGER bench_op_state AFTER INSERT OR UPDATE OF operation_state
    ON vnf_lcm_op_occs FOR EACH ROW EXECUTE FUNCTION bench_op_state();
"""


def _clone_instances(svc: procs.VnfmServices, template: str, n: int) -> None:
    """Copy instance ``template`` ``n`` times in the database (the API
    would take minutes for 10,000; the rows are the same)."""
    cols = [
        c
        for (c,) in svc.sql(
            'SELECT column_name FROM information_schema.columns '
            "WHERE table_name = 'vnf_instances' ORDER BY ordinal_position"
        )
        if c != 'id'
    ]
    names = ', '.join(cols)
    svc.sql(
        f'INSERT INTO vnf_instances (id, {names}) '  # nosec B608 - catalog
        f'SELECT gen_random_uuid()::text, {names} FROM vnf_instances, '
        'generate_series(1, %s) WHERE id = %s',
        (n, template),
    )


def _prepare(svc: procs.VnfmServices) -> tuple[str, list[str]]:
    """Onboard the hooked package, make INSTANCES instances; (vnfdId,
    their ids)."""
    client = Client(svc.api_url)
    data, vnfd_id = make_package(hooks=True)
    onboard(client, data)
    template = create_instance(client, vnfd_id)
    client.close()
    _clone_instances(svc, template, INSTANCES - 1)
    svc.sql(TRIGGER)
    insts = [r[0] for r in svc.sql('SELECT id::text FROM vnf_instances')]
    return vnfd_id, insts


def _instantiate(url: str, insts: list[str]) -> dict[str, float]:
    """Instantiate each of ``insts`` from SENDERS threads; {op id: epoch
    of its 202}."""
    body = {
        'flavourId': 'simple',
        'vimConnectionInfo': {'vim1': {'vimType': 'VNFM.NOOP.V_1'}},
        'additionalParams': {'hook_sleep': {'instantiate_start': HOOK_SLEEP}},
    }

    def send(chunk: list[str]) -> dict[str, float]:
        client, out = Client(url), {}
        for inst in chunk:
            status, headers, data = client.request(
                'POST',
                f'/vnflcm/v2/vnf_instances/{inst}/instantiate',
                body,
                V2,
            )
            if status != 202:
                raise RuntimeError(f'instantiate: {status} {data[:300]!r}')
            out[headers['Location'].rsplit('/', 1)[1]] = time.time()
        client.close()
        return out

    chunks = [insts[i::SENDERS] for i in range(SENDERS)]
    accepted: dict[str, float] = {}
    with concurrent.futures.ThreadPoolExecutor(SENDERS) as pool:
        for part in pool.map(send, chunks):
            accepted.update(part)
    return accepted


def _wait_final(svc: procs.VnfmServices, ops: list[str]) -> None:
    # Generous: the slowest run, one conductor, at half its ideal rate.
    timeout = 60 + 2 * len(ops) * (HOOK_SLEEP + 0.5) / WORKERS

    def done() -> bool:
        left = svc.sql(
            'SELECT count(*) FROM vnf_lcm_op_occs WHERE id::text = ANY(%s) '
            "AND operation_state NOT IN ('COMPLETED', 'FAILED_TEMP', "
            "'FAILED', 'ROLLED_BACK')",
            (ops,),
        )[0][0]
        return left == 0

    procs.wait_for(done, timeout, interval=0.5)


def _states(svc: procs.VnfmServices, ops: list[str]) -> dict[str, dict]:
    """{op id: {state: epoch it was entered}}."""
    out: dict[str, dict] = {}
    for op_id, state, at in svc.sql(
        'SELECT op_id::text, state, extract(epoch FROM at) '
        'FROM bench_op_states WHERE op_id::text = ANY(%s)',
        (ops,),
    ):
        out.setdefault(op_id, {})[state] = float(at)
    return out


def _statements(svc: procs.VnfmServices, ops: int) -> dict:
    """Statements per op, claims lost to another conductor (a claim is the
    UPDATE that sets the owner with operation_state), and the five
    statements that took the most time. The bench's own statements (on
    ``id::text``, on bench_op_states) are left out."""
    rows = svc.sql(
        'SELECT calls, rows, total_exec_time, query '
        'FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid '
        "WHERE d.datname = current_database() AND query NOT LIKE '%%bench_%%'"
        " AND query NOT LIKE '%%id::text%%' ORDER BY total_exec_time DESC"
    )
    claims = [
        r
        for r in rows
        if r[3].startswith('UPDATE vnf_lcm_op_occs SET operation_state=')
        and 'owner=' in r[3].split('WHERE')[0]
    ]
    return {
        'statements_per_op': round(sum(r[0] for r in rows) / ops, 1),
        'claims_lost': sum(r[0] - r[1] for r in claims),
        'busiest': [
            {'calls': r[0], 'total_ms': round(r[2]), 'query': r[3][:120]}
            for r in rows[:5]
        ],
        'most_called': [
            {'per_op': round(r[0] / ops, 1), 'query': r[3][:160]}
            for r in sorted(rows, key=lambda r: -r[0])[:8]
        ],
    }


def _cpu_seconds(pid: int) -> tuple[float, float]:
    """(CPU seconds of ``pid``, of its waited-for children: the hooks)."""
    fields = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()
    tick = os.sysconf('SC_CLK_TCK')
    return (
        (int(fields[11]) + int(fields[12])) / tick,
        (int(fields[13]) + int(fields[14])) / tick,
    )


def _cpu(svc: procs.VnfmServices) -> dict[str, float]:
    """CPU seconds so far of the API, the conductors and their hooks."""
    out = {'api': 0.0, 'conductors': 0.0, 'hooks': 0.0}
    for host in svc.conductors():
        own, hooks = _cpu_seconds(svc.pids[host])
        out['conductors'] += own
        out['hooks'] += hooks
    # The API's supervisor and its workers.
    api = [
        svc.pids['api'],
        *(p.pid for p in procs.descendants(svc.pids['api'])),
    ]
    out['api'] = sum(_cpu_seconds(pid)[0] for pid in api)
    return out


def _swept(svc: procs.VnfmServices) -> int:
    """Ops the running conductors' sweeps queued (each time counted)."""
    return sum(
        int(n)
        for host in svc.conductors()
        for n in SWEPT.findall(svc.logs[host].read_text())
    )


def _measure(svc: procs.VnfmServices, insts: list[str]) -> dict:
    svc.sql('SELECT pg_stat_statements_reset()')
    cpu_before = _cpu(svc)
    accepted = _instantiate(svc.api_url, insts)
    ops = list(accepted)
    _wait_final(svc, ops)
    cpu = {
        k: round((v - cpu_before[k]) * 1000 / len(ops), 1)
        for k, v in _cpu(svc).items()
    }
    figures = _statements(svc, len(ops))
    states = _states(svc, ops)
    final = dict(
        svc.sql(
            'SELECT id::text, operation_state FROM vnf_lcm_op_occs '
            'WHERE id::text = ANY(%s)',
            (ops,),
        )
    )
    claimed = {o: s for o, s in states.items() if 'PROCESSING' in s}
    done = [s['COMPLETED'] for s in states.values() if 'COMPLETED' in s]
    wall = max(done) - min(accepted.values()) if done else float('nan')
    return {
        'ops': len(ops),
        'ops_per_s': round(len(done) / wall, 2),
        'accepted_to_claimed': percentiles(
            [
                (s['PROCESSING'] - accepted[o]) * 1000
                for o, s in claimed.items()
            ]
        ),
        'starting_to_processing': percentiles(
            [
                (s['PROCESSING'] - s['STARTING']) * 1000
                for s in claimed.values()
            ]
        ),
        'processing_to_completed': percentiles(
            [
                (s['COMPLETED'] - s['PROCESSING']) * 1000
                for s in claimed.values()
                if 'COMPLETED' in s
            ]
        ),
        'lost': sum(1 for o in ops if final.get(o) != 'COMPLETED'),
        'stuck': len(
            svc.sql(
                'SELECT id FROM vnf_lcm_op_occs WHERE owner IS NOT NULL '
                'AND id::text = ANY(%s)',
                (ops,),
            )
        ),
        'cpu_ms_per_op': cpu,
        'swept_by_conductors': _swept(svc),
        **figures,
    }


def run(testbed: hostns.MultiHost) -> dict:
    """Each number of conductors on fresh instances; the figures."""
    svc = testbed.services
    assert svc is not None
    _, insts = _prepare(svc)
    out: dict = {}
    for n in CONDUCTORS:
        running = svc.conductors()
        if running:
            svc.terminate(*running)
        svc.start_conductors(n)
        batch, insts = insts[:OPS], insts[OPS:]
        out[f'{n}_conductors'] = _measure(svc, batch)
    base = out[f'{CONDUCTORS[0]}_conductors']['ops_per_s'] / CONDUCTORS[0]
    for n in CONDUCTORS:
        fig = out[f'{n}_conductors']
        fig['of_linear'] = round(fig['ops_per_s'] / (base * n), 2)
    return out


def main() -> None:
    """Start the hosts and services, run, print JSON."""
    if len(CONDUCTORS) * OPS > INSTANCES:
        raise SystemExit('VNFM_BENCH_INSTANCES must cover every run')
    conf: dict[str, dict[str, object]] = {
        'conductor': {**_CONDUCTOR_DEFAULTS, 'workers': WORKERS},
        'mgmt_driver': {'allowed_script_sha256': script_sha256()},
    }
    work = Path(tempfile.mkdtemp(prefix='vnfm-bench-hosts-'))
    # One conductor onboards the package; each run starts its own.
    try:
        with hostns.multi_host(work, max(CONDUCTORS), 1, conf) as testbed:
            figures = run(testbed)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    emit(
        {
            'conductors_hosts': {
                'instances': INSTANCES,
                'hook_sleep_s': HOOK_SLEEP,
                'workers_per_conductor': WORKERS,
                'cpus': os.cpu_count(),
                **figures,
            }
        }
    )


if __name__ == '__main__':
    main()
