"""read_csar: from the uploaded bytes to a package whose checksum, VNFD
and software images (SOL005 VnfPackageSoftwareImageInfo) vnfm shows."""

from __future__ import annotations

import hashlib

import pytest

from vnfm.csar import package
from vnfm.csar.build import build_csar
from vnfm.csar.errors import InvalidPackage

from .utils import SAMPLES
from .utils import make_zip
from .utils import replace
from .utils import sample_files


def test_the_checksum_is_sha256_of_the_bytes_uploaded():
    data = build_csar(str(SAMPLES / 'noop_vnf'))

    csar = package.read_csar(data)

    assert csar.checksum == {
        'algorithm': 'SHA-256',
        'hash': hashlib.sha256(data).hexdigest(),
    }
    assert csar.entry_definitions in csar.files
    assert csar.vnfd.provider == 'vnfm'


def test_software_images_of_each_vdu_in_sol005_shape():
    csar = package.read_csar(build_csar(str(SAMPLES / 'vm_simple')))

    images = {image['id']: image for image in csar.software_images}

    assert set(images) == {'VDU1', 'VDU2'}
    assert images['VDU1'] == {
        'id': 'VDU1',
        'name': 'ubuntu-22.04',
        'provider': 'vnfm',
        'version': '22.04',
        'checksum': {
            'algorithm': 'sha-256',
            'hash': 'a4b6f4c3d1e2f30718293a4b5c6d7e8f'
            '90a1b2c3d4e5f60718293a4b5c6d7e8f',
        },
        'containerFormat': 'BARE',
        'diskFormat': 'QCOW2',
        'minDisk': 1,
        'minRam': 256,
        'size': 10**9,
        'imagePath': '',
    }


def test_a_package_without_images_lists_none():
    csar = package.read_csar(build_csar(str(SAMPLES / 'cnf_simple')))

    assert csar.software_images == []


def test_a_vnfd_of_an_unexpected_shape_is_an_invalid_package():
    files = sample_files('noop_vnf')
    top = next(n for n in files if n.endswith('top.vnfd.yaml'))
    broken = replace(
        files, top, 'node_templates:', 'node_templates: [1, 2]\nx:'
    )

    with pytest.raises(InvalidPackage) as e:
        package.read_csar(make_zip(broken))

    assert str(e.value).startswith(top)


def test_bytes_that_are_no_zip_are_an_invalid_package():
    with pytest.raises(InvalidPackage):
        package.read_csar(b'PK\x03\x04 not really')
