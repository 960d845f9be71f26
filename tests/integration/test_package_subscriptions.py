"""VNF package subscriptions and notifications end to end (SOL005): vnfm-api
and two conductors on RabbitMQ and PostgreSQL, HTTP receivers on
127.0.0.1. python-tackerclient has no package subscription commands: the
requests are raw HTTP, as an NFVO sends them. Projects are checked with
vnfm-api under keystonemiddleware and tokens of the local Keystone.

A package of its own vnfdId goes through onboarding, disabling and
deletion; one subscription selects it by vnfdId, another selects another
vnfdId and must hear nothing. The subscriptions are deleted afterwards, so
the other tests' packages send nothing to a receiver that is gone.
"""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration import conftest
from tests.unit.conductor import receiver as receivers
from tests.unit.objects.test_package_notifications import assert_sol
from vnfm.csar.build import build_csar
from vnfm.db import outbox
from vnfm_testbed import db as testing_db
from vnfm_testbed import procs
from vnfm_testbed.openstack.cloud import LocalCloud
from vnfm_testbed.openstack.cloudfixtures import local_cloud  # noqa: F401
from vnfm_testbed.openstack.vnfm_service import VnfmIdentity

pytestmark = pytest.mark.timeout(180)

USER, PASSWORD = 'nfvo', 'pkg-notif-pa55'
SUBSCRIPTIONS = '/vnfpkgm/v1/subscriptions'
PKGS = '/vnfpkgm/v1/vnf_packages'

receiver = receivers.receiver  # the fixture


@pytest.fixture
def other_receiver() -> Iterator[receivers.Receiver]:
    """A second receiver, for a subscription that must hear nothing."""
    rcv = receivers.Receiver().start()
    yield rcv
    rcv.stop()


@pytest.fixture
def subscribe(api) -> Iterator:
    """POST a PkgmSubscriptionRequest; the subscriptions made are deleted
    afterwards."""
    made: list[str] = []

    def make(body: dict) -> dict:
        r = api.request('POST', SUBSCRIPTIONS, version=None, json=body)
        assert r.status_code == 201, r.text
        made.append(r.json()['id'])
        return r.json()

    yield make
    for sub_id in made:
        api.request('DELETE', f'{SUBSCRIPTIONS}/{sub_id}', version=None)


def _package(directory: Path) -> tuple[Path, str]:
    """The noop sample with a vnfdId no other test uses, built in
    ``directory``: (zip, vnfdId)."""
    vnfd_id = str(uuid.uuid4())
    src = conftest.package_variant(
        conftest.SAMPLES / 'noop_vnf', directory / 'src', vnfd_id
    )
    path = directory / 'pkg.zip'
    path.write_bytes(build_csar(str(src)))
    return path, vnfd_id


@pytest.fixture
def own_package(tmp_path: Path) -> tuple[Path, str]:
    """A package of its own vnfdId: (zip, vnfdId)."""
    return _package(tmp_path)


def _filtered(callback_uri: str, vnfd_id: str, **auth: dict) -> dict:
    return {
        'callbackUri': callback_uri,
        'filter': {'vnfdId': [vnfd_id]},
        **auth,
    }


def test_package_lifecycle_is_notified(
    api, services, receiver, other_receiver, subscribe, own_package
) -> None:
    zip_path, vnfd_id = own_package
    sub, other = _subscribe_both(receiver, other_receiver, subscribe, vnfd_id)
    pkg_id, got = _onboard_disable_delete(api, receiver, zip_path)
    _check_notifications(services, receiver, got, pkg_id, vnfd_id, sub)
    # The filter of the other subscription selected none of it: no outbox
    # row, written with each change, exists for it.
    with testing_db.use_database(services.db_url):
        assert outbox.notification_list({'subscription_id': other['id']}) == []
    assert other_receiver.received == []


def _subscribe_both(receiver, other_receiver, subscribe, vnfd_id: str):
    receiver.required_auth = (
        'Basic ' + base64.b64encode(f'{USER}:{PASSWORD}'.encode()).decode()
    )
    basic = {
        'authType': ['BASIC'],
        'paramsBasic': {'userName': USER, 'password': PASSWORD},
    }
    sub = subscribe(_filtered(receiver.url, vnfd_id, authentication=basic))
    other = subscribe(_filtered(other_receiver.url, str(uuid.uuid4())))
    # Each callbackUri was tested by a conductor, with its credentials.
    assert [t['headers'].get('Authorization') for t in receiver.tests] == [
        receiver.required_auth
    ]
    assert len(other_receiver.tests) == 1
    return sub, other


def _onboard_disable_delete(api, receiver, zip_path) -> tuple[str, list]:
    """Onboard, disable and delete a package; what the receiver got."""
    pkg_id = api.onboard(zip_path)['id']
    [onboarded] = receiver.wait(1, timeout=30)
    pkg = f'{PKGS}/{pkg_id}'
    r = api.request(
        'PATCH', pkg, version=None, json={'operationalState': 'DISABLED'}
    )
    assert r.status_code == 200, r.text
    r = api.request('DELETE', pkg, version=None)
    assert r.status_code == 204, r.text
    got = receiver.wait(3, timeout=30)
    assert got[0] == onboarded
    return pkg_id, got


def _check_notifications(services, receiver, got, pkg_id, vnfd_id, sub):
    bodies = [g['body'] for g in got]
    assert [
        (b['notificationType'], b.get('changeType'), b.get('operationalState'))
        for b in bodies
    ] == [
        ('VnfPackageOnboardingNotification', None, None),
        ('VnfPackageChangeNotification', 'OP_STATE_CHANGE', 'DISABLED'),
        ('VnfPackageChangeNotification', 'PKG_DELETE', None),
    ]
    base = f'{services.api_url}/vnfpkgm/v1'
    for body in bodies:
        assert_sol(body)
        assert (body['vnfPkgId'], body['vnfdId']) == (pkg_id, vnfd_id)
        assert body['subscriptionId'] == sub['id']
        assert body['_links'] == {
            'vnfPackage': {'href': f'{base}/vnf_packages/{pkg_id}'},
            'subscription': {'href': f'{base}/subscriptions/{sub["id"]}'},
        }
    assert len({b['id'] for b in bodies}) == 3
    assert {g['headers']['Version'] for g in got} == {'2.0.0'}
    assert {g['headers']['Authorization'] for g in got} == {
        receiver.required_auth
    }


def test_subscriptions_are_a_resource_of_the_package_api(
    api, receiver, subscribe
) -> None:
    sub = subscribe({'callbackUri': receiver.url})
    item = f'{SUBSCRIPTIONS}/{sub["id"]}'

    shown = api.request('GET', item, version=None)
    listed = api.request(
        'GET',
        SUBSCRIPTIONS,
        version=None,
        params={'filter': f'(eq,id,{sub["id"]})'},
    )
    again = api.request(
        'POST',
        SUBSCRIPTIONS,
        version=None,
        json={'callbackUri': receiver.url},
        allow_redirects=False,
    )

    assert shown.status_code == 200 and shown.json() == sub
    assert 'authentication' not in sub
    assert listed.json() == [sub]
    assert again.status_code == 303
    assert again.headers['Location'] == sub['_links']['self']['href']
    # Not an LCM subscription: /vnflcm/v2 does not serve it.
    assert api.lcm('GET', f'/subscriptions/{sub["id"]}').status_code == 404
    for path in ('/vnfpkgm/api_versions', '/vnfpkgm/v1/api_versions'):
        r = api.request('GET', path, version=None)
        assert r.status_code == 200, r.text
        assert r.json()['apiVersions'] == [
            {'version': '2.0.0', 'isDeprecated': False}
        ]
    assert api.request('DELETE', item, version=None).status_code == 204
    assert api.request('GET', item, version=None).status_code == 404


def test_an_endpoint_not_answering_204_is_refused(api, receiver) -> None:
    receiver.test_statuses = [404]

    r = api.request(
        'POST', SUBSCRIPTIONS, version=None, json={'callbackUri': receiver.url}
    )

    assert r.status_code == 422, r.text
    assert r.headers['Content-Type'] == 'application/problem+json'
    assert f'GET {receiver.url} did not answer 204' in r.json()['detail']
    listed = api.request('GET', SUBSCRIPTIONS, version=None).json()
    assert receiver.url not in [s['callbackUri'] for s in listed]


# -- projects (Keystone tokens) ----------------------------------------------


@pytest.fixture(scope='module')
def keystone_vnfm(
    local_cloud: LocalCloud,  # noqa: F811
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[procs.VnfmServices]:
    """vnfm-api under keystonemiddleware of the local cloud, and one
    conductor."""
    svc = procs.VnfmServices(
        tmp_path_factory.mktemp('pkgsub-keystone'),
        conf=VnfmIdentity(local_cloud).conf(),
    )
    with conftest.running('keystone_vnfm', svc, conductors=1):
        yield svc


def _as(
    svc: procs.VnfmServices, cloud: LocalCloud, user: str, tmp_path: Path
) -> conftest.Api:
    api = conftest.Api(svc.api_url, tmp_path / f'hooks-{user}')
    api.http.headers['X-Auth-Token'] = cloud.session(user).get_token()
    return api


def test_projects_keep_to_their_subscriptions_and_packages(
    keystone_vnfm,
    local_cloud,  # noqa: F811
    receiver,
    other_receiver,
    tmp_path: Path,
) -> None:
    demo = _as(keystone_vnfm, local_cloud, 'demo', tmp_path)
    other = _as(keystone_vnfm, local_cloud, 'other', tmp_path)

    def subscribe(api: conftest.Api, uri: str) -> dict:
        body = {'callbackUri': uri}  # no filter: every package it may see
        r = api.request('POST', SUBSCRIPTIONS, version=None, json=body)
        assert r.status_code == 201, r.text
        return r.json()

    ours = subscribe(demo, receiver.url)
    theirs = subscribe(other, other_receiver.url)
    item = f'{SUBSCRIPTIONS}/{ours["id"]}'

    # The other project neither sees nor deletes demo's subscription.
    listed = other.request('GET', SUBSCRIPTIONS, version=None).json()
    assert [s['id'] for s in listed] == [theirs['id']]
    for method in ('GET', 'DELETE'):
        r = other.request(method, item, version=None)
        assert r.status_code == 404, r.text
        assert receiver.url not in r.text
    assert demo.request('GET', item, version=None).json() == ours

    # Each project's onboarding reaches its own subscription only.
    (tmp_path / 'theirs').mkdir()
    (tmp_path / 'ours').mkdir()
    their_pkg = other.onboard(_package(tmp_path / 'theirs')[0])
    our_pkg = demo.onboard(_package(tmp_path / 'ours')[0])

    [got] = receiver.wait(1, timeout=30)
    [their_got] = other_receiver.wait(1, timeout=30)
    assert got['body']['vnfPkgId'] == our_pkg['id']
    assert their_got['body']['vnfPkgId'] == their_pkg['id']
    # Both packages are ONBOARDED: every row their onboardings wrote exists.
    with testing_db.use_database(keystone_vnfm.db_url):
        rows = outbox.notification_list()
    assert sorted(
        (r['subscription_id'], r['payload']['vnfPkgId']) for r in rows
    ) == sorted([(ours['id'], our_pkg['id']), (theirs['id'], their_pkg['id'])])
