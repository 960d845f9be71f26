"""The hostile package corpus at the parser: every package is refused with
a detail a person can act on, and nothing is written around it."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from vnfm.csar import CsarLimits
from vnfm.csar import InvalidPackage
from vnfm.csar import read_csar
from vnfm.csar.zipreader import read_zip
from vnfm.drivers.package_files import PackageFiles

from . import hostile
from .utils import sample_files


@functools.cache
def _corpus() -> dict[str, hostile.Hostile]:
    return {case.name: case for case in hostile.corpus(sample_files())}


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob('*')}


@pytest.mark.parametrize('name', list(_corpus()))
def test_hostile_package_is_refused_and_nothing_is_written(
    name, tmp_path, monkeypatch
):
    case = _corpus()[name]
    package_dir = tmp_path / 'package'
    package_dir.mkdir()
    monkeypatch.chdir(package_dir)

    with pytest.raises(InvalidPackage) as e:
        read_csar(case.data)

    for fragment in case.fragments():
        assert fragment in e.value.detail
    assert len(e.value.detail) < 1024
    assert _tree(tmp_path) == {'package'}
    assert not hostile.escaped(tmp_path, Path('/tmp'), Path('/'))


@pytest.mark.parametrize('name', list(_corpus()))
def test_files_the_zip_reader_accepts_extract_inside_the_package(
    name, tmp_path
):
    # Packages refused after the zip was read (YAML, imports, hashes): their
    # files are what a hook would get; extracting them stays inside.
    try:
        files = read_zip(_corpus()[name].data, CsarLimits())
    except InvalidPackage:
        return
    package_dir = tmp_path / 'a' / 'package'
    package_dir.mkdir(parents=True)

    PackageFiles('p', files).extract_to(str(package_dir))

    assert _tree(tmp_path) - {'a', 'a/package'} == {
        f'a/package/{p}' for p in _tree(package_dir)
    }
    assert not hostile.escaped(tmp_path, tmp_path / 'a', Path('/tmp'))


def test_the_corpus_covers_every_kind_of_attack():
    names = set(_corpus())
    for kind in (
        'zip-slip',
        'absolute',
        'symlink',
        'device',
        'option-like',
        'zip-bomb-ratio',
        'zip-bomb-total',
        'nested-imports',
        'recursive-imports',
        'billion-laughs',
        'huge-scalar',
        'non-utf8-name',
        'non-utf8-yaml',
        'duplicate',
        'tosca-meta-lies',
        'manifest-lies',
    ):
        assert any(kind in n for n in names), kind
