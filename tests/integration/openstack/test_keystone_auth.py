"""vnfm-api with ``[api] auth_strategy = keystone`` against the local
Keystone: the real client with password authentication through the
catalog, 401s, the policy defaults by role, and project isolation of VNF
instances, packages and VIMs."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from tests.integration import conftest
from vnfm_testbed import procs
from vnfm_testbed.client import ClientError
from vnfm_testbed.client import TackerClient
from vnfm_testbed.openstack import identity
from vnfm_testbed.openstack.cloud import ADMIN
from vnfm_testbed.openstack.cloud import LocalCloud
from vnfm_testbed.openstack.vnfm_service import VnfmIdentity

V2 = {'Version': '2.0.0'}
PKGS = '/vnfpkgm/v1/vnf_packages'
VIMS = '/v1.0/vims'


@pytest.fixture(scope='module')
def vnfm(
    local_cloud: LocalCloud,
    tmp_path_factory: pytest.TempPathFactory,
    zips: dict[str, conftest.Zip],
    hook_record: Path,
) -> Iterator[procs.VnfmServices]:
    """vnfm-api (keystonemiddleware) and a conductor, registered in the
    local Keystone's catalog as ``nfv-orchestration``."""
    ident = VnfmIdentity(local_cloud)
    allowed = conftest.zip_scripts_sha256(zips['pkg_a'].path.read_bytes())
    conf = ident.conf()
    conf['mgmt_driver'] = {'allowed_script_sha256': ','.join(allowed)}
    # Debug logs of everything a token passes through (oslo.log keeps
    # these libraries at WARN by default), where it could show.
    conf['DEFAULT'] = {
        'debug': True,
        'default_log_levels': ','.join(
            f'{lib}=DEBUG'
            for lib in (
                'keystonemiddleware',
                'keystoneauth',
                'urllib3',
                'oslo_policy',
            )
        ),
    }
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('vnfm-keystone'),
        conf=conf,
        env={'VNFM_HOOK_RECORD': str(hook_record)},
    )
    with conftest.running('vnfm', svc, conductors=1):
        ident.register(svc.api_url)
        yield svc


class User:
    """Raw HTTP to vnfm as one Keystone user (a token of its project)."""

    def __init__(self, cloud: LocalCloud, name: str, base: str) -> None:
        sess = cloud.session(name)
        self.token = sess.get_token()
        self.project_id = sess.get_project_id()
        self.base = base
        self.http = requests.Session()
        self.http.headers['X-Auth-Token'] = self.token

    def call(self, method: str, path: str, **kw: Any) -> requests.Response:
        """``method path`` (``Version: 2.0.0`` on /vnflcm/v2)."""
        if path.startswith('/vnflcm/v2'):
            kw['headers'] = {**V2, **kw.get('headers', {})}
        return self.http.request(method, self.base + path, timeout=30, **kw)

    def status(self, method: str, path: str, **kw: Any) -> int:
        """The status code of ``method path``."""
        return self.call(method, path, **kw).status_code

    def ids(self, path: str) -> set[str]:
        """Ids in the list at ``path``."""
        r = self.call('GET', path)
        assert r.status_code == 200, r.text
        body = r.json()
        items = body['vims'] if path.startswith(VIMS) else body
        return {item['id'] for item in items}

    def api(self, hook_record: Path) -> conftest.Api:
        """The integration tests' Api helper, with this user's token."""
        api = conftest.Api(self.base, hook_record)
        api.http.headers['X-Auth-Token'] = self.token
        return api


@pytest.fixture(scope='module')
def users(
    local_cloud: LocalCloud, vnfm: procs.VnfmServices
) -> dict[str, User]:
    """admin, demo (member of demo), demo-reader (reader of demo), other
    (member of other)."""
    return {
        name: User(local_cloud, name, vnfm.api_url)
        for name in (ADMIN, 'demo', 'demo-reader', 'other')
    }


@pytest.fixture(scope='module')
def demo_pkg(
    users: dict[str, User], zips: dict[str, conftest.Zip], hook_record: Path
) -> dict:
    """A package onboarded by demo (project demo)."""
    return users['demo'].api(hook_record).onboard(zips['pkg_a'].path)


@pytest.fixture(scope='module')
def other_pkg(
    users: dict[str, User], zips: dict[str, conftest.Zip], hook_record: Path
) -> dict:
    """A package onboarded by other (project other)."""
    return users['other'].api(hook_record).onboard(zips['pkg_b'].path)


@pytest.fixture(scope='module')
def demo_instance(
    users: dict[str, User], demo_pkg: dict, hook_record: Path
) -> str:
    """A NOT_INSTANTIATED instance of project demo."""
    api = users['demo'].api(hook_record)
    return api.create_instance(demo_pkg['vnfdId'], name='demo-inst')


def _vim_body(name: str, **extra: Any) -> dict:
    return {
        'vim': {
            'name': name,
            'type': 'kubernetes',
            'auth_url': 'https://127.0.0.1:6443',
            'vim_project': {'name': 'default'},
            'auth_cred': {'bearer_token': 'tok-' + uuid.uuid4().hex},
            **extra,
        }
    }


@pytest.fixture(scope='module')
def demo_vim(users: dict[str, User]) -> str:
    """A VIM registered by demo."""
    r = users['demo'].call('POST', VIMS, json=_vim_body('demo-vim'))
    assert r.status_code == 201, r.text
    return str(r.json()['vim']['id'])


# -- the real client, through the catalog ------------------------------------


def test_client_finds_vnfm_by_service_type(
    local_cloud: LocalCloud, demo_instance: str, demo_pkg: dict, demo_vim: str
) -> None:
    client = TackerClient.with_password(local_cloud.credentials('demo'))

    instances = client.lcm_json('list')
    packages = client.pkg_json('list')
    vims = client.json('vim', 'list')

    assert [i['ID'] for i in instances] == [demo_instance]
    assert demo_pkg['id'] in {p['Id'] for p in packages}
    assert [v['ID'] for v in vims] == [demo_vim]
    shown = client.lcm_json('show', demo_instance)
    assert shown['ID'] == demo_instance


def test_client_onboards_and_creates_with_a_members_token(
    local_cloud: LocalCloud,
    users: dict[str, User],
    zips: dict[str, conftest.Zip],
) -> None:
    client = TackerClient.with_password(local_cloud.credentials('demo'))

    pkg_id = client.pkg_json('create')['ID']
    client.pkg('upload', pkg_id, '--path', str(zips['v2'].path))
    conftest.wait_for(
        lambda: (
            client.pkg_json('show', pkg_id)['Onboarding State'] == 'ONBOARDED'
        ),
        60,
        f'package {pkg_id} ONBOARDED',
    )
    inst_id = client.lcm_json('create', zips['v2'].vnfd_id)['ID']

    assert users['demo-reader'].status('GET', f'{PKGS}/{pkg_id}') == 200
    assert users['other'].status('GET', f'{PKGS}/{pkg_id}') == 404
    assert 'deleted successfully' in client.lcm('delete', inst_id)
    client.pkg('update', pkg_id, '--operational-state', 'DISABLED')
    assert 'deleted successfully' in client.pkg('delete', pkg_id)


def test_client_with_a_readers_token_is_refused(
    local_cloud: LocalCloud, demo_pkg: dict
) -> None:
    client = TackerClient.with_password(local_cloud.credentials('demo-reader'))

    assert demo_pkg['id'] in {p['Id'] for p in client.pkg_json('list')}
    with pytest.raises(ClientError) as e:
        client.lcm('create', demo_pkg['vnfdId'])
    assert 'Policy does not allow' in e.value.output


def test_client_of_another_project_sees_nothing_of_demo(
    local_cloud: LocalCloud, demo_instance: str, demo_pkg: dict
) -> None:
    client = TackerClient.with_password(local_cloud.credentials('other'))

    assert client.lcm_json('list') == []
    assert demo_pkg['id'] not in {p['Id'] for p in client.pkg_json('list')}
    with pytest.raises(ClientError) as e:
        client.lcm('show', demo_instance)
    assert 'does not exist' in e.value.output


def test_wrong_password_fails_at_keystone(local_cloud: LocalCloud) -> None:
    creds = local_cloud.credentials('demo') | {'password': 'wrong'}
    client = TackerClient.with_password(creds)

    with pytest.raises(ClientError) as e:
        client.lcm('list')
    assert '401' in e.value.output


# -- no token, a bad token ---------------------------------------------------


@pytest.mark.parametrize(
    'path',
    ['/vnflcm/v2/vnf_instances', PKGS, VIMS, '/vnflcm/v1/vnf_instances'],
)
@pytest.mark.parametrize('token', [None, 'not-a-token', 'gAAAAABbad'])
def test_without_a_valid_token_401(
    local_cloud: LocalCloud,
    vnfm: procs.VnfmServices,
    path: str,
    token: str | None,
) -> None:
    headers = {**V2, **({'X-Auth-Token': token} if token else {})}
    r = requests.get(vnfm.api_url + path, headers=headers, timeout=30)

    assert r.status_code == 401
    assert r.headers['Content-Type'] == 'application/problem+json'
    problem = r.json()
    assert problem['status'] == 401 and 'token' in problem['detail']
    assert r.headers['WWW-Authenticate'] == (
        f'Keystone uri="{local_cloud.auth_url}/v3"'
    )


def test_a_domain_scoped_token_is_refused(
    local_cloud: LocalCloud, vnfm: procs.VnfmServices
) -> None:
    """A member of a domain has no project its resources could belong to."""
    admin = identity.Admin(local_cloud.auth_url, local_cloud.account(ADMIN))
    name, password = f'dom-{uuid.uuid4().hex[:8]}', uuid.uuid4().hex
    admin.grant('member', admin.user(name, password), domain_id='default')
    auth = v3.Password(
        auth_url=f'{local_cloud.auth_url}/v3',
        username=name,
        password=password,
        user_domain_name='Default',
        domain_name='Default',
    )
    token = ks_session.Session(auth=auth, timeout=30).get_token()

    r = requests.get(
        vnfm.api_url + '/vnflcm/v2/vnf_instances',
        headers={**V2, 'X-Auth-Token': token},
        timeout=30,
    )
    assert r.status_code == 403, r.text
    assert 'project-scoped' in r.json()['detail']


def test_a_bad_token_changes_nothing(
    vnfm: procs.VnfmServices, demo_pkg: dict
) -> None:
    before = vnfm.sql('SELECT id FROM vnf_instances')
    r = requests.post(
        vnfm.api_url + '/vnflcm/v2/vnf_instances',
        json={'vnfdId': demo_pkg['vnfdId']},
        headers={**V2, 'X-Auth-Token': 'forged'},
        timeout=30,
    )
    assert r.status_code == 401
    assert vnfm.sql('SELECT id FROM vnf_instances') == before


# -- the policy defaults by role ---------------------------------------------


def test_reader_reads_but_changes_nothing(
    users: dict[str, User],
    demo_pkg: dict,
    demo_instance: str,
    demo_vim: str,
) -> None:
    reader = users['demo-reader']
    inst = f'/vnflcm/v2/vnf_instances/{demo_instance}'

    assert demo_instance in reader.ids('/vnflcm/v2/vnf_instances')
    assert reader.status('GET', inst) == 200
    assert demo_pkg['id'] in reader.ids(PKGS)
    assert reader.status('GET', f'{PKGS}/{demo_pkg["id"]}') == 200
    assert reader.status('GET', f'{PKGS}/{demo_pkg["id"]}/vnfd') == 200
    assert reader.ids(VIMS) == {demo_vim}

    create = {'vnfdId': demo_pkg['vnfdId']}
    forbidden = [
        reader.call('POST', '/vnflcm/v2/vnf_instances', json=create),
        reader.call(
            'POST',
            f'{inst}/instantiate',
            json=conftest.Api.instantiate_request(),
        ),
        reader.call('DELETE', inst),
        reader.call('POST', PKGS, json={}),
        reader.call('DELETE', f'{PKGS}/{demo_pkg["id"]}'),
        reader.call('POST', VIMS, json=_vim_body('reader-vim')),
        reader.call('DELETE', f'{VIMS}/{demo_vim}'),
    ]
    for r in forbidden:
        assert r.status_code == 403, (r.request.method, r.url, r.text)
        assert 'Policy does not allow' in r.json()['detail']
    assert reader.status('GET', inst) == 200


def test_member_creates_instantiates_and_deletes(
    users: dict[str, User], demo_pkg: dict, hook_record: Path
) -> None:
    api = users['demo'].api(hook_record)
    inst_id = api.create_instance(demo_pkg['vnfdId'], name='member')

    op_id = api.start(inst_id, 'instantiate', api.instantiate_request())
    api.wait_op(op_id, 'COMPLETED')
    other = users['other']
    occ = f'/vnflcm/v2/vnf_lcm_op_occs/{op_id}'
    assert op_id not in other.ids('/vnflcm/v2/vnf_lcm_op_occs')
    assert other.status('GET', occ) == 404
    assert other.status('POST', f'{occ}/fail') == 404
    assert op_id in users['demo-reader'].ids('/vnflcm/v2/vnf_lcm_op_occs')
    op_id = api.start(inst_id, 'terminate', {'terminationType': 'FORCEFUL'})
    api.wait_op(op_id, 'COMPLETED')
    api.ok('DELETE', f'/vnf_instances/{inst_id}', 204)


def test_admin_sees_and_acts_on_every_project(
    users: dict[str, User],
    demo_pkg: dict,
    other_pkg: dict,
    demo_instance: str,
    demo_vim: str,
    hook_record: Path,
) -> None:
    admin, other = users[ADMIN], users['other']
    other_api = other.api(hook_record)
    other_inst = other_api.create_instance(other_pkg['vnfdId'], name='o')

    assert {demo_instance, other_inst} <= admin.ids('/vnflcm/v2/vnf_instances')
    assert {demo_pkg['id'], other_pkg['id']} <= admin.ids(PKGS)
    assert demo_vim in admin.ids(VIMS)
    assert admin.status('GET', f'{VIMS}/{demo_vim}') == 200
    # An administrator registers a VIM for another project; a member may
    # not.
    body = _vim_body('for-other', tenant_id=other.project_id)
    assert users['demo'].status('POST', VIMS, json=body) == 403
    r = admin.call('POST', VIMS, json=body)
    assert r.status_code == 201, r.text
    vim_id = r.json()['vim']['id']
    assert other.ids(VIMS) == {vim_id}
    assert admin.status('DELETE', f'{VIMS}/{vim_id}') == 204
    assert (
        admin.status('DELETE', f'/vnflcm/v2/vnf_instances/{other_inst}') == 204
    )


# -- project isolation -------------------------------------------------------


def test_another_projects_instance_is_invisible_and_untouchable(
    users: dict[str, User], demo_instance: str
) -> None:
    other, demo = users['other'], users['demo']
    inst = f'/vnflcm/v2/vnf_instances/{demo_instance}'

    assert demo_instance not in other.ids('/vnflcm/v2/vnf_instances')
    assert demo_instance not in other.ids('/vnflcm/v1/vnf_instances')
    attempts = [
        other.call('GET', inst),
        other.call('GET', f'/vnflcm/v1/vnf_instances/{demo_instance}'),
        other.call(
            'POST',
            f'{inst}/instantiate',
            json=conftest.Api.instantiate_request(),
        ),
        other.call(
            'PATCH',
            inst,
            data=b'{"vnfInstanceName": "taken"}',
            headers={'Content-Type': 'application/merge-patch+json'},
        ),
        other.call('DELETE', inst),
    ]
    for r in attempts:
        assert r.status_code == 404, (r.request.method, r.url, r.text)
    shown = demo.call('GET', inst).json()
    assert shown['vnfInstanceName'] == 'demo-inst'
    assert shown['instantiationState'] == 'NOT_INSTANTIATED'


def test_another_projects_package_is_invisible_and_unusable(
    users: dict[str, User], demo_pkg: dict
) -> None:
    other, demo = users['other'], users['demo']
    pkg = f'{PKGS}/{demo_pkg["id"]}'

    assert demo_pkg['id'] not in other.ids(PKGS)
    attempts = [
        other.call('GET', pkg),
        other.call('GET', f'{pkg}/vnfd'),
        other.call('GET', f'{pkg}/package_content'),
        other.call('PATCH', pkg, json={'operationalState': 'DISABLED'}),
        other.call('DELETE', pkg),
    ]
    for r in attempts:
        assert r.status_code == 404, (r.request.method, r.url, r.text)
    r = other.call(
        'POST',
        '/vnflcm/v2/vnf_instances',
        json={'vnfdId': demo_pkg['vnfdId']},
    )
    assert r.status_code == 422, r.text
    assert demo.call('GET', pkg).json()['operationalState'] == 'ENABLED'


def test_another_projects_vim_is_invisible_and_untouchable(
    users: dict[str, User], demo_vim: str
) -> None:
    other, demo = users['other'], users['demo']
    vim = f'{VIMS}/{demo_vim}'

    assert demo_vim not in other.ids(VIMS)
    attempts = [
        other.call('GET', vim),
        other.call('PUT', vim, json={'vim': {'name': 'taken'}}),
        other.call('DELETE', vim),
    ]
    for r in attempts:
        assert r.status_code == 404, (r.request.method, r.url, r.text)
    # The same name is free in another project.
    r = other.call('POST', VIMS, json=_vim_body('demo-vim'))
    assert r.status_code == 201, r.text
    assert other.status('DELETE', f'{VIMS}/{r.json()["vim"]["id"]}') == 204
    assert demo.call('GET', vim).json()['vim']['name'] == 'demo-vim'


def test_tokens_never_logged(
    users: dict[str, User], vnfm: procs.VnfmServices, demo_instance: str
) -> None:
    for user in users.values():
        user.call('GET', f'/vnflcm/v2/vnf_instances/{demo_instance}')

    logs = ''.join(
        path.read_text(errors='replace') for path in vnfm.logs.values()
    )
    # The middleware's debug lines are there: it validated the tokens.
    assert 'keystonemiddleware.auth_token' in logs
    for user in users.values():
        assert user.token not in logs
