"""A VNFD's definitions and their imports, followed inside the package
only: ETSI's SOL001 type files from vnfm's own copies, never fetched;
cycles, URLs, missing files and runaway nesting refused naming the file."""

from __future__ import annotations

import pytest

from vnfm.csar import templates
from vnfm.csar.errors import InvalidPackage

HEADER = 'tosca_definitions_version: tosca_simple_yaml_1_2\n'
ETSI_URL = (
    'https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/'
    'etsi_nfv_sol001_vnfd_types.yaml'
)


def doc(*imports: str) -> bytes:
    lines = HEADER
    if imports:
        lines += 'imports:\n' + ''.join(f'  - {i}\n' for i in imports)
    return lines.encode()


def test_imports_are_loaded_relative_to_the_importer_in_order():
    files = {
        'Definitions/top.yaml': doc('types.yaml', 'df.yaml'),
        'Definitions/types.yaml': doc(),
        'Definitions/df.yaml': doc('types.yaml'),
    }

    defs = templates.Definitions(files, 'Definitions/top.yaml')

    assert list(defs.docs) == [
        'Definitions/top.yaml',
        'Definitions/types.yaml',
        'Definitions/df.yaml',
    ]


def test_etsi_types_come_from_vnfms_copies_never_the_network():
    files = {'Definitions/top.yaml': doc(ETSI_URL)}

    defs = templates.Definitions(files, 'Definitions/top.yaml')

    assert list(defs.bundled) == ['etsi_nfv_sol001_vnfd_types.yaml']
    assert defs.package_docs() == {
        'Definitions/top.yaml': defs.docs['Definitions/top.yaml']
    }
    assert [p for p, _ in defs.all_docs()] == [
        'Definitions/top.yaml',
        'etsi_nfv_sol001_vnfd_types.yaml',
    ]


@pytest.mark.parametrize(
    'files,message',
    [
        (
            {
                'Definitions/a.yaml': doc('b.yaml'),
                'Definitions/b.yaml': doc('a.yaml'),
            },
            'import cycle: Definitions/a.yaml -> Definitions/b.yaml -> '
            'Definitions/a.yaml',
        ),
        (
            {'Definitions/a.yaml': doc('https://198.18.0.9/types.yaml')},
            "Definitions/a.yaml: import 'https://198.18.0.9/types.yaml' is a "
            'URL; vnfm does not fetch imports, put the file in the package',
        ),
        (
            {'Definitions/a.yaml': doc('gone.yaml')},
            "Definitions/a.yaml: import 'gone.yaml' is not in the package",
        ),
        (
            {'Definitions/a.yaml': b'just: yaml\n'},
            'Definitions/a.yaml: not a TOSCA definitions file '
            '(tosca_definitions_version is missing)',
        ),
        (
            {'Definitions/a.yaml': (HEADER + 'imports: x.yaml\n').encode()},
            "Definitions/a.yaml: 'imports' must be a list",
        ),
    ],
)
def test_broken_definitions_are_refused_naming_the_file(files, message):
    with pytest.raises(InvalidPackage) as e:
        templates.Definitions(files, 'Definitions/a.yaml')

    assert str(e.value) == message


def test_runaway_import_nesting_is_refused():
    files = {f'Definitions/{n}.yaml': doc(f'{n + 1}.yaml') for n in range(40)}
    files['Definitions/40.yaml'] = doc()

    with pytest.raises(InvalidPackage, match='imports nested more than 32'):
        templates.Definitions(files, 'Definitions/0.yaml')


@pytest.mark.parametrize(
    'entry', ['{file: types.yaml}', '{mytypes: {file: types.yaml}}']
)
def test_import_entries_in_every_tosca_form(entry):
    files = {
        'Definitions/top.yaml': (HEADER + f'imports:\n  - {entry}\n').encode(),
        'Definitions/types.yaml': doc(),
    }

    defs = templates.Definitions(files, 'Definitions/top.yaml')

    assert 'Definitions/types.yaml' in defs.docs


def test_yaml_errors_name_the_file_and_line():
    with pytest.raises(InvalidPackage) as e:
        templates.parse_yaml('Definitions/a.yaml', b'a: 1\nb: [unclosed\n')

    assert str(e.value).startswith('Definitions/a.yaml')
