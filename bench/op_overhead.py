"""Benchmark: from the 202 of instantiate to COMPLETED (noop VIM), with a
package without hooks and with the sample's hook script, with one and with
two conductors; and many instantiations at once. Prints JSON."""

from __future__ import annotations

import threading
import time
from urllib import parse

from _harness import FINAL_OP_STATES
from _harness import V2
from _harness import Client
from _harness import create_instance
from _harness import emit
from _harness import make_package
from _harness import onboard
from _harness import percentiles
from _harness import services

INSTANTIATE = {
    'flavourId': 'simple',
    'vimConnectionInfo': {'vim1': {'vimType': 'VNFM.NOOP.V_1'}},
}


def _wait_op(
    client: Client, path: str, poll: float, timeout: float = 60.0
) -> str:
    deadline = time.perf_counter() + timeout
    while True:
        state = client.json('GET', path, headers=V2)['operationState']
        if state in FINAL_OP_STATES:
            return state
        if time.perf_counter() > deadline:
            raise RuntimeError(f'{path} still {state} after {timeout}s')
        time.sleep(poll)


def run_op(
    client: Client, inst: str, action: str, body: dict, poll: float = 0.002
) -> float:
    """POST an LCM task; ms from its 202 to COMPLETED (polled every
    ``poll`` seconds)."""
    status, headers, data = client.request(
        'POST',
        f'/vnflcm/v2/vnf_instances/{inst}/{action}',
        body,
        {**V2, 'Content-Type': 'application/json'},
    )
    start = time.perf_counter()
    if status != 202:
        raise RuntimeError(f'{action}: {status} {data[:300]!r}')
    state = _wait_op(client, parse.urlsplit(headers['Location']).path, poll)
    if state != 'COMPLETED':
        raise RuntimeError(f'{action} of {inst} ended {state}')
    return (time.perf_counter() - start) * 1000


def _sequential(client: Client, vnfd_id: str, rounds: int) -> dict:
    inst = create_instance(client, vnfd_id)
    inst_ms, term_ms = [], []
    for _ in range(rounds):
        inst_ms.append(run_op(client, inst, 'instantiate', INSTANTIATE))
        term_ms.append(
            run_op(client, inst, 'terminate', {'terminationType': 'FORCEFUL'})
        )
    client.json(
        'DELETE', f'/vnflcm/v2/vnf_instances/{inst}', headers=V2, expect=204
    )
    return {
        'instantiate': percentiles(inst_ms[1:]),
        'terminate': percentiles(term_ms[1:]),
    }


def _parallel(url: str, vnfd_id: str, count: int) -> dict:
    """Instantiate ``count`` instances at once; ops per second."""
    client = Client(url)
    insts = [create_instance(client, vnfd_id) for _ in range(count)]
    ms: list[float] = []
    start = time.perf_counter()

    def one(inst: str) -> None:
        c = Client(url)
        # Slower polling: 16 clients polling every 2 ms would load the API
        # more than the operations do.
        ms.append(run_op(c, inst, 'instantiate', INSTANTIATE, poll=0.05))
        c.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in insts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    client.close()
    return {
        'instances': count,
        'ops_per_s': round(count / wall, 1),
        **percentiles(ms),
    }


def run(svc, rounds: int = 11, parallel: int = 16) -> dict:
    """Measure with the running conductor(s), then with one more."""
    client = Client(svc.api_url)
    plain = make_package(hooks=False)
    hooked = make_package(hooks=True)
    for data, _ in (plain, hooked):
        onboard(client, data)
    out = {}
    for label in ('one_conductor', 'two_conductors'):
        if label == 'two_conductors':
            svc.start_conductors(1)
        out[label] = {
            'without_hooks': _sequential(client, plain[1], rounds),
            'with_hooks': _sequential(client, hooked[1], rounds),
            'parallel_without_hooks': _parallel(
                svc.api_url, plain[1], parallel
            ),
        }
    client.close()
    return out


def main() -> None:
    """Start the services, run, print JSON."""
    with services(conductors=1) as svc:
        emit({'op_overhead': run(svc)})


if __name__ == '__main__':
    main()
