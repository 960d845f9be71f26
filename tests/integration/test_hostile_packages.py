"""Hostile VNF packages through the real API onboarding: each ends ERROR
with a detail a person can act on, and nothing is written around the
services; a package carrying an allowed script under an option-like name
cannot run the code in that name."""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path

import pytest

from tests.unit.csar import hostile
from tests.unit.csar.utils import NOOP_VNFD_ID
from tests.unit.csar.utils import sample_files

pytestmark = pytest.mark.timeout(300)

PKGS = '/vnfpkgm/v1/vnf_packages'


def _upload(api, data: bytes) -> str:
    """Create a package and PUT ``data`` as its content; its id."""
    r = api.request('POST', PKGS, version=None, json={})
    assert r.status_code == 201, r.text
    pkg_id = r.json()['id']
    r = api.request(
        'PUT',
        f'{PKGS}/{pkg_id}/package_content',
        version=None,
        data=data,
        headers={'Content-Type': 'application/zip'},
    )
    assert r.status_code == 202, r.text
    return pkg_id


def _onboarding_ended(api, pkg_ids: list[str]) -> dict[str, dict] | None:
    """The VnfPkgInfo of each package once none is still onboarding."""
    infos = {}
    for pkg_id in pkg_ids:
        r = api.request('GET', f'{PKGS}/{pkg_id}', version=None)
        assert r.status_code == 200, r.text
        if r.json()['onboardingState'] not in ('ONBOARDED', 'ERROR'):
            return None
        infos[pkg_id] = r.json()
    return infos


def _base_files() -> dict[str, bytes]:
    """The noop sample with a vnfdId of its own (it must never onboard, but
    if it did it would not take the sample's vnfdId from other tests)."""
    vnfd_id = str(uuid.uuid4())
    return {
        name: data.replace(NOOP_VNFD_ID.encode(), vnfd_id.encode())
        for name, data in sample_files().items()
    }


def _escaped(services) -> list[str]:
    """Files named after hostile.MARK anywhere under the services' directory,
    and in or just below the temporary directory (where hooks unpack
    packages) and the root (where a deep "../" leads)."""
    # os.walk, not rglob: it passes over directories removed while it reads.
    found = [
        os.path.join(top, name)
        for top, dirs, files in os.walk(services.workdir)
        for name in dirs + files
        if hostile.MARK in name
    ]
    return found + hostile.escaped(Path(tempfile.gettempdir()), Path('/'))


def test_every_hostile_package_ends_in_error(api, services):
    corpus = hostile.corpus(_base_files())
    ids = {_upload(api, case.data): case for case in corpus}

    infos = api.wait_for(
        lambda: _onboarding_ended(api, list(ids)),
        180,
        'the hostile packages to finish onboarding',
    )

    wrong = {}
    for pkg_id, case in ids.items():
        info = infos[pkg_id]
        detail = (info.get('onboardingFailureDetails') or {}).get('detail', '')
        if info['onboardingState'] != 'ERROR' or not all(
            f in detail for f in case.fragments()
        ):
            wrong[case.name] = (info['onboardingState'], detail)
        else:
            assert info['onboardingFailureDetails']['status'] == 422
    assert not wrong
    assert not _escaped(services)


def test_allowed_script_under_an_option_like_name_cannot_run_code(
    api, services
):
    # The defect: the hook file was given to Python by its relative path,
    # so this name was read as "-c <code>" and the code ran on the
    # conductor, although the file's content is the allow-listed sample.
    marker = api.hook_record.parent / f'pwned-{uuid.uuid4().hex[:8]}'
    code = (
        'import os;open(os.path.dirname(os.environ["VNFM_HOOK_RECORD"])'
        f'+chr(47)+"{marker.name}","w")'
    )
    name = f'-c{code}'
    files = _base_files()
    files[name] = files[hostile.SCRIPT]
    flavour = files[hostile.FLAVOUR].decode()
    assert 'file: Scripts/record_hook.py' in flavour
    files[hostile.FLAVOUR] = flavour.replace(
        'file: Scripts/record_hook.py', f"file: '../{name}'"
    ).encode()

    pkg_id = _upload(api, hostile.package(files))
    info = api.wait_for(
        lambda: (_onboarding_ended(api, [pkg_id]) or {}).get(pkg_id),
        30,
        'the package to finish onboarding',
    )

    if info['onboardingState'] == 'ONBOARDED':
        # Show what the package would do: instantiate runs its hook.
        inst = api.create_instance(info['vnfdId'])
        op_id = api.start(inst, 'instantiate', api.instantiate_request())
        api.wait_op(op_id, {'COMPLETED', 'FAILED_TEMP', 'ROLLED_BACK'})
    assert not marker.exists(), 'the code in the file name ran'
    assert info['onboardingState'] == 'ERROR'
    detail = info['onboardingFailureDetails']['detail']
    assert detail.startswith(repr(name)[:100])
    assert 'unsafe file name in package (component' in detail
    assert "starts with '-'" in detail
