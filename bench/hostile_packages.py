"""Benchmark: the memory the package parser takes on each hostile package.

Each package of the generated corpus (tests/unit/csar/hostile.py), and the
valid sample for comparison, is parsed by ``read_csar`` in a fresh Python
process, which reports its peak RSS before and after parsing. Prints JSON:
per package the peak RSS (MB), what parsing added to it, the time, and
the first words of the failure detail.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.unit.csar import hostile  # noqa: E402
from tests.unit.csar.utils import sample_files  # noqa: E402

# Run in the child: read the package, note the peak RSS, parse, note again.
# VmHWM, not getrusage: ru_maxrss keeps the parent's peak across exec.
_CHILD = """
import json, sys, time
from vnfm.csar import InvalidPackage, read_csar

def peak_kib():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))

data = open(sys.argv[1], "rb").read()
before = peak_kib()
start = time.perf_counter()
try:
    read_csar(data)
    outcome = "ONBOARDED"
except InvalidPackage as e:
    outcome = "ERROR: " + e.detail
seconds = time.perf_counter() - start
after = peak_kib()
print(json.dumps({"before_kib": before, "peak_kib": after,
                  "seconds": seconds, "outcome": outcome}))
"""


def measure(path: pathlib.Path) -> dict:
    """Parse the package at ``path`` in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, '-c', _CHILD, str(path)],
        capture_output=True,
        check=True,
        cwd=ROOT,
        text=True,
        timeout=600,
    )
    child = json.loads(out.stdout)
    return {
        'peak_rss_mb': round(child['peak_kib'] / 1024, 1),
        'parser_added_mb': round(
            (child['peak_kib'] - child['before_kib']) / 1024, 1
        ),
        'seconds': round(child['seconds'], 3),
        'outcome': child['outcome'][:100],
    }


def main() -> None:
    """Measure every package of the corpus; print JSON."""
    packages = {'valid-sample': hostile.package(sample_files())}
    packages.update((c.name, c.data) for c in hostile.corpus(sample_files()))
    results = {}
    with tempfile.TemporaryDirectory(prefix='vnfm-bench-hostile-') as tmp:
        for name, data in packages.items():
            path = pathlib.Path(tmp) / f'{name}.zip'
            path.write_bytes(data)
            results[name] = dict(measure(path), package_bytes=len(data))
    hostile_only = [r for n, r in results.items() if n != 'valid-sample']
    print(
        json.dumps(
            {
                'packages': results,
                'max_peak_rss_mb': max(r['peak_rss_mb'] for r in hostile_only),
                'max_parser_added_mb': max(
                    r['parser_added_mb'] for r in hostile_only
                ),
                'max_seconds': max(r['seconds'] for r in hostile_only),
                'all_refused': all(
                    r['outcome'].startswith('ERROR') for r in hostile_only
                ),
            },
            indent=1,
        )
    )


if __name__ == '__main__':
    main()
