"""Tests for vnfm.csar.meta via read_csar: TOSCA.meta, manifests, hashes."""

import hashlib

import pytest

from vnfm.csar import InvalidPackage
from vnfm.csar import read_csar
from vnfm.csar.meta import TOSCA_META

from .utils import make_zip
from .utils import replace
from .utils import sample_files

META = TOSCA_META


def _read(files: dict[str, bytes]):
    return read_csar(make_zip(files))


def test_sample_meta_artifacts_are_verified():
    csar = _read(sample_files())
    (art,) = csar.artifacts
    assert art.path == 'Scripts/record_hook.py'
    assert art.checksum_algorithm == 'SHA-256'
    assert (
        art.checksum_hash == hashlib.sha256(csar.files[art.path]).hexdigest()
    )
    assert art.metadata['Content-Type'] == 'text/x-python'
    assert csar.tosca_meta['CSAR-Version'] == '1.1'


def test_missing_entry_definitions_file():
    files = replace(
        sample_files(),
        META,
        'Definitions/noop_top.vnfd.yaml',
        'Definitions/x.yaml',
    )
    with pytest.raises(InvalidPackage) as e:
        _read(files)
    assert e.value.detail == (
        "TOSCA-Metadata/TOSCA.meta: Entry-Definitions 'Definitions/x.yaml' "
        'is not in the package'
    )


def test_missing_entry_definitions_key():
    files = replace(sample_files(), META, 'Entry-Definitions:', 'Entry-Defs:')
    with pytest.raises(
        InvalidPackage, match='Entry-Definitions key is missing'
    ):
        _read(files)


def test_meta_line_without_colon():
    files = replace(
        sample_files(), META, 'CSAR-Version: 1.1', 'CSAR-Version 1.1'
    )
    with pytest.raises(
        InvalidPackage, match=r"TOSCA.meta: line 2: expected 'Key: value'"
    ):
        _read(files)


def test_bad_hash_names_the_file():
    files = sample_files()
    files['Scripts/record_hook.py'] += b'\n# tampered\n'
    with pytest.raises(
        InvalidPackage, match="hash mismatch for 'Scripts/record_hook.py'"
    ):
        _read(files)


@pytest.mark.parametrize('algo', ['SHA-224', 'SHA-256', 'sha-384', 'SHA512'])
def test_hash_algorithms_and_upper_case_hex(algo):
    files = sample_files()
    name = algo.lower().replace('-', '')
    digest = (
        hashlib.new(name, files['Scripts/record_hook.py']).hexdigest().upper()
    )
    text = files[META].decode().split('\nName:')[0]
    files[META] = (
        text + f'\nName: Scripts/record_hook.py\nAlgorithm: {algo}\n'
        f'Hash: {digest}\n'
    ).encode()
    assert _read(files).artifacts[0].checksum_hash == digest


def test_unsupported_algorithm():
    files = replace(
        sample_files(), META, 'Algorithm: SHA-256', 'Algorithm: MD5'
    )
    with pytest.raises(InvalidPackage, match="unsupported Algorithm 'MD5'"):
        _read(files)


def test_hash_without_algorithm():
    files = replace(sample_files(), META, 'Algorithm: SHA-256\n', '')
    with pytest.raises(InvalidPackage, match='needs both Algorithm and Hash'):
        _read(files)


def test_declared_artifact_missing_from_package():
    files = sample_files()
    files[META] += b'\nName: Files/missing.txt\nContent-Type: text/plain\n'
    with pytest.raises(
        InvalidPackage, match="artifact 'Files/missing.txt' is not in the"
    ):
        _read(files)


def test_declared_manifest_missing():
    files = replace(
        sample_files(),
        META,
        'Created-by: vnfm',
        'Created-by: vnfm\nETSI-Entry-Manifest: noop.mf',
    )
    with pytest.raises(
        InvalidPackage, match="ETSI-Entry-Manifest 'noop.mf' is not in"
    ):
        _read(files)


def test_manifest_in_tosca_meta_layout_is_verified():
    files = replace(
        sample_files(),
        META,
        'Created-by: vnfm',
        'Created-by: vnfm\nETSI-Entry-Manifest: noop.mf',
    )
    script = files['Scripts/record_hook.py']
    files['noop.mf'] = _manifest('Scripts/record_hook.py', script).encode()
    csar = _read(files)
    assert csar.manifest_metadata['vnf_provider_id'] == 'vnfm'
    files['noop.mf'] = _manifest('Scripts/record_hook.py', b'other').encode()
    with pytest.raises(InvalidPackage, match='noop.mf: hash mismatch'):
        _read(files)


def _manifest(path: str, content: bytes) -> str:
    return (
        'metadata:\n  vnf_provider_id: vnfm\n  vnf_product_name: Noop\n'
        "  vnf_software_version: '1.0'\n\n"
        f'Source: {path}\nAlgorithm: SHA-256\n'
        f'Hash: {hashlib.sha256(content).hexdigest()}\n\n'
        'non_mano_artifact_sets:\n  tests:\n    Source: Files/tests\n\n'
        '-----BEGIN CMS-----\nMIIB...\n-----END CMS-----\n'
    )


def test_zipped_directory_gets_a_hint():
    files = {f'pkg/{k}': v for k, v in sample_files().items()}
    with pytest.raises(InvalidPackage, match="every file is under 'pkg/'"):
        _read(files)
