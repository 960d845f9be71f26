"""Benchmark: API latency and throughput of vnfm-api (cheroot) on PostgreSQL.

Figures: the first package create and instance list after start against
warm ones (a first request that loads modules or connects shows here);
POST /vnfpkgm/v1/vnf_packages (p50); GET /vnflcm/v2/vnf_instances with 100
instances on ONE kept-alive connection (p50; a delayed-ACK stall would show
as ~40 ms), the same list with 1,000 instances (its first page, of
``[api] vnf_instance_page_size`` items) from a few concurrent kept-alive
clients (p50/p99, req/s), and create+delete pairs per second. Prints JSON.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from _harness import V2
from _harness import Client
from _harness import create_instance
from _harness import emit
from _harness import make_package
from _harness import onboard
from _harness import percentiles
from _harness import services

LIST = '/vnflcm/v2/vnf_instances'
PACKAGES = '/vnfpkgm/v1/vnf_packages'


def _timed(
    client: Client, method: str, path: str, expect: int, body=None
) -> float:
    start = time.perf_counter()
    status, _, body = client.request(method, path, body, headers=V2)
    elapsed = (time.perf_counter() - start) * 1000
    if status != expect:
        raise RuntimeError(f'{method} {path}: {status} {body[:300]!r}')
    return elapsed


def _first_and_warm(
    url: str, method: str, path: str, expect: int, body=None
) -> dict:
    """The first request of a new connection against the p50 of the next
    50 on it."""
    client = Client(url)
    first = _timed(client, method, path, expect, body)
    warm = percentiles(
        [_timed(client, method, path, expect, body) for _ in range(50)]
    )
    client.close()
    return {
        'first_ms': round(first, 2),
        'warm_p50_ms': warm['p50_ms'],
        'first_over_warm': round(first / warm['p50_ms'], 1),
    }


def _sequential_list(url: str, rounds: int) -> dict:
    client = Client(url)
    for _ in range(10):  # warm-up: imports, caches, pool connections
        _timed(client, 'GET', LIST, 200)
    ms = [_timed(client, 'GET', LIST, 200) for _ in range(rounds)]
    client.close()
    return percentiles(ms)


def _concurrent(
    url: str,
    clients: int,
    duration: float,
    work: Callable[[Client], list[float]],
) -> tuple[list[float], float]:
    """Run ``work`` in ``clients`` threads until ``duration`` passes;
    (all latencies, wall seconds)."""
    barrier = threading.Barrier(clients + 1)
    results: list[list[float]] = [[] for _ in range(clients)]
    # Workers run until the main thread sets the end, just after the barrier
    # (starting at 0 made a worker that won the race stop at once).
    stop_at = [float('inf')]

    def loop(i: int) -> None:
        client = Client(url)
        work(client)  # one warm-up round per connection
        barrier.wait()
        while time.perf_counter() < stop_at[0]:
            results[i].extend(work(client))
        client.close()

    threads = [
        threading.Thread(target=loop, args=(i,)) for i in range(clients)
    ]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    stop_at[0] = start + duration
    for t in threads:
        t.join()
    return [m for r in results for m in r], time.perf_counter() - start


def _fill(url: str, vnfd_id: str, count: int, clients: int) -> None:
    per = [
        count // clients + (1 if i < count % clients else 0)
        for i in range(clients)
    ]

    def make(n: int) -> None:
        client = Client(url)
        for _ in range(n):
            create_instance(client, vnfd_id)
        client.close()

    threads = [threading.Thread(target=make, args=(n,)) for n in per]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def run(
    svc,
    total: int = 1000,
    small: int = 100,
    clients: int = 4,
    duration: float = 5.0,
) -> dict:
    """Run the API benchmarks against the services ``svc``."""
    url = svc.api_url
    first = {
        'package_create': _first_and_warm(url, 'POST', PACKAGES, 201, {}),
        'instance_list': _first_and_warm(url, 'GET', LIST, 200),
    }
    client = Client(url)
    creates = percentiles(
        [_timed(client, 'POST', PACKAGES, 201, {}) for _ in range(200)]
    )
    data, vnfd_id = make_package(hooks=False)
    onboard(client, data)
    _fill(url, vnfd_id, small, clients)
    one_conn_100 = _sequential_list(url, 200)
    _fill(url, vnfd_id, total - small, clients)
    listed = svc.sql('SELECT count(*) FROM vnf_instances')[0][0]
    if listed != total:
        raise RuntimeError(f'listed {listed} instances, expected {total}')
    one_conn_1000 = _sequential_list(url, 30)
    ms, wall = _concurrent(
        url, clients, duration, lambda c: [_timed(c, 'GET', LIST, 200)]
    )

    def pair(c: Client) -> list[float]:
        start = time.perf_counter()
        inst = create_instance(c, vnfd_id)
        _timed(c, 'DELETE', f'{LIST}/{inst}', 204)
        return [(time.perf_counter() - start) * 1000]

    pairs, pair_wall = _concurrent(url, clients, duration, pair)
    client.close()
    return {
        'first_request_after_start': first,
        'package_create': creates,
        'list_100_one_connection': one_conn_100,
        'list_1000_one_connection': one_conn_1000,
        'list_1000_concurrent': {
            'clients': clients,
            'req_per_s': round(len(ms) / wall, 1),
            **percentiles(ms),
        },
        'create_delete': {
            'clients': clients,
            'pairs_per_s': round(len(pairs) / pair_wall, 1),
            **percentiles(pairs),
        },
    }


def main() -> None:
    """Start the services, run, print JSON."""
    with services(conductors=1) as svc:
        emit({'api_latency': run(svc)})


if __name__ == '__main__':
    main()
