"""The tenancy matrix: every route of /vnflcm/v1, /vnflcm/v2, /vnfpkgm/v1
and /v1.0/vims (taken from the policy table and the route table, so a new
route without an entry here fails) for an admin, a member and a reader of
the owning project and of a foreign project, with Keystone tokens of the
local cloud; then the ids a body names in another project.

A leak is any answer a principal should not get: a change or a view of the
other project's resource, a denial that says more than "not found", or an
owner's resource changed by a refused request.
"""

from __future__ import annotations

import dataclasses
import io
import json
import re
import uuid
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from oslo_policy import policy

from tests.integration import conftest
from vnfm.server import policies
from vnfm.server import router
from vnfm.testing import procs
from vnfm.testing.openstack import identity
from vnfm.testing.openstack.cloud import ADMIN
from vnfm.testing.openstack.cloud import LocalCloud
from vnfm.testing.openstack.vnfm_service import VnfmIdentity

PREFIXES = ('/vnflcm/v1', '/vnflcm/v2', '/vnfpkgm/v1', '/v1.0/vims')
ROLES = ('admin', 'member', 'reader')
SIDES = ('own', 'foreign')
#: Where the owning project's resources are made; the foreign project.
OWNER, FOREIGN = 'demo', 'other'
CANARY = 'canary-' + uuid.uuid4().hex[:12]
MERGE = {'Content-Type': 'application/merge-patch+json'}
_FIGURES: dict[str, int] = {'cases': 0, 'leaks': 0, 'body_refs': 0}


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


# -- principals ---------------------------------------------------------------


@dataclasses.dataclass
class Principal:
    """A Keystone user's token in one project."""

    name: str
    role: str
    side: str
    token: str
    project_id: str


def _extra_user(
    cloud: LocalCloud, admin: identity.Admin, project: str, role: str
) -> identity.Account:
    account = identity.Account(
        f'tenancy-{project}-{role}-{uuid.uuid4().hex[:6]}',
        uuid.uuid4().hex,
        project,
        role,
    )
    admin.account(account)
    return account


@pytest.fixture(scope='module')
def principals(local_cloud: LocalCloud) -> dict[tuple[str, str], Principal]:
    """(role, side) -> principal; demo and other are the test accounts,
    the rest are made here."""
    admin = identity.Admin(local_cloud.auth_url, local_cloud.account(ADMIN))
    accounts = {
        ('member', 'own'): local_cloud.account('demo'),
        ('reader', 'own'): local_cloud.account('demo-reader'),
        ('member', 'foreign'): local_cloud.account('other'),
        ('admin', 'own'): _extra_user(local_cloud, admin, OWNER, 'admin'),
        ('admin', 'foreign'): _extra_user(
            local_cloud, admin, FOREIGN, 'admin'
        ),
        ('reader', 'foreign'): _extra_user(
            local_cloud, admin, FOREIGN, 'reader'
        ),
    }
    out = {}
    for (role, side), account in accounts.items():
        sess = identity.session(local_cloud.auth_url, account)
        out[role, side] = Principal(
            account.username,
            role,
            side,
            sess.get_token(),
            sess.get_project_id(),
        )
    return out


@pytest.fixture(scope='module')
def vnfm(
    local_cloud: LocalCloud,
    tmp_path_factory: pytest.TempPathFactory,
    zips: dict[str, conftest.Zip],
) -> Iterator[procs.VnfmServices]:
    """vnfm-api under keystonemiddleware and one conductor; callbackUris
    are not tested (no receiver), so a subscription is one request."""
    conf = VnfmIdentity(local_cloud).conf()
    allowed = conftest.zip_scripts_sha256(zips['pkg_a'].path.read_bytes())
    conf['mgmt_driver'] = {'allowed_script_sha256': ','.join(allowed)}
    conf['notifications'] = {'test_callback_uri': False}
    # vimConnectionInfo naming a Kubernetes VIM gets past the vimType check
    # (nothing is contacted: the ids are refused first).
    conf['infra'] = {'enabled_infra_drivers': 'noop,kubernetes'}
    svc = procs.VnfmServices(tmp_path_factory.mktemp('tenancy'), conf=conf)
    with conftest.running('vnfm', svc, conductors=1):
        yield svc


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
        uri = f'http://127.0.0.1:9/{CANARY}/{uuid.uuid4().hex}'
        body = {'callbackUri': uri}
        return self._made(f'/vnflcm/{api}/subscriptions', body)


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


@pytest.fixture(scope='module')
def world(
    vnfm: procs.VnfmServices,
    principals: dict[tuple[str, str], Principal],
    zips: dict[str, conftest.Zip],
    tmp_path_factory: pytest.TempPathFactory,
) -> World:
    """An onboarded package, and a COMPLETED op, of the owning project."""
    token = principals['member', 'own'].token
    api = conftest.Api(vnfm.api_url, tmp_path_factory.mktemp('hooks') / 'h')
    api.http.headers['X-Auth-Token'] = token
    pkg = api.onboard(zips['pkg_a'].path)
    [artifact, *_] = [a['artifactPath'] for a in pkg['additionalArtifacts']]
    inst = api.create_instance(pkg['vnfdId'], name=CANARY)
    occ = api.start(inst, 'instantiate', api.instantiate_request())
    api.wait_op(occ, 'COMPLETED')
    return World(
        Http(vnfm.api_url, token),
        pkg,
        artifact,
        occ,
        inst,
        principals['member', 'own'].project_id,
        {pkg['id'], occ, inst},
    )


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
        item = f'/vnflcm/{api}/subscriptions/{w.subscription(api)}'
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


def _v1(body: dict | None = None) -> dict:
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


def _probe_of(rule: str, method: str, path: str) -> Probe | None:
    return RULE_PROBES.get(rule) or MATRIX.get((method, path))


CASES = sorted(table_routes())


def test_every_route_of_the_policy_and_route_tables_has_a_probe() -> None:
    missing = [c for c in CASES if _probe_of(*c) is None]
    assert not missing, f'routes without a tenancy probe: {missing}'
    stale = set(MATRIX) - {(m, p) for _, m, p in CASES}
    assert not stale, f'probes of routes that no longer exist: {stale}'


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


def _ids(body: Any) -> set[str]:
    items = body.get('vims', []) if isinstance(body, dict) else body
    return {i.get('id') for i in items if isinstance(i, dict)}


def _verdict(
    want: str, req: Request, r: requests.Response, owned: set[str]
) -> str | None:
    """What is wrong with answer ``r`` (None: nothing); ``owned``: the
    owning project's ids."""
    if want == 'allowed':
        if r.status_code in (401, 403, 404) or r.status_code >= 500:
            return f'refused or failed: {r.status_code} {r.text[:200]}'
        if req.listed and req.listed not in _ids(r.json()):
            return 'the list lacks the resource'
        return None
    if want == 'filtered':
        if r.status_code != 200:
            return f'{r.status_code} {r.text[:200]}'
        if shown := _ids(r.json()) & owned:
            return f"the list shows the other project's {sorted(shown)}"
        return None
    if r.status_code != _STATUS[want]:
        return f'{r.status_code} instead of {_STATUS[want]}: {r.text[:200]}'
    if CANARY in r.text:
        return "the refusal shows the other project's data"
    return None


def _snapshot(w: World, target: str | None) -> Any:
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


@pytest.mark.parametrize('side', SIDES)
@pytest.mark.parametrize('role', ROLES)
@pytest.mark.parametrize(
    'case', CASES, ids=['{} {} {}'.format(*c) for c in CASES]
)
def test_tenancy_matrix(
    case: tuple[str, str, str],
    role: str,
    side: str,
    world: World,
    vnfm: procs.VnfmServices,
    principals: dict[tuple[str, str], Principal],
) -> None:
    rule, method, path = case
    req = _probe_of(rule, method, path)(world)  # type: ignore[misc]
    want = expected(rule, req, role, side)
    before = _snapshot(world, req.target)

    who = Http(vnfm.api_url, principals[role, side].token)
    r = who.call(req.method, req.path, **req.kw)

    problem = _verdict(want, req, r, world.owned)
    refused = want not in ('allowed', 'filtered')
    if problem is None and refused and _snapshot(world, req.target) != before:
        problem = "a refused request changed the other project's resource"
    _FIGURES['cases'] += 1
    _FIGURES['leaks'] += problem is not None
    assert problem is None, f'{role}/{side} {req.method} {req.path}: {problem}'


# -- ids a body names ---------------------------------------------------------


@pytest.fixture(scope='module')
def foreign(vnfm: procs.VnfmServices, principals: dict) -> Http:
    """A member of the foreign project."""
    return Http(vnfm.api_url, principals['member', 'foreign'].token)


@pytest.fixture(scope='module')
def foreign_instance(
    foreign: Http, zips: dict[str, conftest.Zip], world: World
) -> str:
    """A NOT_INSTANTIATED instance of the foreign project (own package)."""
    api = conftest.Api(foreign.base, Path('/nonexistent'))
    api.http.headers['X-Auth-Token'] = foreign.http.headers['X-Auth-Token']
    pkg = api.onboard(zips['pkg_b'].path)
    return api.create_instance(pkg['vnfdId'], name='foreign')


@pytest.fixture(scope='module')
def foreign_instantiated(foreign: Http, foreign_instance: str) -> str:
    """An INSTANTIATED instance of the foreign project (noop VIM)."""
    api = conftest.Api(foreign.base, Path('/nonexistent'))
    api.http.headers['X-Auth-Token'] = foreign.http.headers['X-Auth-Token']
    vnfd_id = api.instance(foreign_instance)['vnfdId']
    inst = api.create_instance(vnfd_id, name='foreign-instantiated')
    api.wait_op(
        api.start(inst, 'instantiate', api.instantiate_request()), 'COMPLETED'
    )
    return inst


NO_VIM = 'is registered in this project'
NO_VNFD = 'No onboarded VNF package has vnfdId'
NO_PKG = 'no such VNF package'


def _body_refs(w: World, inst: str) -> list[tuple[str, str, dict, str]]:
    """(method, path, request kwargs, what the 422 says) naming the
    owner's ids."""
    vim_id = w.vim()
    named = {'vimId': vim_id, 'vimType': 'ETSINFV.KUBERNETES.V_1'}
    v1_named = [{'id': 'v', 'vimId': vim_id, 'vimType': 'kubernetes'}]
    v2, v1 = '/vnflcm/v2/vnf_instances', '/vnflcm/v1/vnf_instances'
    own_pkg = w.pkg
    return [
        (
            'POST',
            f'{v2}/{inst}/instantiate',
            {
                'json': {
                    'flavourId': 'simple',
                    'vimConnectionInfo': {'v': named},
                }
            },
            NO_VIM,
        ),
        (
            'POST',
            f'{v1}/{inst}/instantiate',
            _v1({'flavourId': 'simple', 'vimConnectionInfo': v1_named}),
            NO_VIM,
        ),
        (
            'POST',
            v2,
            {
                'json': {
                    'vnfdId': own_pkg['vnfdId'],
                    'vimConnectionInfo': {'v': named},
                }
            },
            NO_VIM,
        ),
        (
            'POST',
            v1,
            _v1({'vnfdId': own_pkg['vnfdId'], 'vimConnectionInfo': v1_named}),
            NO_VIM,
        ),
        (
            'PATCH',
            f'{v2}/{inst}',
            {
                'data': json.dumps({'vimConnectionInfo': {'v': named}}),
                'headers': MERGE,
            },
            NO_VIM,
        ),
        (
            'PATCH',
            f'{v2}/{inst}',
            {
                'data': json.dumps({'vnfdId': own_pkg['vnfdId']}),
                'headers': MERGE,
            },
            NO_VNFD,
        ),
        (
            'PATCH',
            f'{v1}/{inst}',
            {
                'data': json.dumps({'vnfPkgId': own_pkg['id']}),
                'headers': {**MERGE, 'Version': '1.3.0'},
            },
            NO_PKG,
        ),
    ]


def test_ids_a_body_names_in_another_project_are_refused(
    world: World,
    foreign: Http,
    foreign_instance: str,
    foreign_instantiated: str,
) -> None:
    """vimId (v1 and v2, create, instantiate, modify), vnfdId (create,
    modify, change_vnfpkg) and vnfPkgId of the owning project, named by a
    member of another."""
    leaks = []
    change = (
        'POST',
        f'/vnflcm/v2/vnf_instances/{foreign_instantiated}/change_vnfpkg',
        {'json': {'vnfdId': world.pkg['vnfdId']}},
        NO_VNFD,
    )
    for method, path, kw, says in [
        *_body_refs(world, foreign_instance),
        change,
    ]:
        r = foreign.call(method, path, **kw)
        _FIGURES['body_refs'] += 1
        if r.status_code != 422 or says not in r.text or CANARY in r.text:
            leaks.append((method, path, r.status_code, r.text[:200]))
    _FIGURES['leaks'] += len(leaks)
    assert not leaks
    ops = foreign.call(
        'GET',
        '/vnflcm/v2/vnf_lcm_op_occs',
        params={'filter': f'(eq,vnfInstanceId,{foreign_instance})'},
    )
    assert ops.json() == []


def test_a_row_stored_before_the_check_gets_no_credentials(
    world: World,
    foreign: Http,
    foreign_instance: str,
    vnfm: procs.VnfmServices,
) -> None:
    """An instance of the foreign project whose stored vimConnectionInfo
    names the owner's VIM (written before the API checked it): its
    instantiate fails in the conductor, and the VIM's token shows
    nowhere."""
    vnfd_id = foreign.call(
        'GET', f'/vnflcm/v2/vnf_instances/{foreign_instance}'
    ).json()['vnfdId']
    body = {'vnfdId': vnfd_id, 'vnfInstanceName': 'stored-before'}
    inst = foreign.made('/vnflcm/v2/vnf_instances', body)['id']
    entry = {'vimId': world.vim(), 'vimType': 'ETSINFV.KUBERNETES.V_1'}
    vnfm.sql(
        'UPDATE vnf_instances SET vim_connection_info = %s WHERE id = %s',
        (json.dumps({'v': entry}), inst),
    )

    r = foreign.call(
        'POST',
        f'/vnflcm/v2/vnf_instances/{inst}/instantiate',
        json={'flavourId': 'simple'},
    )

    assert r.status_code == 202, r.text
    occ = r.headers['Location'].rsplit('/', 1)[1]
    api = conftest.Api(foreign.base, Path('/nonexistent'))
    api.http.headers['X-Auth-Token'] = foreign.http.headers['X-Auth-Token']
    op = api.wait_op(occ, {'FAILED_TEMP', 'ROLLED_BACK'})
    assert 'is not registered in project' in op['error']['detail']
    token = f'{CANARY}-token'
    assert token not in json.dumps(op)
    logs = ''.join(p.read_text(errors='replace') for p in vnfm.logs.values())
    assert token not in logs


@pytest.mark.parametrize(
    'path,query',
    [
        ('/vnflcm/v2/vnf_instances', 'filter=(eq,id,{inst})'),
        ('/vnflcm/v1/vnf_instances', 'filter=(eq,id,{inst})'),
        ('/vnflcm/v2/vnf_lcm_op_occs', 'filter=(eq,vnfInstanceId,{inst})'),
        ('/vnflcm/v1/vnf_lcm_op_occs', 'filter=(eq,id,{occ})'),
        ('/vnfpkgm/v1/vnf_packages', 'filter=(eq,vnfdId,{vnfd})'),
        ('/v1.0/vims', 'name={vim_name}'),
    ],
)
def test_a_filter_naming_another_projects_ids_finds_nothing(
    world: World, foreign: Http, path: str, query: str
) -> None:
    vim = world.owner.call('GET', f'/v1.0/vims/{world.vim()}').json()['vim']
    filled = query.format(
        inst=world.inst_with_op,
        occ=world.occ,
        vnfd=world.pkg['vnfdId'],
        vim_name=vim['name'],
    )

    r = foreign.call('GET', f'{path}?{filled}')

    _FIGURES['body_refs'] += 1
    _FIGURES['leaks'] += r.status_code != 200 or bool(_ids(r.json()))
    assert r.status_code == 200, r.text
    assert _ids(r.json()) == set()
    assert CANARY not in r.text


def test_figures(record_property: Callable[[str, object], None]) -> None:
    """Prints the figures of the run for the record (runs last)."""
    if not _FIGURES['cases']:
        pytest.skip('the figures are those of a run of the matrix')
    routes = len(CASES)
    roles = len(ROLES) * len(SIDES)
    figures = {
        'routes': routes,
        'principals': roles,
        'cases_run': _FIGURES['cases'],
        'body_and_filter_refs': _FIGURES['body_refs'],
        'leaks': _FIGURES['leaks'],
    }
    record_property('tenancy', figures)
    print('tenancy matrix:', json.dumps(figures))
    assert _FIGURES['leaks'] == 0
