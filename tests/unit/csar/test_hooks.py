"""The MgmtDriver hooks of a VNF node (interfaces.Vnflcm): resolved to a
package file or a built-in driver, and every mistake refused at
onboarding with the place it is in."""

from __future__ import annotations

import pytest

from vnfm.csar import hooks
from vnfm.csar.errors import InvalidPackage
from vnfm.csar.model import BUILTIN_ARTIFACT_TYPE

TOP = 'Definitions/top.yaml'
FILES = {
    TOP: b'',
    'Scripts/hook.py': b'',
    'Scripts/setup.sh': b'',
    'Definitions/local.py': b'',
}


def parse(node: dict, files: dict | None = None) -> dict:
    return hooks.parse_hooks([(TOP, 'VNF', node)], files or FILES)


def vnflcm(**ops: object) -> dict:
    return {'interfaces': {'Vnflcm': ops}}


def test_a_hook_implemented_by_an_artifact_file():
    node = {
        'artifacts': {
            'script': {
                'type': 'tosca.artifacts.Implementation.Python',
                'file': '../Scripts/hook.py',
                'description': 'the artifact',
            }
        },
        **vnflcm(instantiate_end={'implementation': 'script'}),
    }

    [(name, hook)] = parse(node).items()

    assert name == 'instantiate_end'
    assert (hook.file, hook.artifact_type, hook.builtin) == (
        'Scripts/hook.py',
        'tosca.artifacts.Implementation.Python',
        None,
    )
    assert hook.description == 'the artifact'


def test_a_hook_naming_a_file_directly_gets_its_type_from_the_name():
    node = vnflcm(
        instantiate_start='Scripts/setup.sh',
        terminate_end={'implementation': {'primary': 'local.py'}},
    )

    found = parse(node)

    assert found['instantiate_start'].file == 'Scripts/setup.sh'
    assert found['instantiate_start'].artifact_type == (
        'tosca.artifacts.Implementation.Bash'
    )
    assert found['terminate_end'].file == 'Definitions/local.py'


def test_a_built_in_driver_artifact():
    node = {
        'artifacts': {
            'updater': {
                'type': BUILTIN_ARTIFACT_TYPE,
                'file': 'container_update',
            }
        },
        **vnflcm(modify_information_end='updater'),
    }

    hook = parse(node)['modify_information_end']

    assert (hook.builtin, hook.file) == ('container_update', None)


def test_tosca_1_3_operations_layout_is_read_too():
    node = {
        'interfaces': {
            'Vnflcm': {
                'type': 'tosca.interfaces.nfv.Vnflcm',
                'operations': {'heal_start': 'Scripts/hook.py'},
            }
        }
    }

    assert list(parse(node)) == ['heal_start']


def test_the_first_node_of_several_wins():
    first = vnflcm(instantiate_end='Scripts/hook.py')
    second = vnflcm(instantiate_end='Scripts/setup.sh')

    found = hooks.parse_hooks(
        [(TOP, 'A', first), ('Definitions/b.yaml', 'B', second)], FILES
    )

    assert found['instantiate_end'].file == 'Scripts/hook.py'


def test_an_operation_without_implementation_is_no_hook():
    assert parse(vnflcm(instantiate={}, instantiate_end={})) == {}


@pytest.mark.parametrize(
    'node,message',
    [
        (
            vnflcm(instantiate='Scripts/hook.py'),
            'Definitions/top.yaml: node VNF: interfaces.Vnflcm.instantiate: '
            "'instantiate' is the LCM operation itself, not a hook; use "
            'instantiate_start or instantiate_end',
        ),
        (
            vnflcm(scale_to_level_start='Scripts/hook.py'),
            "hook 'scale_to_level_start' is not supported by vnfm",
        ),
        (
            vnflcm(reboot_start='Scripts/hook.py'),
            "unknown hook 'reboot_start'; known hooks: instantiate_start",
        ),
        (
            vnflcm(instantiate_end='Scripts/missing.py'),
            "implementation 'Scripts/missing.py' is neither an artifact of "
            'the VNF node nor a file in the package',
        ),
        (
            {
                'artifacts': {'a': {'file': 'Scripts/gone.py'}},
                **vnflcm(instantiate_end='a'),
            },
            "artifact 'a' of node VNF names file 'Scripts/gone.py', which "
            'is not in the package',
        ),
        (
            {
                'artifacts': {
                    'a': {'type': BUILTIN_ARTIFACT_TYPE, 'file': 'Bad-Name'}
                },
                **vnflcm(instantiate_end='a'),
            },
            "built-in driver artifact 'a' needs a driver name as its file, "
            "got 'Bad-Name'",
        ),
        (
            {'interfaces': {'Vnflcm': ['instantiate_end']}},
            'Definitions/top.yaml: node VNF: interfaces.Vnflcm must be a map',
        ),
    ],
)
def test_mistakes_are_refused_saying_where(node, message):
    with pytest.raises(InvalidPackage) as e:
        parse(node)

    assert message in str(e.value)


def test_a_file_outside_the_package_is_not_found():
    node = vnflcm(instantiate_end='https://198.18.0.9/hook.py')

    with pytest.raises(InvalidPackage, match='neither an artifact'):
        parse(node)
