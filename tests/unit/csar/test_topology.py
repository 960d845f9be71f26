"""A flavour's topology: VDUs with their profile and image, scaling
aspects with their deltas, instantiation levels; mistakes refused at
onboarding naming the file and the policy."""

from __future__ import annotations

import pytest

from vnfm.csar import topology
from vnfm.csar import types
from vnfm.csar.errors import InvalidPackage

PATH = 'Definitions/df.yaml'
REGISTRY = types.TypeRegistry([])
FILES = {PATH: b'', 'Files/images/cirros.img': b'img'}


def vdu(lo: int = 1, hi: int = 3, **props: object) -> dict:
    return {
        'type': types.VDU_COMPUTE,
        'properties': {
            'name': 'vdu-one',
            'vdu_profile': {
                'min_number_of_instances': lo,
                'max_number_of_instances': hi,
            },
            **props,
        },
    }


POLICIES = [
    {
        'aspects': {
            'type': topology.SCALING_ASPECTS,
            'properties': {
                'aspects': {
                    'VDU1_scale': {
                        'max_scale_level': 2,
                        'step_deltas': ['delta_1'],
                    }
                }
            },
        }
    },
    {
        'initial': {
            'type': topology.INITIAL_DELTA,
            'targets': ['VDU1'],
            'properties': {'initial_delta': {'number_of_instances': 2}},
        }
    },
    {
        'deltas': {
            'type': topology.ASPECT_DELTAS,
            'targets': ['VDU1'],
            'properties': {
                'aspect': 'VDU1_scale',
                'deltas': {'delta_1': {'number_of_instances': 1}},
            },
        }
    },
    {
        'levels': {
            'type': topology.LEVELS,
            'properties': {
                'levels': {
                    'small': {
                        'scale_info': {'VDU1_scale': {'scale_level': 0}}
                    },
                    'large': {
                        'scale_info': {'VDU1_scale': {'scale_level': 2}}
                    },
                },
                'default_level': 'small',
            },
        }
    },
    {
        'vdu_levels': {
            'type': topology.VDU_LEVELS,
            'targets': ['VDU1'],
            'properties': {
                'levels': {
                    'small': {'number_of_instances': 2},
                    'large': {'number_of_instances': 3},
                }
            },
        }
    },
]


def parse(nodes: dict, policies: list | None = None) -> topology.Topology:
    tt = {'node_templates': nodes, 'policies': policies or []}
    return topology.Topology(PATH, tt, REGISTRY, FILES)


def test_a_vdu_with_its_profile_and_name():
    top = parse({'VDU1': vdu(), 'CP1': {'type': types.VDU_CP}})

    [(name, found)] = top.vdus.items()
    assert name == 'VDU1' and found.vdu_name == 'vdu-one'
    assert (found.min_instances, found.max_instances) == (1, 3)
    assert found.initial_delta == 1 and found.type == types.VDU_COMPUTE


def test_policies_apply_whatever_their_order():
    top = parse({'VDU1': vdu()}, list(reversed(POLICIES)))

    aspect = top.aspects['VDU1_scale']
    assert aspect.max_scale_level == 2
    assert aspect.vdu_deltas == {'VDU1': {'delta_1': 1}}
    assert aspect.vdu_initial_deltas == {'VDU1': 2}
    assert top.vdus['VDU1'].initial_delta == 2
    assert top.default_level == 'small'
    assert top.levels['large']['vdu_levels'] == {'VDU1': 3}
    assert top.levels['large']['scale_info'] == {
        'VDU1_scale': {'scale_level': 2}
    }


def test_the_image_of_a_vdu_or_its_storage_with_its_file():
    storage = {
        'type': types.VIRTUAL_STORAGE,
        'properties': {'sw_image_data': {'name': 'cirros'}},
        'artifacts': {
            'img': {
                'type': 'tosca.artifacts.nfv.SwImage',
                'file': '../Files/images/cirros.img',
            }
        },
    }
    node = vdu()
    node['requirements'] = [{'virtual_storage': 'Disk'}]

    top = parse({'VDU1': node, 'Disk': storage})

    assert top.vdus['VDU1'].sw_image == {
        'name': 'cirros',
        'file': 'Files/images/cirros.img',
    }
    assert top.vdus['VDU1'].storages == ['Disk']


@pytest.mark.parametrize(
    'nodes,policies,message',
    [
        (
            {'VDU1': vdu(3, 1)},
            [],
            'VDU VDU1: max_number_of_instances 1 is less than '
            'min_number_of_instances 3',
        ),
        (
            {'VDU1': vdu(-1, 1)},
            [],
            'VDU1 min_number: expected a non-negative integer, got -1',
        ),
        (
            {'VDU1': vdu()},
            [
                {
                    'd': {
                        'type': topology.ASPECT_DELTAS,
                        'targets': ['VDU1'],
                        'properties': {'aspect': 'nope'},
                    }
                }
            ],
            "policy d: aspect 'nope' is not declared in ScalingAspects",
        ),
        (
            {'VDU1': vdu()},
            [
                {
                    'i': {
                        'type': topology.INITIAL_DELTA,
                        'targets': ['VDU9'],
                    }
                }
            ],
            "policy i: target 'VDU9' is not a node template of this flavour",
        ),
    ],
)
def test_mistakes_are_refused_naming_file_and_place(nodes, policies, message):
    with pytest.raises(InvalidPackage) as e:
        parse(nodes, policies)

    assert str(e.value) == f'{PATH}: {message}'


def test_resolve_file_relative_to_the_template_then_the_root():
    files = {'Definitions/a.py': b'', 'Scripts/b.py': b''}

    assert topology.resolve_file(PATH, 'a.py', files) == 'Definitions/a.py'
    assert topology.resolve_file(PATH, 'Scripts/b.py', files) == 'Scripts/b.py'
    assert topology.resolve_file(PATH, 'https://h/b.py', files) is None
    assert topology.resolve_file(PATH, '', files) is None
