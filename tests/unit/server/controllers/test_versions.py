"""api_versions (SOL013 9.3): the versions a client discovers are the
ones the API serves."""

from __future__ import annotations

import pytest

from tests.unit.server.conftest import json_of

NOT_DEPRECATED = False


@pytest.mark.parametrize(
    'path,versions',
    [
        ('/vnflcm/api_versions', ['1.3.0', '2.0.0']),
        ('/vnflcm/v1/api_versions', ['1.3.0']),
        ('/vnflcm/v2/api_versions', ['2.0.0']),
        ('/vnfpkgm/v1/api_versions', ['2.0.0']),
        ('/vnffm/v1/api_versions', ['1.3.0']),
        ('/vnfpm/api_versions', ['2.1.0']),
        ('/vnfpm/v2/api_versions', ['2.1.0']),
    ],
)
def test_each_prefix_lists_its_versions(client, path, versions):
    resp = client.request('GET', path)

    assert resp.status_int == 200
    assert json_of(resp) == {
        'uriPrefix': path.removesuffix('/api_versions'),
        'apiVersions': [
            {'version': v, 'isDeprecated': NOT_DEPRECATED} for v in versions
        ],
    }


@pytest.mark.parametrize(
    'prefix,resource,headers',
    [
        ('/vnflcm/v1', '/vnf_instances', {}),
        ('/vnflcm/v2', '/vnf_instances', {'Version': '2.0.0'}),
        ('/vnffm/v1', '/alarms', {'Version': '1.3.0'}),
        ('/vnfpm/v2', '/pm_jobs', {'Version': '2.1.0'}),
    ],
)
def test_the_discovered_version_is_the_one_served(
    client, prefix, resource, headers
):
    [listed] = json_of(client.request('GET', prefix + '/api_versions'))[
        'apiVersions'
    ]

    resp = client.request('GET', prefix + resource, headers=headers)

    assert resp.status_int == 200
    assert resp.headers['Version'] == listed['version']


def test_api_versions_need_no_version_header(client):
    resp = client.request('GET', '/vnflcm/v2/api_versions')

    assert resp.status_int == 200
    assert resp.content_type == 'application/json'
