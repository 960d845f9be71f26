"""Benchmark: the time from the 202 of a cancel to FAILED_TEMP, for an
instantiate sleeping in its instantiate_start hook, FORCEFUL (the hook is
killed; target <= 1 s) and GRACEFUL (the hook finishes its sleep first, so
the figure minus the remaining sleep is the cost of stopping at the step).
Two conductors; the ops land on either. Prints JSON.

    .venv/bin/python bench/cancel.py
"""

from __future__ import annotations

import time
from urllib import parse

from _harness import V2
from _harness import Client
from _harness import create_instance
from _harness import emit
from _harness import make_package
from _harness import onboard
from _harness import percentiles
from _harness import services

HOOK_SLEEP = 20.0  # FORCEFUL: never waited for
GRACEFUL_SLEEP = 2.0
INSTANTIATE = {
    'flavourId': 'simple',
    'vimConnectionInfo': {'vim1': {'vimType': 'VNFM.NOOP.V_1'}},
}


def _state(client: Client, path: str) -> dict:
    return client.json('GET', path, headers=V2)


def _wait(client: Client, path: str, until, timeout: float = 60.0) -> dict:
    deadline = time.perf_counter() + timeout
    while True:
        op = _state(client, path)
        if until(op):
            return op
        if time.perf_counter() > deadline:
            raise RuntimeError(f'{path}: still {op["operationState"]}')
        time.sleep(0.005)


def _one(client: Client, vnfd_id: str, mode: str, sleep: float) -> float:
    """ms from the cancel's 202 to FAILED_TEMP."""
    inst = create_instance(client, vnfd_id)
    body = dict(
        INSTANTIATE,
        additionalParams={'hook_sleep': {'instantiate_start': sleep}},
    )
    _, headers, _ = client.request(
        'POST',
        f'/vnflcm/v2/vnf_instances/{inst}/instantiate',
        body,
        {**V2, 'Content-Type': 'application/json'},
    )
    path = parse.urlsplit(headers['Location']).path
    _wait(client, path, lambda op: op['operationState'] == 'PROCESSING')
    time.sleep(0.5)  # inside the hook's sleep
    status, _, data = client.request(
        'POST',
        path + '/cancel',
        {'cancelMode': mode},
        {**V2, 'Content-Type': 'application/json'},
    )
    start = time.perf_counter()
    if status != 202:
        raise RuntimeError(f'cancel: {status} {data[:300]!r}')
    op = _wait(
        client,
        path,
        lambda op: op['operationState'] not in ('STARTING', 'PROCESSING'),
    )
    ms = (time.perf_counter() - start) * 1000
    if op['operationState'] != 'FAILED_TEMP':
        raise RuntimeError(f'cancel ended {op["operationState"]}')
    return ms


def run(svc, rounds: int = 6) -> dict:
    """Cancel ``rounds`` instantiations in each mode."""
    client = Client(svc.api_url)
    data, vnfd_id = make_package(hooks=True)
    onboard(client, data)
    forceful = [
        _one(client, vnfd_id, 'FORCEFUL', HOOK_SLEEP) for _ in range(rounds)
    ]
    graceful = [
        _one(client, vnfd_id, 'GRACEFUL', GRACEFUL_SLEEP)
        for _ in range(rounds)
    ]
    client.close()
    return {
        'forceful_202_to_failed_temp_ms': percentiles(forceful),
        'graceful_202_to_failed_temp_ms': percentiles(graceful),
        'graceful_hook_sleep_left_ms': (GRACEFUL_SLEEP - 0.5) * 1000,
    }


def main() -> None:
    """Start the services (two conductors), run, print JSON."""
    with services(conductors=2) as svc:
        emit({'cancel': run(svc)})


if __name__ == '__main__':
    main()
