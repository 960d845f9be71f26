"""Which VDUs a stack update can scale: those in an AutoScalingGroup of
the flavour's top template whose ``desired_capacity`` is the ``nfv``
parameter's ``VDU.<vdu>.desired_capacity`` (vnfm sets it, Tacker's
StandardUserData convention).

A VDU that is its own ``OS::Nova::Server`` in the top template, or a group
with a fixed ``desired_capacity`` (scaled by ``OS::Heat::ScalingPolicy``
resources, which vnfm does not signal), would take a stack update without
a change: such a scale is refused before anything runs.
"""

from __future__ import annotations

from typing import Any

from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import hot
from vnfm.drivers.infra.openstack import standard

GROUP = 'OS::Heat::AutoScalingGroup'


def _nfv_vdu(value: Any) -> str | None:
    """The VDU of ``{get_param: [nfv, VDU, <vdu>, desired_capacity]}``."""
    if not isinstance(value, dict) or list(value) != ['get_param']:
        return None
    path = value['get_param']
    if (
        isinstance(path, list)
        and len(path) == 4
        and path[0] == hot.NFV
        and path[1] == 'VDU'
        and path[3] == 'desired_capacity'
    ):
        return str(path[2])
    return None


def scalable_vdus(template: str) -> set[str]:
    """The VDUs whose group's desired_capacity the ``nfv`` parameter sets."""
    doc = hot.load(template, 'top template')
    found = set()
    for resource in (doc.get('resources') or {}).values():
        if isinstance(resource, dict) and resource.get('type') == GROUP:
            props = resource.get('properties') or {}
            vdu = _nfv_vdu(props.get('desired_capacity'))
            if vdu is not None:
                found.add(vdu)
    return found


def check(ctx: base.InfraContext) -> None:
    """ScaleNotPossible naming the VDUs of the request's aspect that no
    stack update of vnfm's can scale."""
    flavour = scaling.flavour_of(ctx.vnfd, ctx.flavour_id)
    aspect_id = ctx.request.get('aspectId') or ''
    aspect = (flavour.get('scaling_aspects') or {}).get(aspect_id) or {}
    vdus = {v for v, d in (aspect.get('vdu_deltas') or {}).items() if d}
    stack = standard.templates(ctx.package, flavour['flavour_id'])
    missing = sorted(vdus - scalable_vdus(stack.template))
    if missing:
        raise scaling.ScaleNotPossible(
            f'Aspect {aspect_id} scales VDU {", ".join(missing)}, which the '
            f'top Heat template of flavour {flavour["flavour_id"]} does not '
            f'put in an {GROUP} whose desired_capacity is '
            '{get_param: [nfv, VDU, <vdu>, desired_capacity]}; vnfm scales '
            'a VDU only through that parameter, so nothing was changed.'
        )
