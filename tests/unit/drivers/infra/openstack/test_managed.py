"""vnfm.drivers.infra.openstack.managed: an extManagedVirtualLink for a VL
the top HOT creates replaces that network (the vm_vnfc sample)."""

from __future__ import annotations

import json

from vnfm.drivers.infra.openstack import managed
from vnfm.drivers.infra.openstack import nfv
from vnfm.drivers.infra.openstack import standard

from .utils import DATA_NET
from .utils import context


def _resources(links: nfv.Links) -> dict:
    ctx = context(name='vm_vnfc')
    stack = managed.apply(standard.templates(ctx.package, 'simple'), links)
    return dict(json.loads(stack.template)['resources'])


def test_the_given_network_replaces_the_templates_network_and_subnet():
    links = nfv.Links(
        [], [{'vnfVirtualLinkDescId': 'internalVL1', 'resourceId': DATA_NET}]
    )

    resources = _resources(links)

    assert 'internalVL1' not in resources
    assert 'internalVL1_subnet' not in resources
    assert resources['VDU2_CP2']['properties']['network'] == DATA_NET


def test_without_a_managed_link_the_template_makes_its_network():
    ctx = context(name='vm_vnfc')
    stack = standard.templates(ctx.package, 'simple')

    assert managed.apply(stack, nfv.Links([], [])).template == stack.template
