"""vnfm's built-in Heat input, what Tacker's StandardUserData computes: the
flavour's base HOT and the ``nfv`` parameter, per operation.

Counts on a running stack are computed from the instance as it was before
the operation (its vnfcResourceInfo and scaleStatus), so a retry or a
rollback computes the same stack input whatever the stack reached.
"""

from __future__ import annotations

import copy
from typing import Any

from vnfm.common import exceptions
from vnfm.csar import Flavour
from vnfm.csar import Vnfd
from vnfm.csar import bounded
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import capacity
from vnfm.drivers.infra.openstack import hot
from vnfm.drivers.infra.openstack import nfv
from vnfm.drivers.infra.openstack.stackinput import StackInput
from vnfm.drivers.package_files import PackageFiles


def flavour_of(vnfd: dict[str, Any], flavour_id: str | None) -> Flavour:
    """The instance's flavour in a VNFD (``Vnfd.to_dict()`` form)."""
    model = Vnfd.from_dict(vnfd)
    flavour = model.flavour(flavour_id or '')
    if flavour is None:
        raise exceptions.OperationFailed(
            f'VNFD {model.vnfd_id} has no deployment flavour {flavour_id}.'
        )
    return flavour


def templates(package: PackageFiles, flavour_id: str) -> StackInput:
    """The flavour's base HOT with no parameters yet."""
    template, files = hot.base_hot(package, flavour_id)
    return StackInput(template=template, files=files, parameters={})


def nfv_paths(stack: StackInput) -> dict[tuple[str, str], set[str]]:
    """(kind, name) -> the keys the templates read of ``nfv.<kind>.<name>``."""
    docs = [hot.load(stack.template, 'top template')] + [
        hot.load(text, name) for name, text in stack.files.items()
    ]
    out: dict[tuple[str, str], set[str]] = {}
    for kind, name, key in hot.nfv_paths(*docs):
        out.setdefault((kind, name), set()).add(key)
    return out


def merge(into: dict[str, Any], patch: Any) -> dict[str, Any]:
    """``into`` with ``patch`` merged in, maps recursively (JSON merge)."""
    if not isinstance(patch, dict):
        return into
    out = dict(into)
    for key, value in patch.items():
        old = out.get(key)
        out[key] = (
            merge(old, value)
            if isinstance(old, dict) and isinstance(value, dict)
            else copy.deepcopy(value)
        )
    return out


def _finish(
    stack: StackInput, values: dict[str, Any], request: dict[str, Any]
) -> StackInput:
    """The stack input with ``nfv`` = values + additionalParams.nfv."""
    extra = (request.get('additionalParams') or {}).get('nfv')
    stack.parameters = {'nfv': merge(values, extra)}
    return stack


def instantiate(ctx: base.InfraContext) -> StackInput:
    """A new stack: every value from the VNFD and the request."""
    return _at_level(ctx, nfv.Links.of_request(ctx.request), {})


def _at_level(
    ctx: base.InfraContext, links: nfv.Links, cps: dict[str, Any]
) -> StackInput:
    """ctx.flavour_id's HOT, every value computed at the request's
    instantiationLevelId (default: the flavour's default level), but the
    ``cps`` given (``nfv.CP`` values) are kept."""
    flavour = flavour_of(ctx.vnfd, ctx.flavour_id)
    stack = templates(ctx.package, flavour.flavour_id)
    level = capacity.level_of(flavour, ctx.request.get('instantiationLevelId'))
    values: dict[str, Any] = {}
    for (kind, name), keys in sorted(nfv_paths(stack).items()):
        if kind == nfv.VDU:
            entry = nfv.vdu_values(
                flavour,
                name,
                keys,
                lambda vdu: capacity.at_level(flavour, vdu, level),
            )
        elif kind == nfv.CP:
            entry = cps.get(name) or nfv.cp_values(flavour, name, keys, links)
        else:
            continue
        values.setdefault(kind, {})[name] = entry
    return _finish(stack, values, ctx.request)


def connected_links(ctx: base.InfraContext) -> nfv.Links:
    """The request's links first, then those the instance is on."""
    request_links = nfv.Links.of_request(ctx.request)
    instance_links = nfv.Links.of_instance(ctx.vnf_instance)
    return nfv.Links(
        request_links.ext + instance_links.ext,
        request_links.managed + instance_links.managed,
    )


def change_flavour(
    ctx: base.InfraContext, current: dict[str, Any] | None
) -> StackInput:
    """The target flavour's HOT (``ctx.flavour_id`` is the request's
    newFlavourId) with every value computed for it: counts at the
    request's instantiationLevelId; networks from the request's
    extVirtualLinks, else the ones the stack's CPs are on now."""
    links = nfv.Links.of_request(ctx.request)
    kept = {
        name: value
        for name, value in current_nfv(current).get(nfv.CP, {}).items()
        if links.ext_cp(name) is None
    }
    return _at_level(ctx, connected_links(ctx), kept)


# Where the driver keeps the stack's nfv parameter from before a change.
SAVED_NFV = 'nfv_before'


def restored(
    ctx: base.InfraContext, current: dict[str, Any] | None
) -> StackInput:
    """Rollback of a flavour or connectivity change: ``ctx.flavour_id``'s
    HOT with the ``nfv`` the stack had before (``ctx.work``); what that
    lacks is computed from the instance (its counts), the networks kept
    from the stack."""
    saved = ctx.work.get(SAVED_NFV)
    if not saved:
        saved = {nfv.CP: current_nfv(current).get(nfv.CP, {})}
    return repackaged(ctx, ctx.vnfd, ctx.package, {hot.NFV: saved}, set())


def change_ext_conn(
    ctx: base.InfraContext, current: dict[str, Any] | None
) -> StackInput:
    """The running stack's parameters with the CPs on the links the
    request names (all the link's CPs: a link is one network) on the new
    networks; fixed_ips the request's, else none (the old ones were on the
    old network)."""
    flavour = flavour_of(ctx.vnfd, ctx.flavour_id)
    stack = templates(ctx.package, flavour.flavour_id)
    values = current_nfv(current)
    named = {vl.get('id') for vl in ctx.request.get('extVirtualLinks') or []}
    after = nfv.links_after(
        ctx.vnf_instance.get('instantiatedVnfInfo') or {}, ctx.request
    )
    links = nfv.Links(
        [
            {
                'resourceId': vl['resourceHandle'].get('resourceId'),
                'extCps': vl['extCps'],
            }
            for vl in after
            if vl['id'] in named
        ],
        [],
    )
    for (kind, name), keys in sorted(nfv_paths(stack).items()):
        if kind != nfv.CP or links.ext_cp(name) is None:
            continue
        have = values.setdefault(kind, {}).setdefault(name, {})
        have.pop('fixed_ips', None)
        have.update(nfv.cp_values(flavour, name, keys, links))
    return _finish(stack, values, ctx.request)


def current_nfv(current: dict[str, Any] | None) -> dict[str, Any]:
    """The ``nfv`` value of a stack's parameters (Heat shows a json
    parameter as a JSON string)."""
    value = (current or {}).get(hot.NFV) or {}
    if isinstance(value, str):
        try:
            value = bounded.load_json('nfv', value, bounded.PEER)
        except bounded.BadDocument:
            raise exceptions.OperationFailed(
                "The stack's nfv parameter is not JSON."
            ) from None
    if not isinstance(value, dict):
        raise exceptions.OperationFailed(
            "The stack's nfv parameter is not a JSON object."
        )
    return copy.deepcopy(value)


def with_counts(values: dict[str, Any], counts: dict[str, int]) -> None:
    """Set ``nfv.VDU.<vdu>.desired_capacity`` for each counted VDU."""
    for vdu, count in counts.items():
        values.setdefault(nfv.VDU, {}).setdefault(vdu, {})[
            'desired_capacity'
        ] = count


def scale(
    ctx: base.InfraContext, current: dict[str, Any] | None
) -> StackInput:
    """The running stack's parameters with the aspect's VDUs rescaled."""
    flavour = flavour_of(ctx.vnfd, ctx.flavour_id)
    stack = templates(ctx.package, flavour.flavour_id)
    values = current_nfv(current)
    with_counts(
        values, capacity.scaled(flavour, ctx.vnf_instance, ctx.request)
    )
    return _finish(stack, values, ctx.request)


def scale_rollback(
    ctx: base.InfraContext, current: dict[str, Any] | None
) -> StackInput:
    """The running stack's parameters with the aspect's VDUs back at the
    counts the instance records."""
    flavour = flavour_of(ctx.vnfd, ctx.flavour_id)
    stack = templates(ctx.package, flavour.flavour_id)
    aspect = flavour.scaling_aspects.get(ctx.request.get('aspectId') or '')
    vdus = list(aspect.vdu_deltas) if aspect else []
    values = current_nfv(current)
    with_counts(values, capacity.recorded(flavour, ctx.vnf_instance, vdus))
    stack.parameters = {'nfv': values}
    return stack


def heal(ctx: base.InfraContext, current: dict[str, Any] | None) -> StackInput:
    """The running stack's parameters, unchanged (the driver marks the
    servers to replace unhealthy)."""
    flavour = flavour_of(ctx.vnfd, ctx.flavour_id)
    stack = templates(ctx.package, flavour.flavour_id)
    stack.parameters = {'nfv': current_nfv(current)}
    return stack


def change_vnfpkg(
    ctx: base.InfraContext, current: dict[str, Any] | None
) -> StackInput:
    """The target package's HOT; its images and flavours for the VDUs the
    request's ``vdu_params`` names (every VDU when it names none)."""
    if ctx.target_vnfd is None or ctx.target_package is None:
        raise exceptions.OperationFailed(
            'change_vnfpkg needs the target package and its VNFD.'
        )
    params = (ctx.request.get('additionalParams') or {}).get('vdu_params')
    named = {
        p['vdu_id']
        for p in params or []
        if isinstance(p, dict) and isinstance(p.get('vdu_id'), str)
    }
    stack = repackaged(
        ctx, ctx.target_vnfd, ctx.target_package, current, named or None
    )
    return _finish(stack, stack.parameters['nfv'], ctx.request)


def change_vnfpkg_rollback(
    ctx: base.InfraContext, current: dict[str, Any] | None
) -> StackInput:
    """The source package's HOT, images and flavours again."""
    return repackaged(ctx, ctx.vnfd, ctx.package, current, None)


def repackaged(
    ctx: base.InfraContext,
    vnfd: dict[str, Any],
    package: PackageFiles,
    current: dict[str, Any] | None,
    changed: set[str] | None,
) -> StackInput:
    """``package``'s HOT over the running stack: images and flavours of
    the ``changed`` VDUs (None: all) from ``vnfd``; counts and networks
    kept, computed only for VDUs and CPs the stack did not have."""
    flavour = flavour_of(vnfd, ctx.flavour_id)
    stack = templates(package, flavour.flavour_id)
    values = current_nfv(current)
    connected = connected_links(ctx)
    for (kind, name), keys in sorted(nfv_paths(stack).items()):
        have = values.setdefault(kind, {}).setdefault(name, {})
        if kind == nfv.VDU:
            renew = {'computeFlavourId', 'vcImageId'} & keys
            if changed is not None and name not in changed:
                renew = set()
            wanted = renew | (keys - set(have))
            have.update(
                nfv.vdu_values(
                    flavour,
                    name,
                    wanted,
                    lambda vdu: _count(flavour, ctx.vnf_instance, vdu),
                )
            )
        elif kind == nfv.CP:
            have.update(
                nfv.cp_values(flavour, name, keys - set(have), connected)
            )
    stack.parameters = {'nfv': values}
    return stack


def _count(flavour: Flavour, vnf_instance: dict[str, Any], vdu: str) -> int:
    """A VDU new to the stack: the instance's count, else its initial delta."""
    return capacity.recorded(flavour, vnf_instance, [vdu])[vdu]
