"""Benchmark: listing 10,000 VNF instances page by page (the default page
size, following ``Link: rel="next"``), with the default view and with
``all_fields``: total time, pages, and the resident memory of vnfm-api
before and after (its peak too). The rows are copied in SQL from one
instance made through the API. Prints JSON.

    .venv/bin/python bench/list_paging.py
"""

from __future__ import annotations

import json
import time
from urllib import parse

from _harness import V2
from _harness import Client
from _harness import emit
from _harness import make_package
from _harness import onboard
from _harness import services

COUNT = 10_000


def _kib(pid: int, field: str) -> int:
    with open(f'/proc/{pid}/status', encoding='ascii') as f:
        for line in f:
            if line.startswith(field + ':'):
                return int(line.split()[1])
    return 0


def _fill(svc, client: Client, vnfd_id: str) -> None:
    template = client.json(
        'POST',
        '/vnflcm/v2/vnf_instances',
        {
            'vnfdId': vnfd_id,
            'vnfInstanceName': 'bench',
            'metadata': {f'key{i}': 'x' * 40 for i in range(20)},
        },
        headers=V2,
        expect=201,
    )['id']
    svc.sql(
        'INSERT INTO vnf_instances (id, created_at, updated_at, '
        'vnf_instance_name, vnf_instance_description, vnfd_id, '
        'vnf_provider, vnf_product_name, vnf_software_version, vnfd_version, '
        'vnf_pkg_id, instantiation_state, metadata, project_id, api_version) '
        "SELECT gen_random_uuid(), created_at + n * interval '1 millisecond',"
        " updated_at, 'bench-' || n, vnf_instance_description, vnfd_id, "
        'vnf_provider, vnf_product_name, vnf_software_version, vnfd_version, '
        'vnf_pkg_id, instantiation_state, metadata, project_id, api_version '
        'FROM vnf_instances, generate_series(1, %s) AS n WHERE id = %s',
        (COUNT - 1, template),
    )


def _walk(client: Client, query: str) -> dict:
    path, pages, items, seen = f'/vnflcm/v2/vnf_instances{query}', 0, 0, set()
    start = time.perf_counter()
    while path:
        status, headers, data = client.request('GET', path, None, V2)
        if status != 200:
            raise RuntimeError(f'{path}: {status} {data[:200]!r}')
        page = json.loads(data)
        pages, items = pages + 1, items + len(page)
        seen.update(i['id'] for i in page)
        link = headers.get('Link')
        path = None
        if link:
            url = link[link.index('<') + 1 : link.index('>')]
            split = parse.urlsplit(url)
            path = f'{split.path}?{split.query}'
    if items != COUNT or len(seen) != COUNT:
        raise RuntimeError(f'{items} items, {len(seen)} distinct')
    return {
        'pages': pages,
        'items': items,
        'total_s': round(time.perf_counter() - start, 2),
    }


def run(svc) -> dict:
    """Fill, then walk the list twice per view."""
    client = Client(svc.api_url)
    data, vnfd_id = make_package(hooks=False)
    onboard(client, data)
    _fill(svc, client, vnfd_id)
    pid = svc.pids['api']
    out = {
        'instances': COUNT,
        'api_rss_mb_before': round(_kib(pid, 'VmRSS') / 1024, 1),
    }
    for label, query in (('default_view', ''), ('all_fields', '?all_fields')):
        _walk(client, query)  # warm
        out[label] = _walk(client, query)
    out['api_rss_mb_after'] = round(_kib(pid, 'VmRSS') / 1024, 1)
    out['api_peak_rss_mb'] = round(_kib(pid, 'VmHWM') / 1024, 1)
    client.close()
    return out


def main() -> None:
    """Start the services, run, print JSON."""
    with services(conductors=1) as svc:
        emit({'list_paging': run(svc)})


if __name__ == '__main__':
    main()
