"""Benchmark: read_csar on the noop sample package; prints JSON figures."""

import json
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from vnfm.csar import CsarLimits
from vnfm.csar import read_csar
from vnfm.csar.build import build_csar

SAMPLE = (
    pathlib.Path(__file__).resolve().parents[1]
    / 'samples'
    / 'packages'
    / 'noop_vnf'
)


def main(rounds: int = 200) -> None:
    """Parse the sample ``rounds`` times after a warm-up; print percentiles."""
    data = build_csar(str(SAMPLE))
    limits = CsarLimits()
    start = time.perf_counter()
    read_csar(data, limits)
    first_ms = (time.perf_counter() - start) * 1000
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        read_csar(data, limits)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(
        json.dumps(
            {
                'package_bytes': len(data),
                'rounds': rounds,
                'first_parse_ms': round(first_ms, 3),
                'parse_ms_p50': round(statistics.median(times), 3),
                'parse_ms_p95': round(times[int(len(times) * 0.95) - 1], 3),
            }
        )
    )


if __name__ == '__main__':
    main()
