"""A package's files as drivers read and extract them: never written
outside the directory given."""

from __future__ import annotations

import pytest

from vnfm.drivers.package_files import PackageFiles

FILES = {
    'TOSCA-Metadata/TOSCA.meta': b'meta',
    'Files/kubernetes/deployment.yaml': b'kind: Deployment',
    'Scripts/hook.py': b'print(1)',
}


def test_names_are_sorted_and_files_read_back():
    files = PackageFiles('pkg-1', FILES)

    assert list(files.names()) == sorted(FILES)
    assert files.read('Scripts/hook.py') == b'print(1)'
    assert 'Scripts/hook.py' in files and 'Scripts/other.py' not in files
    with pytest.raises(KeyError):
        files.read('Scripts/other.py')


def test_the_files_do_not_change_with_the_mapping_given():
    given = dict(FILES)
    files = PackageFiles('pkg-1', given)

    given['Scripts/hook.py'] = b'changed'

    assert files.read('Scripts/hook.py') == b'print(1)'


def test_extract_writes_every_file_below_the_directory(tmp_path):
    PackageFiles('pkg-1', FILES).extract_to(str(tmp_path))

    for name, data in FILES.items():
        assert (tmp_path / name).read_bytes() == data


@pytest.mark.parametrize(
    'name', ['../escape.txt', 'Files/../../escape.txt', '/tmp/abs.txt']
)
def test_a_name_leading_outside_is_refused(tmp_path, name):
    target = tmp_path / 'pkg'
    target.mkdir()

    with pytest.raises(ValueError, match='would be written outside'):
        PackageFiles('pkg-1', {name: b'x'}).extract_to(str(target))

    assert not (tmp_path / 'escape.txt').exists()


def test_a_symlinked_directory_does_not_lead_outside(tmp_path):
    target = tmp_path / 'pkg'
    outside = tmp_path / 'outside'
    target.mkdir()
    outside.mkdir()
    (target / 'Files').symlink_to(outside)

    with pytest.raises(ValueError, match='would be written outside'):
        PackageFiles('pkg-1', {'Files/x.txt': b'x'}).extract_to(str(target))

    assert list(outside.iterdir()) == []
