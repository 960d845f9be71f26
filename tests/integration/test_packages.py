"""VNF packages through the real client: ``openstack vnf package ...``
(SOL005, no Version header)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from vnfm_testbed.client import ClientError

pytestmark = pytest.mark.timeout(180)

PKGS = '/vnfpkgm/v1/vnf_packages'


def _info(api, pkg_id: str) -> dict:
    r = api.request('GET', f'{PKGS}/{pkg_id}', version=None)
    assert r.status_code == 200, r.text
    return r.json()


def _wait_onboarding(api, pkg_id: str, state: str) -> dict:
    def probe() -> dict | None:
        info = _info(api, pkg_id)
        if info['onboardingState'] in ('ONBOARDED', 'ERROR'):
            assert info['onboardingState'] == state, info
            return info
        return None

    return api.wait_for(probe, 30, f'package {pkg_id} {state}')


def _patch(api, pkg_id: str, body: dict) -> None:
    r = api.request('PATCH', f'{PKGS}/{pkg_id}', version=None, json=body)
    assert r.status_code == 200, r.text


def test_package_lifecycle(client, api, zips, tmp_path: Path) -> None:
    pkg_zip = zips['pkg_a']
    pkg_id = _create_and_onboard(client, api, pkg_zip)
    other = _filter_selects_onboarded(client, api, pkg_id)
    _download_gives_back_the_upload(client, pkg_id, pkg_zip, tmp_path)
    _update_merges_state_and_user_data(client, api, pkg_id)
    _delete_refused_while_enabled(client, api, pkg_id, other)


def _create_and_onboard(client, api, pkg_zip) -> str:
    """Create with user data, upload the zip: ONBOARDED, with what the
    VNFD says."""
    created = client.pkg_json('create', '--user-data', 'team=integration')
    pkg_id = created['ID']
    assert created['Onboarding State'] == 'CREATED'
    assert created['User Defined Data'] == {'team': 'integration'}

    out = client.pkg('upload', pkg_id, '--path', str(pkg_zip.path))
    assert pkg_id in out
    _wait_onboarding(api, pkg_id, 'ONBOARDED')
    shown = client.pkg_json('show', pkg_id)
    assert shown['Onboarding State'] == 'ONBOARDED'
    assert shown['Operational State'] == 'ENABLED'
    assert shown['Usage State'] == 'NOT_IN_USE'
    assert shown['VNFD ID'] == pkg_zip.vnfd_id
    assert shown['VNF Provider'] == 'vnfm'
    assert shown['VNF Product Name'] == 'Noop Sample VNF'
    assert shown['VNF Software Version'] == '1.0'
    assert shown['VNFD Version'] == '1.0'
    assert shown['User Defined Data'] == {'team': 'integration'}
    return pkg_id


def _filter_selects_onboarded(client, api, pkg_id: str) -> str:
    """A second, empty package shows that the filter selects; returns its
    id."""
    other = api.request('POST', PKGS, version=None, json={}).json()['id']
    listed = client.pkg_json(
        'list', '--filter', '(eq,onboardingState,ONBOARDED)'
    )
    assert {p['Onboarding State'] for p in listed} == {'ONBOARDED'}
    assert pkg_id in {p['Id'] for p in listed}
    everything = api.request('GET', PKGS, version=None).json()
    assert {pkg_id, other} <= {p['id'] for p in everything}
    return other


def _download_gives_back_the_upload(
    client, pkg_id: str, pkg_zip, tmp_path: Path
) -> None:
    """The very bytes uploaded, and the VNFD as a zip of YAML."""
    out_zip = tmp_path / 'out.zip'
    client.pkg('download', pkg_id, '--file', str(out_zip))
    assert out_zip.read_bytes() == pkg_zip.path.read_bytes()
    vnfd_zip = tmp_path / 'vnfd.zip'
    client.pkg(
        'download',
        pkg_id,
        '--vnfd',
        '--type',
        'application/zip',
        '--file',
        str(vnfd_zip),
    )
    names = zipfile.ZipFile(vnfd_zip).namelist()
    assert 'Definitions/noop_top.vnfd.yaml' in names
    assert not [n for n in names if n.startswith('Scripts/')], names
    # The VNFD is three YAML files: text/plain cannot hold it (SOL005
    # 9.4.4.3.2: 406), and the client says why.
    with pytest.raises(ClientError) as e:
        client.pkg(
            'download',
            pkg_id,
            '--vnfd',
            '--type',
            'text/plain',
            '--file',
            str(tmp_path / 'vnfd.yaml'),
        )
    assert 'application/zip' in e.value.output, e.value.output


def _update_merges_state_and_user_data(client, api, pkg_id: str) -> None:
    """Update operational state and user data (merged, SOL005 PATCH)."""
    disabled = client.pkg_json(
        'update', pkg_id, '--operational-state', 'DISABLED'
    )
    assert disabled == {'Operational State': 'DISABLED'}
    assert _info(api, pkg_id)['operationalState'] == 'DISABLED'
    _patch(api, pkg_id, {'operationalState': 'ENABLED'})
    updated = client.pkg_json('update', pkg_id, '--user-data', 'stage=two')
    assert updated == {'User Defined Data': {'stage': 'two'}}
    assert _info(api, pkg_id)['userDefinedData'] == {
        'team': 'integration',
        'stage': 'two',
    }


def _delete_refused_while_enabled(
    client, api, pkg_id: str, other: str
) -> None:
    """Delete: refused while ENABLED, with the reason shown; then
    allowed."""
    r = api.request('DELETE', f'{PKGS}/{pkg_id}', version=None)
    assert r.status_code == 409, r.text
    assert r.headers['Content-Type'].startswith('application/problem+json')
    detail = r.json()['detail']
    with pytest.raises(ClientError) as e:
        client.pkg('delete', pkg_id)
    assert detail in e.value.output
    _patch(api, pkg_id, {'operationalState': 'DISABLED'})
    assert 'deleted successfully' in client.pkg('delete', pkg_id, other)
    for gone in (pkg_id, other):
        r = api.request('GET', f'{PKGS}/{gone}', version=None)
        assert r.status_code == 404, r.text


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _files(zip_path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(zip_path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _upload(api, data: bytes) -> str:
    pkg_id = api.request('POST', PKGS, version=None, json={}).json()['id']
    r = api.request(
        'PUT',
        f'{PKGS}/{pkg_id}/package_content',
        version=None,
        data=data,
        headers={'Content-Type': 'application/zip'},
    )
    assert r.status_code == 202, r.text
    return pkg_id


def test_bad_packages_fail_onboarding_with_reason(
    client, api, zips, tmp_path: Path
) -> None:
    good = _files(zips['pkg_b'].path)
    no_vnfd = {
        n: d for n, d in good.items() if n != 'Definitions/noop_top.vnfd.yaml'
    }
    cases = {
        'zip slip': (
            _zip({**good, '../evil.txt': b'escape'}),
            ['../evil.txt'],
        ),
        'missing VNFD': (_zip(no_vnfd), ['noop_top.vnfd.yaml']),
    }
    ids = {name: _upload(api, data) for name, (data, _) in cases.items()}
    # Two packages with one vnfdId: the first onboards, the second is
    # refused.
    first = _upload(api, zips['pkg_b'].path.read_bytes())
    _wait_onboarding(api, first, 'ONBOARDED')
    ids['same vnfdId'] = _upload(api, zips['pkg_b'].path.read_bytes())
    cases['same vnfdId'] = (b'', [zips['pkg_b'].vnfd_id])

    for name, pkg_id in ids.items():
        info = _wait_onboarding(api, pkg_id, 'ERROR')
        failure = info.get('onboardingFailureDetails') or {}
        detail = failure.get('detail')
        assert isinstance(detail, str) and detail, (name, info)
        for word in cases[name][1]:
            assert word.lower() in detail.lower(), (name, detail)
    # The client shows the state; it cannot show onboardingFailureDetails
    # (tackerclient maps only known fields, as with Tacker itself).
    shown = client.pkg_json('show', ids['zip slip'])
    assert shown['Onboarding State'] == 'ERROR'
    # The good package is untouched by the refused duplicate.
    assert _info(api, first)['onboardingState'] == 'ONBOARDED'


def test_upload_of_a_non_zip_is_refused_at_once(
    client, api, tmp_path: Path
) -> None:
    bad = tmp_path / 'bad.zip'
    bad.write_bytes(b'this is not a zip file\n' * 10)
    pkg_id = client.pkg_json('create')['ID']
    with pytest.raises(ClientError) as e:
        client.pkg('upload', pkg_id, '--path', str(bad))
    assert 'not a zip' in e.value.output, e.value.output
    # Nothing was stored: the package waits for a proper upload.
    assert _info(api, pkg_id)['onboardingState'] == 'CREATED'
