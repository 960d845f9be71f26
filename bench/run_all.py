"""Run every benchmark on one set of services; print one JSON object.

    .venv/bin/python bench/run_all.py

The RSS figures are taken last, after the load of the other benchmarks.
"""

from __future__ import annotations

import os
import platform
import time
import traceback

import api_latency
import onboarding
import op_overhead
import rss
from _harness import emit
from _harness import services


def _environment() -> dict:
    model = ''
    try:
        with open('/proc/cpuinfo', encoding='utf-8') as f:
            model = next(
                (
                    line.split(':', 1)[1].strip()
                    for line in f
                    if line.startswith('model name')
                ),
                '',
            )
    except OSError:
        pass
    return {
        'cpus': os.cpu_count(),
        'cpu_model': model,
        'python': platform.python_version(),
    }


def main() -> None:
    """Start the services, run each benchmark, print the figures."""
    started = time.perf_counter()
    figures: dict = {'environment': _environment()}
    with services(conductors=1) as svc:
        for name, bench in (
            ('api_latency', api_latency.run),
            ('onboarding', onboarding.run),
            ('op_overhead', op_overhead.run),
            ('memory_mb', rss.run),
        ):
            try:
                figures[name] = bench(svc)
            except Exception as exc:  # noqa: BLE001 - report, run the rest
                traceback.print_exc()
                figures[name] = {'error': repr(exc)}
    figures['seconds'] = round(time.perf_counter() - started, 1)
    emit(figures)


if __name__ == '__main__':
    main()
