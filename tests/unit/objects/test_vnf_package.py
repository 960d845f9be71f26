"""VnfPkgInfo as the API shows it."""

from __future__ import annotations

import datetime

from vnfm.objects import vnf_package

BASE = 'https://vnfm.example.com:9890'


def test_package_view():
    row = {
        'id': 'p1',
        'onboarding_state': 'ERROR',
        'operational_state': 'DISABLED',
        'usage_state': 'NOT_IN_USE',
        'onboarding_failure_details': {'status': 422, 'detail': 'bad'},
        'vnfd': {'big': 'model'},
        'upload_source': {'x': 1},
        'package_size': 10,
        'vnfd_id': None,
    }
    out = vnf_package.to_sol(row, BASE)
    assert out['onboardingFailureDetails']['detail'] == 'bad'
    for hidden in ('vnfd', 'upload_source', 'package_size', 'vnfdId'):
        assert hidden not in out
    assert out['_links']['packageContent']['href'] == (
        f'{BASE}/vnfpkgm/v1/vnf_packages/p1/package_content'
    )
    row['onboarding_state'] = 'ONBOARDED'
    assert 'onboardingFailureDetails' not in vnf_package.to_sol(row)


def test_package_software_images_have_created_at():
    # SOL005 9.5.3.2: createdAt is mandatory in VnfPackageSoftwareImageInfo.
    created = datetime.datetime(2026, 1, 2, 3, 4, 5)
    row = {
        'id': 'p1',
        'onboarding_state': 'ONBOARDED',
        'created_at': created,
        'software_images': [{'id': 'VDU1', 'name': 'img'}],
    }
    (image,) = vnf_package.to_sol(row)['softwareImages']
    assert image == {
        'id': 'VDU1',
        'name': 'img',
        'createdAt': '2026-01-02T03:04:05.000000Z',
    }
    assert 'createdAt' not in row['software_images'][0]
