"""Onboarding and upload from URI."""

import base64
import io
import zipfile

import pytest

from vnfm.clients import outbound
from vnfm.common import crypto
from vnfm.conductor import packages
from vnfm.db import api as db
from vnfm.db import outbox
from vnfm.db import registry

from ..lcm.fixtures import onboarded_package
from ..lcm.fixtures import sample_csar


def uploaded(data: bytes, state: str = 'PROCESSING', **values) -> dict:
    row = db.package_create(
        dict(
            {
                'onboarding_state': state,
                'operational_state': 'DISABLED',
                'usage_state': 'NOT_IN_USE',
            },
            **values,
        )
    )
    if data:
        db.package_content_put(row['id'], data)
    return row


def test_onboarding_fills_the_package_info(db_url):
    data = sample_csar()
    pkg = uploaded(data)

    packages.onboard(pkg['id'])

    pkg = db.package_get(pkg['id'])
    assert pkg['onboarding_state'] == 'ONBOARDED'
    assert pkg['operational_state'] == 'ENABLED'
    assert pkg['vnfd_id'] == 'b1bb0ce7-ebca-4fa7-95ed-4840d70a1177'
    assert (pkg['vnf_provider'], pkg['vnf_product_name']) == (
        'vnfm',
        'Noop Sample VNF',
    )
    assert (pkg['vnf_software_version'], pkg['vnfd_version']) == ('1.0', '1.0')
    assert pkg['package_size'] == len(data)
    assert pkg['checksum']['algorithm'] == 'SHA-256'
    assert pkg['software_images'][0]['name'] == 'noop-image-1.0'
    [artifact] = pkg['additional_artifacts']
    assert artifact['artifactPath'] == 'Scripts/record_hook.py'
    assert artifact['checksum']['algorithm'] == 'SHA-256'
    assert 'instantiate_end' in pkg['vnfd']['interfaces']
    assert pkg['onboarding_failure_details'] is None


def test_invalid_package_is_error_with_details(db_url):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        zf.writestr('README', 'not a CSAR')
    pkg = uploaded(buf.getvalue())

    packages.onboard(pkg['id'])

    pkg = db.package_get(pkg['id'])
    assert pkg['onboarding_state'] == 'ERROR'
    details = pkg['onboarding_failure_details']
    assert details['status'] == 422
    assert details['detail']
    assert pkg['vnfd_id'] is None


def test_duplicate_vnfd_id_is_error(db_url):
    first = onboarded_package()
    second = uploaded(sample_csar())

    packages.onboard(second['id'])

    second = db.package_get(second['id'])
    assert second['onboarding_state'] == 'ERROR'
    assert second['onboarding_failure_details']['status'] == 422
    assert first['id'] in second['onboarding_failure_details']['detail']
    assert db.package_get(first['id'])['onboarding_state'] == 'ONBOARDED'


def test_a_vnfd_id_taken_between_check_and_write_is_error(db_url, monkeypatch):
    first = onboarded_package()
    second = uploaded(sample_csar())
    # The other package onboards after this one looked for it.
    monkeypatch.setattr(db, 'package_get_by_vnfd_id', lambda vnfd_id: None)

    packages.onboard(second['id'])

    second = db.package_get(second['id'])
    assert second['onboarding_state'] == 'ERROR'
    assert second['onboarding_failure_details']['status'] == 422
    assert first['vnfd_id'] in second['onboarding_failure_details']['detail']


def test_a_package_that_left_processing_meanwhile_is_left_alone(
    db_url, monkeypatch
):
    pkg = uploaded(sample_csar())
    lookup = db.package_get_by_vnfd_id

    def then_moved_on(vnfd_id: str) -> dict | None:
        db.package_update(pkg['id'], {'onboarding_state': 'ERROR'})
        return lookup(vnfd_id)

    monkeypatch.setattr(db, 'package_get_by_vnfd_id', then_moved_on)

    packages.onboard(pkg['id'])

    row = db.package_get(pkg['id'])
    assert (row['onboarding_state'], row['vnfd_id']) == ('ERROR', None)
    assert row['onboarding_failure_details'] is None


def test_onboarding_twice_is_harmless(db_url):
    pkg = onboarded_package()
    packages.onboard(pkg['id'])
    assert db.package_get(pkg['id'])['onboarding_state'] == 'ONBOARDED'


@pytest.fixture
def package_server(conf, web):
    """The web server on loopback, which the default configuration
    denies: allowed for the test."""
    conf('allowed_networks', ['127.0.0.0/8'], 'outbound')
    return web


def from_uri(url: str, **source) -> dict:
    return uploaded(
        b'',
        state='UPLOADING',
        upload_source={'addressInformation': url, **source},
    )


def test_fetch_downloads_and_onboards(db_url, package_server):
    base, _, routes, _ = package_server
    routes['/pkg.zip'] = (200, {}, sample_csar())
    pkg = from_uri(base + '/pkg.zip')

    packages.fetch(pkg['id'], 'user', 'pw')

    pkg = db.package_get(pkg['id'])
    assert pkg['onboarding_state'] == 'ONBOARDED'
    assert db.package_content_get(pkg['id']) == sample_csar()


def test_fetch_of_missing_file_is_error(db_url, package_server):
    base = package_server.base
    pkg = from_uri(base + '/nothing.zip?token=secret')

    packages.fetch(pkg['id'])

    pkg = db.package_get(pkg['id'])
    assert pkg['onboarding_state'] == 'ERROR'
    detail = pkg['onboarding_failure_details']['detail']
    assert detail == (
        f'GET {base}/nothing.zip did not answer with the package (200 OK).'
    )


def test_fetch_larger_than_max_size_is_error(db_url, package_server, conf):
    conf('max_size', 2048, 'vnf_package')
    base, _, routes, _ = package_server
    routes['/big.zip'] = (200, {}, b'x' * 4096)
    pkg = from_uri(base + '/big.zip')

    packages.fetch(pkg['id'])

    details = db.package_get(pkg['id'])['onboarding_failure_details']
    assert 'larger than the limit of 2048 bytes' in details['detail']


def test_fetch_refuses_other_schemes(db_url):
    pkg = from_uri('file:///etc/passwd')

    packages.fetch(pkg['id'])

    details = db.package_get(pkg['id'])['onboarding_failure_details']
    assert details['detail'].startswith("URI scheme 'file' is not allowed")


def test_fetch_from_loopback_is_refused_by_default(db_url, web, connects):
    url = f'http://localhost:{web.port}/pkg.zip'
    pkg = from_uri(url)

    packages.fetch(pkg['id'])

    pkg = db.package_get(pkg['id'])
    assert pkg['onboarding_state'] == 'ERROR'
    assert pkg['onboarding_failure_details']['detail'] == (
        f'GET {url} refused by policy: localhost resolves to an address '
        'vnfm does not connect to.'
    )
    assert web.seen == [] and connects == []


@pytest.mark.parametrize('address', ['169.254.169.254', '10.20.30.40'])
def test_fetch_from_a_name_resolving_inside_is_refused(
    db_url, monkeypatch, connects, address
):
    monkeypatch.setattr(outbound, 'resolve', lambda host, port: [address])
    pkg = from_uri('http://packages.test/pkg.zip')

    packages.fetch(pkg['id'])

    detail = db.package_get(pkg['id'])['onboarding_failure_details']['detail']
    assert 'refused by policy' in detail and address not in detail
    assert connects == []


def test_fetch_uses_the_sealed_credentials_then_drops_them(
    db_url, package_server
):
    base, _, routes, seen = package_server
    routes['/pkg.zip'] = (200, {}, sample_csar())
    pkg = from_uri(
        base + '/pkg.zip',
        userName='user',
        **{crypto.SEALED: crypto.encrypt({'password': 'pa55-sealed'})},
    )

    packages.fetch(pkg['id'])

    assert seen == [
        ('/pkg.zip', 'Basic ' + base64.b64encode(b'user:pa55-sealed').decode())
    ]
    pkg = db.package_get(pkg['id'])
    assert pkg['onboarding_state'] == 'ONBOARDED'
    assert pkg['upload_source'] == {
        'addressInformation': base + '/pkg.zip',
        'userName': 'user',
    }


def test_a_failed_fetch_drops_the_credentials_too(db_url, package_server):
    pkg = from_uri(
        package_server.base + '/none.zip',
        userName='user',
        **{crypto.SEALED: crypto.encrypt({'password': 'pa55-sealed'})},
    )

    packages.fetch(pkg['id'])

    pkg = db.package_get(pkg['id'])
    assert pkg['onboarding_state'] == 'ERROR'
    assert crypto.SEALED not in pkg['upload_source']


def test_fetch_uses_the_sealed_uri_with_its_query(db_url, package_server):
    base, _, routes, seen = package_server
    routes['/pkg.zip?sig=t0ken'] = (200, {}, sample_csar())
    pkg = from_uri(
        base + '/pkg.zip',
        **{
            crypto.SEALED: crypto.encrypt(
                {'addressInformation': base + '/pkg.zip?sig=t0ken'}
            )
        },
    )

    packages.fetch(pkg['id'])

    assert [path for path, _ in seen] == ['/pkg.zip?sig=t0ken']
    pkg = db.package_get(pkg['id'])
    assert pkg['onboarding_state'] == 'ONBOARDED'
    assert pkg['upload_source'] == {'addressInformation': base + '/pkg.zip'}


def _package_subscription(**values) -> dict:
    return registry.subscription_create(
        dict(
            {
                'callback_uri': 'http://127.0.0.1:1/cb',
                'api_version': '1',
                'interface': registry.VNFPKGM,
            },
            **values,
        )
    )


def test_onboarding_is_notified_in_its_transaction(db_url):
    sub = _package_subscription()
    other = _package_subscription(filter={'vnfdId': ['another']})
    pkg = uploaded(sample_csar())

    packages.onboard(pkg['id'])
    packages.onboard(pkg['id'])  # a doorbell rung twice: one notification

    [row] = outbox.notification_list()
    assert row['subscription_id'] == sub['id'] != other['id']
    assert row['payload']['notificationType'] == (
        'VnfPackageOnboardingNotification'
    )
    assert row['payload']['vnfPkgId'] == pkg['id']
    assert row['payload']['vnfdId'] == 'b1bb0ce7-ebca-4fa7-95ed-4840d70a1177'


def test_failed_onboarding_is_not_notified(db_url):
    _package_subscription()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        zf.writestr('README', 'not a CSAR')
    pkg = uploaded(buf.getvalue())

    packages.onboard(pkg['id'])

    assert db.package_get(pkg['id'])['onboarding_state'] == 'ERROR'
    assert outbox.notification_list() == []
