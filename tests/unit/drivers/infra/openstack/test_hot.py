"""A package's base HOT (Tacker v2's BaseHOT/<flavourId>/ layout): one top
template, its nested templates by the name the top one uses, and a refusal
that says what is wrong with the package."""

from __future__ import annotations

import pytest

from vnfm.common import exceptions
from vnfm.drivers.infra.openstack import hot
from vnfm.drivers.package_files import PackageFiles

TOP = b'heat_template_version: 2013-05-23\nresources: {}\n'
NESTED = b'heat_template_version: 2013-05-23\n'


def package(files: dict[str, bytes]) -> PackageFiles:
    return PackageFiles('pkg-1', files)


def test_the_top_template_and_its_nested_ones_by_name():
    files = package(
        {
            'BaseHOT/simple/top.yaml': TOP,
            'BaseHOT/simple/nested/VDU1.yaml': NESTED,
            'BaseHOT/simple/nested/net/VL1.yaml': NESTED,
            'BaseHOT/large/top.yaml': b'other flavour',
        }
    )

    top, nested = hot.base_hot(files, 'simple')

    assert top == TOP.decode()
    assert nested == {
        'VDU1.yaml': NESTED.decode(),
        'net/VL1.yaml': NESTED.decode(),
    }


@pytest.mark.parametrize(
    'files,found',
    [
        ({'BaseHOT/other/top.yaml': TOP}, 'none'),
        (
            {'BaseHOT/simple/a.yaml': TOP, 'BaseHOT/simple/b.yml': TOP},
            'BaseHOT/simple/a.yaml, BaseHOT/simple/b.yml',
        ),
    ],
)
def test_exactly_one_top_template_per_flavour(files, found):
    with pytest.raises(exceptions.OperationFailed) as e:
        hot.base_hot(package(files), 'simple')

    assert str(e.value) == (
        'Package pkg-1 must hold exactly one top Heat template (.yaml) in '
        f'BaseHOT/simple/ for flavour simple (found: {found}).'
    )


def test_a_template_that_is_not_utf8_is_named():
    files = package({'BaseHOT/simple/top.yaml': b'\xff\xfe'})

    with pytest.raises(exceptions.OperationFailed) as e:
        hot.base_hot(files, 'simple')

    assert str(e.value) == (
        'BaseHOT/simple/top.yaml of package pkg-1 is not UTF-8 text.'
    )


def test_load_keeps_dates_as_text():
    doc = hot.load(TOP.decode(), 'top.yaml')

    assert doc['heat_template_version'] == '2013-05-23'


@pytest.mark.parametrize(
    'text,message',
    [
        ('- a\n- b\n', 'Heat template top.yaml is not a YAML mapping.'),
        ('a: [unclosed\n', 'Heat template top.yaml'),
    ],
)
def test_load_refuses_what_is_no_template(text, message):
    with pytest.raises(exceptions.OperationFailed) as e:
        hot.load(text, 'top.yaml')

    assert str(e.value).startswith(message)
