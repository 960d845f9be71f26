"""Benchmark: garbage-collection pauses of vnfm-api (each process) and
vnfm-conductor, idle and under load: 10 s idle, the first onboardings, the
API benchmark, 1,000 requests and 10 operations. The services log every
collection longer than 1 ms (``[DEFAULT] gc_log_threshold_ms = 1``); the
figures come from their logs. Prints JSON.

    .venv/bin/python bench/gc_pauses.py
"""

from __future__ import annotations

import collections
import re
import time

import api_latency
import onboarding
import rss
from _harness import emit
from _harness import services

THRESHOLD_MS = 1
IDLE_S = 10.0
_PAUSE = re.compile(
    r'Garbage collection paused process (\d+) for ([\d.]+) ms '
    r'\(CPU ([\d.]+) ms; generation (\d)'
)


def pauses(svc) -> dict:
    """Per process: collections over the threshold, how many over 10 ms,
    p99 and max of those (wall time: all threads stopped), the max CPU
    time of one (the collector's own work; the rest is the host running
    other processes), and the max of each generation."""
    out = {}
    for service, path in svc.logs.items():
        if service == 'db-manage':
            continue
        by_pid: dict[str, list[tuple[float, float, int]]] = (
            collections.defaultdict(list)
        )
        for match in _PAUSE.finditer(path.read_text(errors='replace')):
            pid, ms, cpu, gen = match.groups()
            by_pid[pid].append((float(ms), float(cpu), int(gen)))
        for pid in sorted(by_pid) or ['-']:
            found = by_pid.get(pid, [])
            ms = sorted(m for m, _, _ in found)
            out[f'{service}[{pid}]'] = {
                f'over_{THRESHOLD_MS}ms': len(ms),
                'over_10ms': sum(1 for m in ms if m > 10),
                'p99_ms': ms[min(len(ms) - 1, int(0.99 * len(ms)))]
                if ms
                else 0,
                'max_ms': ms[-1] if ms else 0,
                'max_cpu_ms': max((c for _, c, _ in found), default=0),
                'max_ms_by_generation': {
                    g: max((m for m, _, gen in found if gen == g), default=0)
                    for g in (0, 1, 2)
                },
            }
    return out


def main() -> None:
    """Start the services with the pause log, load them, print JSON."""
    conf = {'DEFAULT': {'gc_log_threshold_ms': THRESHOLD_MS}}
    with services(conductors=1, conf=conf) as svc:
        time.sleep(IDLE_S)  # idle: the periodic tasks only
        idle = pauses(svc)
        onboarding.run(svc, uploads=5)
        api_latency.run(svc, duration=3.0)
        rss.warm_up(svc, requests=1000, ops=10)
        emit({'gc_pauses': {'idle': idle, 'after_load': pauses(svc)}})


if __name__ == '__main__':
    main()
