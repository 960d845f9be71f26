"""Benchmark: the one bounded parser (vnfm.csar.bounded) against a YAML
alias bomb of the size of the reproduced PV manifest, and on a plain
manifest; prints JSON figures (time to refuse, peak RSS of the process)."""

import json
import pathlib
import resource
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from vnfm.csar import bounded

PLAIN = b"""apiVersion: v1
kind: PersistentVolume
metadata:
  name: nfs-pv1
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  nfs: {server: 198.18.0.5, path: /volume/nfs/pv1}
"""


def bomb(levels: int = 9) -> bytes:
    """A billion-laughs document: 9**levels strings once expanded."""
    lines = ['a0: &a0 "lol"']
    for i in range(1, levels + 1):
        refs = ', '.join([f'*a{i - 1}'] * 9)
        lines.append(f'a{i}: &a{i} [{refs}]')
    return ('\n'.join(lines) + '\n').encode()


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(rounds: int = 200) -> None:
    """Refuse the bomb once, parse the plain manifest ``rounds`` times."""
    data = bomb()
    before = _peak_mib()
    start = time.perf_counter()
    try:
        bounded.load_yaml_all('pv.yaml', data)
        refused = False
    except bounded.TooManyNodes:
        refused = True
    refuse_ms = (time.perf_counter() - start) * 1000
    peak = _peak_mib()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        bounded.load_yaml_all('pv.yaml', PLAIN)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(
        json.dumps(
            {
                'bomb_bytes': len(data),
                'bomb_refused': refused,
                'bomb_refuse_ms': round(refuse_ms, 1),
                'peak_rss_mib_before': round(before, 1),
                'peak_rss_mib_after_bomb': round(peak, 1),
                'plain_manifest_parse_ms_p50': round(
                    times[len(times) // 2], 3
                ),
            }
        )
    )


if __name__ == '__main__':
    main()
