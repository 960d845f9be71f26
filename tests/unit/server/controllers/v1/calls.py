"""Calls of the /vnflcm/v1 tests: requests with the v1 Version header."""

from __future__ import annotations

V1 = {'Version': '1.3.0'}
VIM = [
    {
        'id': 'vim1',
        'vimType': 'VNFM.NOOP.V_1',
        'accessInfo': {'username': 'admin', 'password': 'SECRET-PW'},
    }
]


def v1(client, method, path, body=None, **kw):
    kw['headers'] = {**V1, **(kw.get('headers') or {})}
    return client.request(method, '/vnflcm/v1' + path, body, **kw)


def op_id_of(resp) -> str:
    assert resp.status_int == 202, resp.body
    location = resp.headers['Location']
    assert location.startswith('http://localhost/vnflcm/v1/vnf_lcm_op_occs/')
    return location.rsplit('/', 1)[1]
