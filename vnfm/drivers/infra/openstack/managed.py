"""extManagedVirtualLinks for a virtual link the top HOT creates itself
(an ``OS::Neutron::Net`` named after the VL, used by ``get_resource``), as
Tacker v2's StandardUserData treats them: the network the NFVO gives is
used instead, so the template's network and its subnets are left out and
every ``{get_resource: <vl>}`` becomes the given network.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from vnfm.drivers.infra.openstack import hot
from vnfm.drivers.infra.openstack import nfv
from vnfm.drivers.infra.openstack.stackinput import StackInput

Obj = dict[str, Any]
NET = 'OS::Neutron::Net'
SUBNET = 'OS::Neutron::Subnet'


def given_networks(template: Obj, links: nfv.Links) -> dict[str, str]:
    """VL name -> the network an extManagedVirtualLink gives it, for the
    VLs the top ``template`` creates as an ``OS::Neutron::Net``."""
    resources = template.get('resources') or {}
    out = {}
    for name, resource in resources.items():
        if isinstance(resource, dict) and resource.get('type') == NET:
            network = links.managed_network(name)
            if network:
                out[name] = network
    return out


def _is_ref(node: Any, name: str) -> bool:
    return isinstance(node, dict) and node == {'get_resource': name}


def _replaced(node: Any, networks: dict[str, str]) -> Any:
    """``node`` with ``{get_resource: <vl>}`` the given network."""
    if isinstance(node, list):
        return [_replaced(n, networks) for n in node]
    if not isinstance(node, dict):
        return node
    for name, network in networks.items():
        if _is_ref(node, name):
            return network
    return {k: _replaced(v, networks) for k, v in node.items()}


def _on(resource: Any, networks: dict[str, str]) -> bool:
    """Whether ``resource`` is a subnet of one of the given VLs."""
    if not isinstance(resource, dict) or resource.get('type') != SUBNET:
        return False
    props = resource.get('properties') or {}
    network = props.get('network') or props.get('network_id')
    return any(_is_ref(network, name) for name in networks)


def apply(stack: StackInput, links: nfv.Links) -> StackInput:
    """``stack`` using the given network for each VL of its top template
    that an extManagedVirtualLink names."""
    template = hot.load(stack.template, 'top template')
    networks = given_networks(template, links)
    if not networks:
        return stack
    doc = copy.deepcopy(template)
    resources = doc.get('resources') or {}
    doc['resources'] = {
        name: _replaced(resource, networks)
        for name, resource in resources.items()
        if name not in networks and not _on(resource, networks)
    }
    if 'outputs' in doc:
        doc['outputs'] = _replaced(doc['outputs'], networks)
    stack.template = json.dumps(doc)
    return stack
