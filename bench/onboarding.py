"""Benchmark: upload to ONBOARDED of a ~15 KB package, each upload a new
package with its own vnfdId. Prints JSON."""

from __future__ import annotations

import time

from _harness import Client
from _harness import emit
from _harness import make_package
from _harness import onboard
from _harness import percentiles
from _harness import services


def run(svc, uploads: int = 20, size: int = 15000) -> dict:
    """Onboard ``uploads`` fresh packages; p50 from upload to ONBOARDED."""
    client = Client(svc.api_url)
    packages = [make_package(pad_to=size)[0] for _ in range(uploads + 2)]
    for data in packages[:2]:  # warm-up: first parse, imports
        onboard(client, data)
    ms = []
    start = time.perf_counter()
    for data in packages[2:]:
        ms.append(onboard(client, data)[1])
    wall = time.perf_counter() - start
    client.close()
    return {
        'package_bytes': len(packages[-1]),
        'upload_to_onboarded': percentiles(ms),
        'packages_per_s_sequential': round(uploads / wall, 1),
    }


def main() -> None:
    """Start the services, run, print JSON."""
    with services(conductors=1) as svc:
        emit({'onboarding': run(svc)})


if __name__ == '__main__':
    main()
