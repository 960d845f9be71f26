"""Which VDUs a stack update can scale: those in an AutoScalingGroup of
the flavour's top template whose ``desired_capacity`` is the ``nfv``
parameter's ``VDU.<vdu>.desired_capacity`` (vnfm sets it, Tacker's
StandardUserData convention).

So are the VDUs that are their own resource of a nested template's type in
the top template: vnfm makes one resource per VNFC (``individual``).

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
from vnfm.drivers.infra.openstack import individual
from vnfm.drivers.infra.openstack import standard
from vnfm.drivers.package_files import PackageFiles

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


def scalable_vdus(
    template: str, files: dict[str, str] | None = None
) -> set[str]:
    """The VDUs whose group's desired_capacity the ``nfv`` parameter sets,
    and those managed one VNFC at a time (``individual``)."""
    doc = hot.load(template, 'top template')
    found = individual.individual_vdus(
        doc, files or {}, set(doc.get('resources') or {})
    )
    for resource in (doc.get('resources') or {}).values():
        if isinstance(resource, dict) and resource.get('type') == GROUP:
            props = resource.get('properties') or {}
            vdu = _nfv_vdu(props.get('desired_capacity'))
            if vdu is not None:
                found.add(vdu)
    return found


def unscalable(
    flavour: dict[str, Any],
    template: str,
    files: dict[str, str] | None = None,
) -> dict[str, str]:
    """Aspect id -> why a stack update of vnfm's cannot scale it, for the
    aspects of ``flavour`` whose VDUs the top ``template`` neither puts in
    an AutoScalingGroup whose desired_capacity vnfm sets nor makes a
    resource of a nested template's type (one per VNFC)."""
    scalable = scalable_vdus(template, files)
    out = {}
    for aspect_id, aspect in sorted(
        (flavour.get('scaling_aspects') or {}).items()
    ):
        vdus = {v for v, d in (aspect.get('vdu_deltas') or {}).items() if d}
        missing = sorted(vdus - scalable)
        if missing:
            out[aspect_id] = (
                f'Aspect {aspect_id} scales VDU {", ".join(missing)}, which '
                'the top Heat template of flavour '
                f'{flavour.get("flavour_id")} does not put in an {GROUP} '
                'whose desired_capacity is {get_param: [nfv, VDU, <vdu>, '
                'desired_capacity]} nor makes a resource of a nested '
                "template's type; vnfm scales a VDU only in these two ways."
            )
    return out


def of_package(
    flavour: dict[str, Any], package: PackageFiles
) -> dict[str, str]:
    """``unscalable`` for the flavour's top template in ``package``."""
    stack = standard.templates(package, flavour['flavour_id'])
    return unscalable(flavour, stack.template, stack.files)


def check(ctx: base.InfraContext) -> None:
    """ScaleNotPossible naming the VDUs of the request's aspect that no
    stack update of vnfm's can scale (nothing changed yet)."""
    flavour = scaling.flavour_of(ctx.vnfd, ctx.flavour_id)
    why = of_package(flavour, ctx.package).get(
        ctx.request.get('aspectId') or ''
    )
    if why:
        raise scaling.ScaleNotPossible(f'{why} Nothing was changed.')
