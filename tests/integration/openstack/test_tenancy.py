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
import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.integration import conftest
from tests.integration.openstack.tenancy import CANARY
from tests.integration.openstack.tenancy import CASES
from tests.integration.openstack.tenancy import MATRIX
from tests.integration.openstack.tenancy import MERGE
from tests.integration.openstack.tenancy import ROLES
from tests.integration.openstack.tenancy import SIDES
from tests.integration.openstack.tenancy import Http
from tests.integration.openstack.tenancy import World
from tests.integration.openstack.tenancy import expected
from tests.integration.openstack.tenancy import ids
from tests.integration.openstack.tenancy import probe_of
from tests.integration.openstack.tenancy import snapshot
from tests.integration.openstack.tenancy import v1_kw
from tests.integration.openstack.tenancy import verdict
from vnfm_testbed import procs
from vnfm_testbed.openstack import identity
from vnfm_testbed.openstack.cloud import ADMIN
from vnfm_testbed.openstack.cloud import LocalCloud
from vnfm_testbed.openstack.vnfm_service import VnfmIdentity

OWNER, FOREIGN = 'demo', 'other'
_FIGURES: dict[str, int] = {'cases': 0, 'leaks': 0, 'body_refs': 0}

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


def test_every_route_of_the_policy_and_route_tables_has_a_probe() -> None:
    missing = [c for c in CASES if probe_of(*c) is None]
    assert not missing, f'routes without a tenancy probe: {missing}'
    stale = set(MATRIX) - {(m, p) for _, m, p in CASES}
    assert not stale, f'probes of routes that no longer exist: {stale}'


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
    req = probe_of(rule, method, path)(world)  # type: ignore[misc]
    want = expected(rule, req, role, side)
    before = snapshot(world, req.target)

    who = Http(vnfm.api_url, principals[role, side].token)
    r = who.call(req.method, req.path, **req.kw)

    problem = verdict(want, req, r, world.owned)
    refused = want not in ('allowed', 'filtered')
    if problem is None and refused and snapshot(world, req.target) != before:
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
            v1_kw({'flavourId': 'simple', 'vimConnectionInfo': v1_named}),
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
            v1_kw(
                {'vnfdId': own_pkg['vnfdId'], 'vimConnectionInfo': v1_named}
            ),
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
    _FIGURES['leaks'] += r.status_code != 200 or bool(ids(r.json()))
    assert r.status_code == 200, r.text
    assert ids(r.json()) == set()
    assert CANARY not in r.text


def test_figures(record_property: Callable[[str, object], None]) -> None:
    """Prints the figures of the run for the record (runs last)."""
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
    assert _FIGURES['cases'] == routes * roles, 'run the whole module'
    assert _FIGURES['leaks'] == 0
