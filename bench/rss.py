"""Benchmark: memory of vnfm-api and vnfm-conductor after load (run_all:
after the other benchmarks; alone: after a warm-up of 1,000 requests and 20
operations): the resident set (VmRSS, MB) of every process, and its
proportional set size (PSS, MB: pages shared between processes counted
once in all, e.g. what forked workers share with their supervisor), with
the total PSS of vnfm-api's processes. Prints JSON."""

from __future__ import annotations

from _harness import V2
from _harness import Client
from _harness import create_instance
from _harness import emit
from _harness import make_package
from _harness import onboard
from _harness import services
from op_overhead import INSTANTIATE
from op_overhead import run_op

from vnfm_testbed.procs import rss_kib


def warm_up(svc, requests: int = 1000, ops: int = 20) -> None:
    """Load both processes: instances, lists, shows, LCM operations."""
    client = Client(svc.api_url)
    data, vnfd_id = make_package(hooks=True)
    onboard(client, data)
    insts = [create_instance(client, vnfd_id) for _ in range(100)]
    for i in range(requests - 100):
        path = '/vnflcm/v2/vnf_instances'
        if i % 2:
            path += '/' + insts[i % len(insts)]
        client.json('GET', path, headers=V2)
    for inst in insts[:ops]:
        run_op(client, inst, 'instantiate', INSTANTIATE)
    client.close()


def _children(pid: int) -> list[int]:
    try:
        with open(f'/proc/{pid}/task/{pid}/children', encoding='ascii') as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def pss_kib(pid: int) -> int:
    """Proportional set size of ``pid`` in KiB, 0 if it is gone."""
    try:
        with open(f'/proc/{pid}/smaps_rollup', encoding='ascii') as f:
            for line in f:
                if line.startswith('Pss:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run(svc) -> dict:
    """RSS and PSS of every service process, in MB. A vnfm-api with
    several worker processes is reported per worker
    (``<service>/worker<N>``) and its supervisor as ``<service>``;
    ``api_total_pss`` sums the PSS of all of vnfm-api's processes."""
    rss, pss = {}, {}
    for service, pid in svc.pids.items():
        procs = [(service, pid)] + [
            (f'{service}/worker{n}', child)
            for n, child in enumerate(sorted(_children(pid)), 1)
        ]
        for name, p in procs:
            rss[name] = round(rss_kib(p) / 1024, 1)
            pss[name] = round(pss_kib(p) / 1024, 1)
    api_pss = sum(v for k, v in pss.items() if k.split('/')[0] == 'api')
    return {'rss': rss, 'pss': pss, 'api_total_pss': round(api_pss, 1)}


def main() -> None:
    """Start the services, warm them up, print JSON."""
    with services(conductors=1) as svc:
        warm_up(svc)
        emit({'memory_mb': run(svc)})


if __name__ == '__main__':
    main()
