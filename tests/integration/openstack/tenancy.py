"""The probes of the tenancy matrix (test_tenancy): for each route of
the four APIs, a request on a resource of the owning project, and what
each principal must get back."""

from __future__ import annotations

import dataclasses
import io
import re
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import requests
from oslo_policy import policy

from vnfm.server import policies
from vnfm.server import router

PREFIXES = ('/vnflcm/v1', '/vnflcm/v2', '/vnfpkgm/v1', '/v1.0/vims')
ROLES = ('admin', 'member', 'reader')
SIDES = ('own', 'foreign')
CANARY = 'canary-' + uuid.uuid4().hex[:12]
MERGE = {'Content-Type': 'application/merge-patch+json'}


def _tiny_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        zf.writestr('README', CANARY)
    return buf.getvalue()


#: A zip the API takes (onboarding then fails: no TOSCA-Metadata).
TINY_ZIP = _tiny_zip()


def _norm(path: str) -> str:
    return re.sub(r'\{[^}]*\}', '{}', path)


def table_routes() -> set[tuple[str, str, str]]:
    """(rule, method, path) of every route of the four APIs: the policy
    table's operations and the router's routes."""
    found = {
        (rule.name, op['method'], _norm(op['path']))
        for rule in policies.list_rules()
        if isinstance(rule, policy.DocumentedRuleDefault)
        for op in rule.operations
    }
    found |= {
        (action.policy, method, _norm(path))
        for path, methods in router.TABLE
        for method, action in methods.items()
    }
    return {r for r in found if r[2].startswith(PREFIXES)}


class Http:
    """Raw HTTP to vnfm with one token."""

    def __init__(self, base: str, token: str) -> None:
        self.base = base
        self.http = requests.Session()
        self.http.headers['X-Auth-Token'] = token

    def call(self, method: str, path: str, **kw: Any) -> requests.Response:
        """``method path``; the Version header /vnflcm/v2 needs."""
        if path.startswith('/vnflcm/v2'):
            kw['headers'] = {'Version': '2.0.0', **kw.get('headers', {})}
        return self.http.request(method, self.base + path, timeout=30, **kw)

    def made(self, path: str, body: dict) -> dict:
        """POST ``body`` to ``path``; the created resource."""
        r = self.call('POST', path, json=body)
        assert r.status_code == 201, (path, r.text)
        return dict(r.json())


# -- what the owner has -------------------------------------------------------


@dataclasses.dataclass
class World:
    """The owning project's resources a probe targets; ``fresh`` makes the
    ones a probe may change, new for each probe."""

    owner: Http
    pkg: dict
    artifact: str
    occ: str
    inst_with_op: str
    vim_project: str
    #: Ids of everything the owning project has here.
    owned: set[str]

    def _made(self, path: str, body: dict, key: str | None = None) -> str:
        made = self.owner.made(path, body)
        found = str((made[key] if key else made)['id'])
        self.owned.add(found)
        return found

    def instance(self) -> str:
        body = {'vnfdId': self.pkg['vnfdId'], 'vnfInstanceName': CANARY}
        return self._made('/vnflcm/v2/vnf_instances', body)

    def package(self) -> str:
        body = {'userDefinedData': {'name': CANARY}}
        return self._made('/vnfpkgm/v1/vnf_packages', body)

    def vim(self) -> str:
        return self._made('/v1.0/vims', vim_body(), 'vim')

    def subscription(self, api: str) -> str:
        """A subscription of /vnflcm/``api`` (v1, v2) or of ``api`` given
        as a prefix (/vnfpkgm/v1)."""
        uri = f'http://127.0.0.1:9/{CANARY}/{uuid.uuid4().hex}'
        body = {'callbackUri': uri}
        prefix = api if api.startswith('/') else f'/vnflcm/{api}'
        return self._made(f'{prefix}/subscriptions', body)


def vim_body(**extra: Any) -> dict:
    """A Kubernetes VIM registration (never contacted) named CANARY."""
    return {
        'vim': {
            'name': f'{CANARY}-{uuid.uuid4().hex[:6]}',
            'type': 'kubernetes',
            'auth_url': 'https://127.0.0.1:6443',
            'vim_project': {'name': 'default'},
            'auth_cred': {'bearer_token': f'{CANARY}-token'},
            **extra,
        }
    }


# -- the probes ---------------------------------------------------------------


@dataclasses.dataclass
class Request:
    """One request of a probe and the owner's view of its target."""

    method: str
    path: str
    kw: dict = dataclasses.field(default_factory=dict)
    #: The owner's GET of the target (compared before and after).
    target: str | None = None
    #: An id a list must show to the owner only.
    listed: str | None = None


Probe = Callable[[World], Request]
V1 = {'headers': {'Version': '1.3.0'}}


def _inst(api: str, suffix: str, method: str = 'POST', **kw: Any) -> Probe:
    def probe(w: World) -> Request:
        item = f'/vnflcm/{api}/vnf_instances/{w.instance()}'
        return Request(method, item + suffix, kw, target=item)

    return probe


def _occ(api: str, suffix: str, **kw: Any) -> Probe:
    def probe(w: World) -> Request:
        item = f'/vnflcm/{api}/vnf_lcm_op_occs/{w.occ}'
        return Request('POST' if suffix else 'GET', item + suffix, kw, item)

    return probe


def _subscription(api: str, method: str) -> Probe:
    def probe(w: World) -> Request:
        prefix = api if api.startswith('/') else f'/vnflcm/{api}'
        item = f'{prefix}/subscriptions/{w.subscription(api)}'
        return Request(method, item, target=item)

    return probe


def _lists(path: str, listed: Callable[[World], str]) -> Probe:
    return lambda w: Request('GET', path, listed=listed(w))


def _pkg(suffix: str, method: str, fresh: bool = True, **kw: Any) -> Probe:
    def probe(w: World) -> Request:
        item = (
            f'/vnfpkgm/v1/vnf_packages/{w.package() if fresh else w.pkg["id"]}'
        )
        return Request(method, item + suffix, kw, target=item)

    return probe


def _vim(method: str, suffix: str = '', **kw: Any) -> Probe:
    def probe(w: World) -> Request:
        item = f'/v1.0/vims/{w.vim()}'
        return Request(method, item + suffix, kw, target=item)

    return probe


def _create_instance(api: str) -> Probe:
    """Names the owner's vnfdId: a foreign member's create is a 422."""

    def probe(w: World) -> Request:
        body = {'vnfdId': w.pkg['vnfdId'], 'vnfInstanceName': CANARY}
        kw = dict(V1, json=body) if api == 'v1' else {'json': body}
        return Request('POST', f'/vnflcm/{api}/vnf_instances', kw)

    return probe


def _new_callback() -> str:
    return f'http://127.0.0.1:9/new/{uuid.uuid4().hex}'


def v1_kw(body: dict | None = None) -> dict:
    return dict(V1, json=body if body is not None else {})


_TASKS_V2 = {
    '/instantiate': {'flavourId': 'simple'},
    '/terminate': {'terminationType': 'FORCEFUL'},
    '/scale': {'type': 'SCALE_OUT', 'aspectId': 'a'},
    '/scale_to_level': {'instantiationLevelId': 'instantiation_level_1'},
    '/change_flavour': {'newFlavourId': 'simple'},
    '/heal': {},
    '/operate': {'changeStateTo': 'STARTED'},
    '/change_ext_conn': {
        'extVirtualLinks': [
            {
                'id': 'l',
                'resourceId': 'r',
                'extCps': [{'cpdId': 'cp', 'cpConfig': {'c': {}}}],
            }
        ]
    },
    '/change_vnfpkg': {'vnfdId': 'unknown-vnfd'},
}


#: /vnflcm/v1's shapes where they differ (cpConfig is a list).
_TASKS_V1 = {
    '/change_ext_conn': {
        'extVirtualLinks': [
            {
                'id': 'l',
                'resourceId': 'r',
                'extCps': [{'cpdId': 'cp', 'cpConfig': [{'linkPortId': 'p'}]}],
            }
        ]
    },
}


def _matrix() -> dict[tuple[str, str], Probe]:
    """(method, path) -> probe, for every route of the four APIs."""
    m: dict[tuple[str, str], Probe] = {}
    for api in ('v1', 'v2'):
        base = f'/vnflcm/{api}'
        extra = V1 if api == 'v1' else {}
        m['GET', f'{base}/api_versions'] = lambda w, b=base: Request(
            'GET', f'{b}/api_versions'
        )
        m['POST', f'{base}/vnf_instances'] = _create_instance(api)
        m['GET', f'{base}/vnf_instances'] = _lists(
            f'{base}/vnf_instances', lambda w: w.inst_with_op
        )
        m['GET', f'{base}/vnf_instances/{{}}'] = _inst(api, '', 'GET', **extra)
        m['DELETE', f'{base}/vnf_instances/{{}}'] = _inst(
            api, '', 'DELETE', **extra
        )
        m['PATCH', f'{base}/vnf_instances/{{}}'] = _inst(
            api,
            '',
            'PATCH',
            data=b'{"vnfInstanceDescription": "changed"}',
            headers={**extra.get('headers', {}), **MERGE},
        )
        for suffix, body in _TASKS_V2.items():
            if api == 'v1' and suffix == '/change_vnfpkg':
                continue
            if api == 'v1':
                body = _TASKS_V1.get(suffix, body)
            m['POST', f'{base}/vnf_instances/{{}}{suffix}'] = _inst(
                api, suffix, json=body, **extra
            )
        m['GET', f'{base}/vnf_lcm_op_occs'] = _lists(
            f'{base}/vnf_lcm_op_occs', lambda w: w.occ
        )
        m['GET', f'{base}/vnf_lcm_op_occs/{{}}'] = _occ(api, '', **extra)
        for suffix in ('/retry', '/rollback', '/fail'):
            m['POST', f'{base}/vnf_lcm_op_occs/{{}}{suffix}'] = _occ(
                api, suffix, **extra
            )
        m['POST', f'{base}/vnf_lcm_op_occs/{{}}/cancel'] = _occ(
            api, '/cancel', json={'cancelMode': 'GRACEFUL'}, **extra
        )
        m['POST', f'{base}/subscriptions'] = lambda w, b=base, x=extra: (
            Request(
                'POST',
                f'{b}/subscriptions',
                dict(x, json={'callbackUri': _new_callback()}),
            )
        )
        m['GET', f'{base}/subscriptions'] = lambda w, a=api: Request(
            'GET',
            f'/vnflcm/{a}/subscriptions',
            listed=w.subscription(a),
        )
        m['GET', f'{base}/subscriptions/{{}}'] = _subscription(api, 'GET')
        m['DELETE', f'{base}/subscriptions/{{}}'] = _subscription(
            api, 'DELETE'
        )
    pkgs = '/vnfpkgm/v1/vnf_packages'
    m['GET', '/vnfpkgm/v1/api_versions'] = lambda w: Request(
        'GET', '/vnfpkgm/v1/api_versions'
    )
    m['POST', pkgs] = lambda w: Request('POST', pkgs, {'json': {}})
    m['GET', pkgs] = _lists(pkgs, lambda w: w.pkg['id'])
    m['GET', pkgs + '/{}'] = _pkg('', 'GET', fresh=False)
    m['PATCH', pkgs + '/{}'] = _pkg(
        '', 'PATCH', json={'userDefinedData': {'k': 'v'}}, headers=MERGE
    )
    m['DELETE', pkgs + '/{}'] = _pkg('', 'DELETE')
    m['PUT', pkgs + '/{}/package_content'] = _pkg(
        '/package_content',
        'PUT',
        data=TINY_ZIP,
        headers={'Content-Type': 'application/zip'},
    )
    m['POST', pkgs + '/{}/package_content/upload_from_uri'] = _pkg(
        '/package_content/upload_from_uri',
        'POST',
        json={'addressInformation': 'http://127.0.0.1:9/p.zip'},
    )
    m['GET', pkgs + '/{}/package_content'] = _pkg(
        '/package_content', 'GET', fresh=False
    )
    m['GET', pkgs + '/{}/vnfd'] = _pkg(
        '/vnfd', 'GET', fresh=False, headers={'Accept': 'text/plain'}
    )
    m['GET', pkgs + '/{}/artifacts/{}'] = lambda w: Request(
        'GET',
        f'{pkgs}/{w.pkg["id"]}/artifacts/{w.artifact}',
        target=f'{pkgs}/{w.pkg["id"]}',
    )
    subscs = '/vnfpkgm/v1/subscriptions'
    m['POST', subscs] = lambda w: Request(
        'POST', subscs, {'json': {'callbackUri': _new_callback()}}
    )
    m['GET', subscs] = lambda w: Request(
        'GET', subscs, listed=w.subscription('/vnfpkgm/v1')
    )
    m['GET', subscs + '/{}'] = _subscription('/vnfpkgm/v1', 'GET')
    m['DELETE', subscs + '/{}'] = _subscription('/vnfpkgm/v1', 'DELETE')
    for suffix in ('', '.json'):
        m['POST', f'/v1.0/vims{suffix}'] = lambda w, s=suffix: Request(
            'POST', f'/v1.0/vims{s}', {'json': vim_body()}
        )
        m['GET', f'/v1.0/vims{suffix}'] = _lists(
            f'/v1.0/vims{suffix}', lambda w: w.vim()
        )
        m['GET', f'/v1.0/vims/{{}}{suffix}'] = _vim('GET', suffix)
        m['PUT', f'/v1.0/vims/{{}}{suffix}'] = _vim(
            'PUT', suffix, json={'vim': {'description': 'changed'}}
        )
        m['DELETE', f'/v1.0/vims/{{}}{suffix}'] = _vim('DELETE', suffix)
    return m


MATRIX = _matrix()


def _for_another_project(w: World) -> Request:
    """Registers a VIM for the owning project (``tenant_id``)."""
    body = vim_body(tenant_id=w.vim_project)
    return Request('POST', '/v1.0/vims', {'json': body})


#: Rules whose route is already probed by another rule's entry: the probe
#: for the rule itself.
RULE_PROBES: dict[str, Probe] = {
    policies.VIM_FOR_PROJECT: _for_another_project,
}


def probe_of(rule: str, method: str, path: str) -> Probe | None:
    return RULE_PROBES.get(rule) or MATRIX.get((method, path))


CASES = sorted(table_routes())


# -- the verdict --------------------------------------------------------------


def _check_str(rule: str) -> str:
    """The default of ``rule`` (KeyError: a route's rule is missing from
    the policy table)."""
    return {r.name: r.check_str for r in policies.list_rules()}[rule]


def expected(rule: str, req: Request, role: str, side: str) -> str:
    """allowed | forbidden (403) | hidden (404) | refused (422) |
    filtered (a list without the owner's resources)."""
    check = _check_str(rule)
    if check == policies.ANY or role == 'admin':
        return 'allowed'
    if rule == policies.VIM_FOR_PROJECT:
        # tenant_id names the caller's own project on the owner's side.
        return 'allowed' if side == 'own' and role == 'member' else 'forbidden'
    if check == policies.ADMIN:
        return 'forbidden'
    if check == policies.ADMIN_OR_MEMBER and role == 'reader':
        return 'forbidden'
    if side == 'own':
        return 'allowed'
    if req.listed:
        return 'filtered'
    if req.target:
        return 'hidden'
    if req.path.endswith('/vnf_instances') and req.method == 'POST':
        return 'refused'  # names the owner's vnfdId
    return 'allowed'


_STATUS = {'forbidden': 403, 'hidden': 404, 'refused': 422}


def ids(body: Any) -> set[str]:
    items = body.get('vims', []) if isinstance(body, dict) else body
    return {i.get('id') for i in items if isinstance(i, dict)}


def verdict(
    want: str, req: Request, r: requests.Response, owned: set[str]
) -> str | None:
    """What is wrong with answer ``r`` (None: nothing); ``owned``: the
    owning project's ids."""
    if want == 'allowed':
        if r.status_code in (401, 403, 404) or r.status_code >= 500:
            return f'refused or failed: {r.status_code} {r.text[:200]}'
        if req.listed and req.listed not in ids(r.json()):
            return 'the list lacks the resource'
        return None
    if want == 'filtered':
        if r.status_code != 200:
            return f'{r.status_code} {r.text[:200]}'
        if shown := ids(r.json()) & owned:
            return f"the list shows the other project's {sorted(shown)}"
        return None
    if r.status_code != _STATUS[want]:
        return f'{r.status_code} instead of {_STATUS[want]}: {r.text[:200]}'
    if CANARY in r.text:
        return "the refusal shows the other project's data"
    return None


def snapshot(w: World, target: str | None) -> Any:
    if target is None:
        return None
    headers = {'Version': '1.3.0'} if target.startswith('/vnflcm/v1') else {}
    r = w.owner.call('GET', target, headers=headers)
    ops = w.owner.call(
        'GET',
        '/vnflcm/v2/vnf_lcm_op_occs',
        params={'filter': f'(eq,vnfInstanceId,{target.rsplit("/", 1)[1]})'},
    )
    return r.status_code, r.text, ops.text
