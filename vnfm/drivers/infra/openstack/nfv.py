"""The values of Tacker v2's ``nfv`` Heat parameter, from the VNFD and the
request: ``nfv.VDU.<vdu>.{computeFlavourId, vcImageId, locationConstraints,
name, desired_capacity}`` and ``nfv.CP.<cp>.{network, fixed_ips}``; and
the keys of Tacker v1's default parameters that v1-era templates read,
``nfv.VDU.<vdu>.{flavor, image}`` (the same flavour and image).

Only the keys the templates read are computed (as Tacker's
StandardUserData does), so a VNFD need not say what its HOT does not use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from vnfm.common import exceptions
from vnfm.csar import Flavour

VDU, CP = 'VDU', 'CP'


def image_name(flavour: Flavour, name: str) -> str:
    """The software image of a VDU (its own, else its storage's) or of a
    VirtualBlockStorage."""
    vdu = flavour.vdus.get(name)
    holders = [vdu.sw_image] if vdu else []
    storages = vdu.storages if vdu else [name]
    holders += [
        flavour.storages[s].sw_image for s in storages if s in flavour.storages
    ]
    for image in holders:
        if image and isinstance(image.get('name'), str) and image['name']:
            return image['name']
    raise exceptions.OperationFailed(
        f'{name} of flavour {flavour.flavour_id} has no software image: give '
        'it (or its virtual storage) sw_image_data with a name (the image '
        'name in the VIM).'
    )


def compute_flavour(flavour: Flavour, name: str) -> str:
    """The Nova flavour of a VDU."""
    vdu = _vdu(flavour, name)
    if not vdu.compute_flavour:
        raise exceptions.OperationFailed(
            f'VDU {name} of flavour {flavour.flavour_id} names no compute '
            'flavour: set capabilities.virtual_compute.properties.'
            'requested_additional_capabilities.properties.'
            'requested_additional_capability_name to a flavour of the VIM.'
        )
    return vdu.compute_flavour


def _vdu(flavour: Flavour, name: str) -> Any:
    vdu = flavour.vdus.get(name)
    if vdu is None:
        raise exceptions.OperationFailed(
            f'The Heat template reads nfv.VDU.{name}, but flavour '
            f'{flavour.flavour_id} has no VDU {name}.'
        )
    return vdu


def vdu_values(
    flavour: Flavour,
    name: str,
    keys: Iterable[str],
    capacity: Callable[[str], int],
) -> dict[str, Any]:
    """``nfv.VDU.<name>``: the keys of it the templates read."""
    compute: dict[str, Callable[[], Any]] = {
        'computeFlavourId': lambda: compute_flavour(flavour, name),
        'vcImageId': lambda: image_name(flavour, name),
        'desired_capacity': lambda: capacity(name),
        'name': lambda: _vdu(flavour, name).vdu_name,
        # Tacker v1's names for the same values (v1-era base HOTs).
        'flavor': lambda: compute_flavour(flavour, name),
        'image': lambda: image_name(flavour, name),
    }
    # locationConstraints (and keys vnfm does not know) come only from
    # additionalParams.nfv: vnfm has no NFVO granting zones.
    return {k: compute[k]() for k in sorted(keys) if k in compute}


class Links:
    """The external and externally-managed virtual links of a request (or
    of an instance's instantiatedVnfInfo)."""

    def __init__(
        self, ext: list[dict[str, Any]], managed: list[dict[str, Any]]
    ) -> None:
        self.ext, self.managed = ext, managed

    @classmethod
    def of_request(cls, request: dict[str, Any]) -> Links:
        """Links of an InstantiateVnfRequest (v1 or v2 shapes)."""
        return cls(
            list(request.get('extVirtualLinks') or []),
            list(request.get('extManagedVirtualLinks') or []),
        )

    @classmethod
    def of_instance(cls, vnf_instance: dict[str, Any]) -> Links:
        """Links an instance is connected to now. The CPDs on an external
        link come from its ``currentVnfExtCpData`` (SOL003 v3), else from
        ``instantiatedVnfInfo.metadata.ext_cpds`` (link id -> cpdIds)."""
        info = vnf_instance.get('instantiatedVnfInfo') or {}
        cpds = (info.get('metadata') or {}).get('ext_cpds') or {}
        ext = [
            {
                'resourceId': (e.get('resourceHandle') or {}).get(
                    'resourceId'
                ),
                'extCps': e.get('currentVnfExtCpData')
                or [{'cpdId': c} for c in cpds.get(e.get('id')) or []],
            }
            for e in info.get('extVirtualLinkInfo') or []
        ]
        managed = [
            {
                'vnfVirtualLinkDescId': m.get('vnfVirtualLinkDescId'),
                'resourceId': (m.get('networkResource') or {}).get(
                    'resourceId'
                ),
            }
            for m in info.get('extManagedVirtualLinkInfo') or []
        ]
        return cls(ext, managed)

    def ext_cp(self, cpd_id: str) -> tuple[str, dict[str, Any]] | None:
        """(network, VnfExtCpData) of the external link holding ``cpd_id``."""
        for link in self.ext:
            for cp in link.get('extCps') or []:
                if cp.get('cpdId') == cpd_id and link.get('resourceId'):
                    return link['resourceId'], cp
        return None

    def managed_network(self, vl_id: str | None) -> str | None:
        """The network of the extManagedVirtualLink for VL ``vl_id``."""
        for link in self.managed:
            if vl_id and link.get('vnfVirtualLinkDescId') == vl_id:
                return link.get('resourceId')
        return None


def cp_values(
    flavour: Flavour, name: str, keys: Iterable[str], links: Links
) -> dict[str, Any]:
    """``nfv.CP.<name>``: its network and, when the request gives
    addresses, its fixed_ips."""
    keys = set(keys)
    found = links.ext_cp(name)
    out: dict[str, Any] = {}
    if 'network' in keys:
        out['network'] = found[0] if found else _managed(flavour, name, links)
    if 'fixed_ips' in keys and found:
        fixed = fixed_ips(found[1])
        if fixed:
            out['fixed_ips'] = fixed
    return out


def _managed(flavour: Flavour, name: str, links: Links) -> str:
    cp = flavour.cps.get(name)
    vl = cp.virtual_link if cp else None
    network = links.managed_network(vl)
    if network:
        return network
    via = (
        f'or an extManagedVirtualLink with vnfVirtualLinkDescId {vl}'
        if vl
        else '(the VNFD links it to no internal virtual link)'
    )
    raise exceptions.OperationFailed(
        f'The Heat template reads nfv.CP.{name}.network, but the request '
        f'connects CP {name} to no network: give an extVirtualLink whose '
        f'extCps has cpdId {name} {via}.'
    )


def fixed_ips(ext_cp: dict[str, Any]) -> list[dict[str, str]]:
    """Heat port ``fixed_ips`` from a VnfExtCpData's cpConfig (a map in
    SOL003 v3, a list in v2): one entry per fixed address, else per subnet."""
    configs = ext_cp.get('cpConfig') or {}
    if isinstance(configs, dict):
        configs = list(configs.values())
    out: list[dict[str, str]] = []
    for config in configs:
        for proto in (config or {}).get('cpProtocolData') or []:
            eth = (proto or {}).get('ipOverEthernet') or {}
            for address in eth.get('ipAddresses') or []:
                subnet = address.get('subnetId')
                base = {'subnet': subnet} if subnet else {}
                fixed = address.get('fixedAddresses') or []
                out += [{**base, 'ip_address': ip} for ip in fixed]
                if not fixed and base:
                    out.append(base)
    return out


def links_after(info: dict[str, Any], request: dict[str, Any]) -> list[Any]:
    """The external links (id, resourceHandle, extCps) of an instance
    after a request's extVirtualLinks: a link the request names gets its
    network and keeps its other CPs (a link is one network); CPs the
    request puts on another link leave their old one."""
    cpds = (info.get('metadata') or {}).get('ext_cpds') or {}
    new = [
        {
            'id': vl['id'],
            'resourceHandle': {
                'resourceId': vl.get('resourceId'),
                'vimConnectionId': vl.get('vimConnectionId'),
            },
            'extCps': list(vl.get('extCps') or []),
        }
        for vl in request.get('extVirtualLinks') or []
    ]
    by_id = {vl['id']: vl for vl in new}
    moved = {c.get('cpdId') for vl in new for c in vl['extCps']}
    for old in info.get('extVirtualLinkInfo') or []:
        kept = [
            {'cpdId': c} for c in cpds.get(old['id']) or [] if c not in moved
        ]
        if old['id'] in by_id:
            by_id[old['id']]['extCps'] += kept
        elif kept:
            handle = old.get('resourceHandle')
            new.append(
                {'id': old['id'], 'resourceHandle': handle, 'extCps': kept}
            )
    return new
