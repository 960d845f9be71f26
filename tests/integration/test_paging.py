"""SOL013 paging with the default configuration: a list longer than the
default page answers one page and a Link to the next, and the real client
(``openstack vnflcm list``, both API versions) follows it to the end."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.timeout(240)
MORE_THAN_A_PAGE = 230  # the default page size is 100


def _pages(api, path: str, version: str) -> list[list[str]]:
    """Every page's ids, following Link rel="next"."""
    url, pages = api.base + path, []
    while url:
        r = api.http.get(url, headers={'Version': version}, timeout=30)
        assert r.status_code == 200, r.text
        pages.append([i['id'] for i in r.json()])
        url = r.links.get('next', {}).get('url')
        assert len(pages) < 50
    return pages


def test_lists_page_by_default_and_the_client_gets_everything(
    api, client, pkg_v2
) -> None:
    made = {
        api.create_instance(api.V2_VNFD_ID, f'page-{n}')
        for n in range(MORE_THAN_A_PAGE)
    }
    try:
        for prefix, version in (
            ('/vnflcm/v2', '2.0.0'),
            ('/vnflcm/v1', '1.3.0'),
        ):
            pages = _pages(api, prefix + '/vnf_instances', version)
            assert len(pages[0]) == 100 and len(pages) >= 3
            ids = [i for p in pages for i in p]
            assert len(ids) == len(set(ids)) and made <= set(ids)
        v1 = {i['ID'] for i in client.json('vnflcm', 'list')}
        v2 = {i['ID'] for i in client.lcm_json('list')}
        assert made <= v1 and v1 == v2 == set(ids)
    finally:
        for inst_id in made:
            api.ok('DELETE', f'/vnf_instances/{inst_id}', 204)
