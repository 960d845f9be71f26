"""StackInput: what vnfm hands Heat for a stack, from a sample package's
base HOT (the top template, the nested ones by the name it uses)."""

from __future__ import annotations

import yaml

from vnfm.drivers.infra.openstack import standard
from vnfm.drivers.infra.openstack.stackinput import StackInput

from .utils import package


def test_the_base_hot_of_a_flavour_is_the_stacks_input() -> None:
    _, files = package('vm_simple')

    given = standard.templates(files, 'simple')

    assert isinstance(given, StackInput)
    top = yaml.safe_load(given.template)
    assert top['resources']['VDU1']['properties']['resource']['type'] == (
        'VDU1.yaml'
    )
    # Each nested template under the name the top one uses for it.
    assert list(given.files) == ['VDU1.yaml']
    assert 'VDU1' in yaml.safe_load(given.files['VDU1.yaml'])['resources']
    assert given.parameters == {}
