"""Individual VNFC management (Tacker v2's StandardUserData): a VDU that is
its own resource in the top HOT, of a nested template's type (no
AutoScalingGroup), becomes one resource per VNFC, ``<VDU>-<n>``.

Each copy reads ``nfv.VDU.<VDU>-<n>.*`` instead of ``nfv.VDU.<VDU>.*``, so a
request's ``additionalParams.nfv.VDU.<VDU>-<n>`` (name, computeFlavourId,
vcImageId, locationConstraints) applies to that VNFC only. The indices in
use are the instance's (``vdu_idx`` in each vnfcResourceInfo's metadata):
scale out adds the next ones, scale in removes the named VNFCs, then the
highest indices; every other operation keeps them.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from vnfm.csar import Flavour
from vnfm.drivers.infra import base
from vnfm.drivers.infra import vnfcs
from vnfm.drivers.infra.openstack import capacity
from vnfm.drivers.infra.openstack import hot
from vnfm.drivers.infra.openstack import nfv
from vnfm.drivers.infra.openstack.stackinput import StackInput

Obj = dict[str, Any]
# vnfcResourceInfo/vnfcInfo metadata key of a VNFC's index (Tacker's).
INDEX = vnfcs.VDU_IDX
# Instance metadata: VDU -> the VNFC ids to give, by index (Tacker's).
VNFC_MAPPING = 'VDU_VNFc_mapping'
# The keys a VNFC's nfv entry never takes (its count is its resources).
_NOT_PER_VNFC = {'desired_capacity'}
# Operations whose request's additionalParams.nfv applies.
_WITH_REQUEST = (
    'instantiate',
    'scale',
    'change_vnfpkg',
    'change_flavour',
    'change_ext_conn',
)
# Operations that take the VNFD's images and flavours again.
_RENEW = ('change_vnfpkg', 'change_vnfpkg_rollback')


def resource_name(vdu: str, index: int) -> str:
    """The top-HOT resource of VNFC ``index`` of ``vdu``."""
    return f'{vdu}-{index}'


def index_of(vdu: str, name: str) -> int | None:
    """``n`` when ``name`` is ``<vdu>-<n>``, else None."""
    found = re.fullmatch(re.escape(vdu) + r'-(\d+)', name)
    return int(found.group(1)) if found else None


def individual_vdus(
    template: Obj, files: dict[str, str], vdu_ids: set[str]
) -> set[str]:
    """The VDUs that are a resource of their own in the top ``template``
    whose type is one of the nested ``files``."""
    resources = template.get('resources') or {}
    return {
        name
        for name, resource in resources.items()
        if name in vdu_ids
        and isinstance(resource, dict)
        and resource.get('type') in files
    }


def recorded(info: Obj, vdu: str) -> list[int]:
    """The indices of ``vdu``'s VNFCs in an instantiatedVnfInfo."""
    return sorted(
        int(r['metadata'][INDEX])
        for r in info.get('vnfcResourceInfo') or []
        if r.get('vduId') == vdu and INDEX in (r.get('metadata') or {})
    )


def scaled(info: Obj, vdu: str, count: int, named: list[str]) -> list[int]:
    """``vdu``'s indices after scaling to ``count`` VNFCs: new ones after
    the highest; on scale in, the ``named`` VNFCs (vnfcInfo or
    vnfcResourceInfo ids) go first, then the highest indices."""
    now = recorded(info, vdu)
    if count >= len(now):
        start = max(now, default=-1) + 1
        return now + list(range(start, start + count - len(now)))
    chosen = _named_indices(info, vdu, set(named))
    kept = [i for i in now if i not in chosen]
    return kept[:count]


def _named_indices(info: Obj, vdu: str, named: set[str]) -> set[int]:
    resource_ids = {
        v.get('vnfcResourceInfoId')
        for v in info.get('vnfcInfo') or []
        if v.get('id') in named
    }
    return {
        int(r['metadata'][INDEX])
        for r in info.get('vnfcResourceInfo') or []
        if r.get('vduId') == vdu
        and INDEX in (r.get('metadata') or {})
        and (r['id'] in named or r['id'] in resource_ids)
    }


def indices(
    ctx: base.InfraContext, operation: str, flavour: Flavour, vdus: set[str]
) -> dict[str, list[int]]:
    """VDU -> the indices of its VNFCs after ``operation``."""
    info = ctx.vnf_instance.get('instantiatedVnfInfo') or {}
    out: dict[str, list[int]] = {}
    targets: dict[str, int] = {}
    if operation == 'scale':
        targets = capacity.scaled(flavour, ctx.vnf_instance, ctx.request)
    level = None
    if operation == 'instantiate':
        level = capacity.level_of(
            flavour, ctx.request.get('instantiationLevelId')
        )
    named = (ctx.request.get('additionalParams') or {}).get('vnfcInstanceIds')
    for vdu in sorted(vdus):
        if vdu in targets:
            out[vdu] = scaled(info, vdu, targets[vdu], list(named or []))
        elif operation == 'instantiate':
            out[vdu] = list(range(capacity.at_level(flavour, vdu, level)))
        else:
            count = capacity.recorded(flavour, ctx.vnf_instance, [vdu])[vdu]
            out[vdu] = recorded(info, vdu) or list(range(count))
    return out


def _renamed(node: Any, vdu: str, new: str) -> Any:
    """``node`` with ``get_param: [nfv, VDU, vdu, ...]`` reading ``new``."""
    if isinstance(node, list):
        return [_renamed(n, vdu, new) for n in node]
    if not isinstance(node, dict):
        return node
    path = node.get('get_param')
    if (
        list(node) == ['get_param']
        and isinstance(path, list)
        and path[:3] == [hot.NFV, nfv.VDU, vdu]
    ):
        return {'get_param': [hot.NFV, nfv.VDU, new, *path[3:]]}
    return {k: _renamed(v, vdu, new) for k, v in node.items()}


def expanded(template: Obj, wanted: dict[str, list[int]]) -> Obj:
    """The top template with each VDU of ``wanted`` one resource per index."""
    doc = copy.deepcopy(template)
    resources = doc.setdefault('resources', {})
    for vdu, numbers in wanted.items():
        resource = resources.pop(vdu)
        for index in numbers:
            name = resource_name(vdu, index)
            resources[name] = _renamed(resource, vdu, name)
    return doc


def _vnfc_values(
    flavour: Flavour,
    vdu: str,
    index: int,
    keys: set[str],
    layers: list[Obj],
) -> Obj:
    """``nfv.VDU.<vdu>-<index>``: the VNFD's values for the keys the
    template reads, under each of ``layers`` in turn."""
    wanted = keys - _NOT_PER_VNFC - {'name'}
    out: Obj = nfv.vdu_values(flavour, vdu, wanted, lambda v: 0)
    if 'name' in keys:
        out['name'] = resource_name(flavour.vdus[vdu].vdu_name or vdu, index)
    for layer in layers:
        out.update(copy.deepcopy(layer))
    return out


def apply(
    ctx: base.InfraContext,
    operation: str,
    flavour: Flavour,
    stack: StackInput,
) -> StackInput:
    """``stack`` (the built-in input of ``operation``) with its individual
    VDUs one resource per VNFC and ``nfv.VDU`` per VNFC."""
    template = hot.load(stack.template, 'top template')
    vdus = individual_vdus(template, stack.files, set(flavour.vdus))
    if not vdus:
        return stack
    wanted = indices(ctx, operation, flavour, vdus)
    values = copy.deepcopy(stack.parameters.get(hot.NFV) or {})
    per_vdu = values.setdefault(nfv.VDU, {})
    request: Obj = {}
    if operation in _WITH_REQUEST:
        extra = (ctx.request.get('additionalParams') or {}).get(hot.NFV)
        request = (extra or {}).get(nfv.VDU) or {}
    keys = _keys(template, stack.files)
    for vdu, numbers in wanted.items():
        per_vdu.pop(vdu, None)
        current = {
            index: per_vdu.pop(name)
            for name in list(per_vdu)
            if (index := index_of(vdu, name)) is not None
        }
        for index in numbers:
            name = resource_name(vdu, index)
            kept = dict(current.get(index) or {})
            if operation in _RENEW:
                kept.pop('computeFlavourId', None)
                kept.pop('vcImageId', None)
            layers = [request.get(vdu) or {}, kept, request.get(name) or {}]
            per_vdu[name] = _vnfc_values(
                flavour, vdu, index, keys.get(vdu, set()), layers
            )
    stack.template = json.dumps(expanded(template, wanted))
    stack.parameters = {**stack.parameters, hot.NFV: values}
    return stack


def _keys(template: Obj, files: dict[str, str]) -> dict[str, set[str]]:
    """VDU -> the keys of ``nfv.VDU.<vdu>`` the templates read."""
    docs = [template] + [hot.load(t, n) for n, t in files.items()]
    out: dict[str, set[str]] = {}
    for kind, name, key in hot.nfv_paths(*docs):
        if kind == nfv.VDU:
            out.setdefault(name, set()).add(key)
    return out
