"""SOL013 list details on every list endpoint of /vnflcm/v1, /vnflcm/v2 and
/vnfpkgm/v1: bounded default pages, paging to the end, "response too big",
unknown attribute selectors."""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import json_of
from tests.unit.server.conftest import make_instance
from tests.unit.server.conftest import make_op
from tests.unit.server.conftest import make_package
from vnfm.conf import CONF
from vnfm.db import registry

V1 = {'Version': '1.3.0'}
# (path, page size option, API version header)
LISTS = [
    ('/vnflcm/v2/vnf_instances', 'vnf_instance_page_size', {}),
    ('/vnflcm/v1/vnf_instances', 'vnf_instance_page_size', V1),
    ('/vnflcm/v2/vnf_lcm_op_occs', 'lcm_op_occ_page_size', {}),
    ('/vnflcm/v1/vnf_lcm_op_occs', 'lcm_op_occ_page_size', V1),
    ('/vnflcm/v2/subscriptions', 'subscription_page_size', {}),
    ('/vnflcm/v1/subscriptions', 'subscription_page_size', V1),
    ('/vnfpkgm/v1/vnf_packages', 'vnf_package_page_size', None),
    ('/vnfpkgm/v1/subscriptions', 'subscription_page_size', None),
]
COUNT = 7


def _fill() -> None:
    pkg = make_package('vnfd-p0')
    for n in range(1, COUNT):
        make_package(f'vnfd-p{n}')
    for n in range(COUNT):
        # v2 lists show v1 resources too; v1 lists only v1 subscriptions;
        # the package API only package subscriptions.
        make_op(make_instance(pkg), state='COMPLETED')
        for interface in (registry.VNFLCM, registry.VNFPKGM):
            registry.subscription_create(
                {
                    'callback_uri': f'http://127.0.0.1/{n}',
                    'verbosity': 'FULL',
                    'api_version': '1',
                    'interface': interface,
                }
            )


def _get(client, path: str, headers: dict | None):
    if headers is None:
        return client.request('GET', path)
    return client.request('GET', path, headers={'Version': '2.0.0', **headers})


def _follow(client, path: str, headers: dict | None) -> list[list[str]]:
    """The ids of each page, following Link rel="next" to the end."""
    pages = []
    while path:
        resp = _get(client, path, headers)
        assert resp.status_int == 200, resp.body
        pages.append([i['id'] for i in json_of(resp)])
        link = resp.headers.get('Link')
        path = None
        if link:
            assert link.endswith('; rel="next"')
            path = link[1 : link.index('>')].replace('http://localhost', '')
        assert len(pages) <= COUNT + 1
    return pages


@pytest.fixture
def overrides():
    names = []

    def set_(name, value):
        CONF.set_override(name, value, group='api')
        names.append(name)

    yield set_
    for name in names:
        CONF.clear_override(name, group='api')


@pytest.mark.parametrize('path,option,headers', LISTS)
@pytest.mark.parametrize('query', ['', '?all_fields', '?filter=(neq,id,x)'])
def test_paging_to_the_end_gives_every_item_once(
    client, overrides, path, option, headers, query
):
    _fill()
    everything = json_of(_get(client, path + '?all_fields', headers))
    assert len(everything) == COUNT  # the default page holds them all
    overrides(option, 3)
    pages = _follow(client, path + query, headers)
    assert [len(p) for p in pages] == [3, 3, 1]
    assert sum(pages, []) == [i['id'] for i in everything]


def test_default_page_size_is_bounded():
    for _, option, _ in LISTS:
        assert 0 < CONF.api[option] <= 1000


@pytest.mark.parametrize('path,option,headers', LISTS)
def test_no_paging_over_the_limit_is_400_too_big(
    client, overrides, path, option, headers
):
    _fill()
    overrides(option, 0)
    overrides('max_list_items', COUNT)
    assert len(json_of(_get(client, path, headers))) == COUNT
    overrides('max_list_items', COUNT - 1)
    resp = _get(client, path, headers)
    assert resp.status_int == 400
    assert 'too big' in json_of(resp)['detail']
    overrides('max_list_items', 0)  # no limit
    assert len(json_of(_get(client, path, headers))) == COUNT


@pytest.mark.parametrize('path,option,headers', LISTS)
@pytest.mark.parametrize('param', ['fields', 'exclude_fields'])
def test_unknown_attribute_in_selector_is_400_naming_it(
    client, path, option, headers, param
):
    _fill()
    resp = _get(client, f'{path}?{param}=id,notAnAttribute', headers)
    assert resp.status_int == 400
    assert 'notAnAttribute' in json_of(resp)['detail']


def test_unknown_marker_is_400(client):
    resp = _get(
        client, '/vnflcm/v2/vnf_instances?nextpage_opaque_marker=zz', {}
    )
    assert resp.status_int == 400
    assert 'list again' in json_of(resp)['detail']
