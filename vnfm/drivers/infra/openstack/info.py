"""instantiatedVnfInfo from a stack's resources (nested ones included).

The Heat resources are named after the VNFD's nodes, as in Tacker's
packages: an ``OS::Nova::Server`` named after a VDU is one VNFC of it, an
``OS::Neutron::Port`` named after a VduCp is that CP of the server it is
plugged into (``device_id``, else the one server of its stack), an
``OS::Cinder::Volume`` is a virtual storage of the server of its stack, an
``OS::Neutron::Net`` an internal virtual link.

A VNFC's id is derived from where its server sits in the stack tree (the
stack and resource name), not from the Nova server: a server Heat replaces
(heal) keeps its VNFC id, a new AutoScalingGroup member gets a new one. A
VNFC managed one by one (resource ``<VDU>-<n>``, see ``individual``) keeps
its index ``n`` as ``vdu_idx`` and takes the n-th id of the instance's
``metadata.VDU_VNFc_mapping.<VDU>`` when that gives one.
"""

from __future__ import annotations

import uuid
from typing import Any

from vnfm.drivers.infra.openstack import individual

SERVER = 'OS::Nova::Server'
PORT = 'OS::Neutron::Port'
VOLUME = 'OS::Cinder::Volume'
NET = 'OS::Neutron::Net'
_NS = uuid.UUID('6a0c7e51-3f0e-4d8c-9a43-0f6f1b2c7d90')

Obj = dict[str, Any]


def stack_of(resource: Obj) -> str:
    """Id of the stack a listed resource belongs to (from its links)."""
    for link in resource.get('links') or []:
        if link.get('rel') == 'stack':
            return str(link['href']).rstrip('/').rsplit('/', 1)[-1]
    return ''


def _rid(kind: str, instance_id: str, resource: Obj) -> str:
    """A stable id for a resource of the instance's stack tree."""
    where = f'{stack_of(resource)}/{resource["resource_name"]}'
    if kind == 'vnfc':
        # The member of the group (or the top stack) the server sits in.
        where = resource.get('_member') or where
    return str(uuid.uuid5(_NS, f'{instance_id}/{kind}/{where}'))


def _handle(vim_id: str, resource: Obj) -> Obj:
    return {
        'vimConnectionId': vim_id,
        'resourceId': resource.get('physical_resource_id') or '',
        'vimLevelResourceType': resource['resource_type'],
    }


def _attrs(resource: Obj) -> Obj:
    return resource.get('attributes') or {}


def _members(resources: list[Obj]) -> dict[str, Obj]:
    """Nested stack id -> the resource that made it (a group member or a
    template resource)."""
    out = {}
    for r in resources:
        for link in r.get('links') or []:
            if link.get('rel') == 'nested':
                out[str(link['href']).rstrip('/').rsplit('/', 1)[-1]] = r
    return out


def _owner(res: Obj, servers: list[Obj]) -> Obj | None:
    """The server a port or volume belongs to."""
    attrs = _attrs(res)
    device = attrs.get('device_id')
    attached = [
        a.get('server_id')
        for a in attrs.get('attachments_list')
        or attrs.get('attachments')
        or []
        if isinstance(a, dict)
    ]
    for server in servers:
        if server.get('physical_resource_id') in {device, *attached} - {None}:
            return server
    here = [s for s in servers if stack_of(s) == stack_of(res)]
    prefixed = [
        s
        for s in here
        if res['resource_name'].startswith(s['resource_name'] + '_')
    ]
    mine = prefixed or here
    return mine[0] if len(mine) == 1 else None


def _attachments(volume: Obj) -> list[Obj]:
    """The server and device of each attachment of a volume."""
    attrs = _attrs(volume)
    return [
        {'serverId': a.get('server_id'), 'device': a.get('device')}
        for a in attrs.get('attachments_list')
        or attrs.get('attachments')
        or []
        if isinstance(a, dict) and a.get('server_id')
    ]


def _ip_over_ethernet(port: Obj) -> Obj:
    attrs = _attrs(port)
    addresses = [
        {
            'type': 'IPV6' if ':' in str(ip.get('ip_address')) else 'IPV4',
            'addresses': [ip.get('ip_address')],
            'isDynamic': True,
            'subnetId': ip.get('subnet_id'),
        }
        for ip in attrs.get('fixed_ips') or []
    ]
    out: Obj = {'ipAddresses': addresses}
    if attrs.get('mac_address'):
        out['macAddress'] = attrs['mac_address']
    return out


def _cp(instance_id: str, port: Obj) -> Obj:
    return {
        'id': _rid('cp', instance_id, port),
        'cpdId': port['resource_name'],
        'cpProtocolInfo': [
            {
                'layerProtocol': 'IP_OVER_ETHERNET',
                'ipOverEthernet': _ip_over_ethernet(port),
            }
        ],
    }


class Builder:
    """The resource views of one stack tree."""

    def __init__(
        self,
        instance_id: str,
        vim_id: str,
        resources: list[Obj],
        vdu_ids: set[str],
        vnfc_ids: dict[str, list[str]] | None = None,
    ) -> None:
        self.instance_id = instance_id
        self.vnfc_ids = vnfc_ids or {}
        self.vim_id = vim_id
        members = _members(resources)
        self.resources = []
        for r in resources:
            member = members.get(stack_of(r))
            extra: Obj = {}
            if member is not None:
                extra['_member'] = (
                    f'{stack_of(member)}/{member["resource_name"]}'
                )
                extra['_parent'] = member
            self.resources.append({**r, **extra})
        self.servers = [
            r
            for r in self.resources
            if r['resource_type'] == SERVER and r['resource_name'] in vdu_ids
        ]

    def of_type(self, kind: str) -> list[Obj]:
        """The listed resources of one Heat type."""
        return [r for r in self.resources if r['resource_type'] == kind]

    def vnfc_resource_info(self) -> list[Obj]:
        """vnfcResourceInfo, oldest server first."""
        out = []
        for server in sorted(
            self.servers,
            key=lambda s: (s.get('creation_time') or '', s['resource_name']),
        ):
            ports = [
                p
                for p in self.of_type(PORT)
                if _owner(p, self.servers) is server
            ]
            volumes = [
                v
                for v in self.of_type(VOLUME)
                if _owner(v, self.servers) is server
            ]
            out.append(self._vnfc(server, ports, volumes))
        return out

    def _vnfc(self, server: Obj, ports: list[Obj], volumes: list[Obj]) -> Obj:
        parent = server.get('_parent') or {}
        meta = {
            'creation_time': parent.get('creation_time')
            or server.get('creation_time'),
            'stack_id': stack_of(server),
            'resource_name': server['resource_name'],
        }
        vnfc_id = _rid('vnfc', self.instance_id, server)
        if parent:
            meta['parent_stack_id'] = stack_of(parent)
            meta['parent_resource_name'] = parent['resource_name']
            index = individual.index_of(
                server['resource_name'], parent['resource_name']
            )
            if index is not None:
                meta[individual.INDEX] = index
                given = self.vnfc_ids.get(server['resource_name']) or []
                if index < len(given):
                    vnfc_id = given[index]
        entry = {
            'id': vnfc_id,
            'vduId': server['resource_name'],
            'computeResource': _handle(self.vim_id, server),
            'vnfcCpInfo': [_cp(self.instance_id, p) for p in ports],
            'metadata': meta,
        }
        if volumes:
            entry['storageResourceIds'] = [
                _rid('storage', self.instance_id, v) for v in volumes
            ]
        return entry

    def virtual_storage_resource_info(self) -> list[Obj]:
        """virtualStorageResourceInfo of every Cinder volume (metadata:
        the devices Nova attached it as, which a MgmtDriver looks for in
        the VM)."""
        out = []
        for v in self.of_type(VOLUME):
            entry = {
                'id': _rid('storage', self.instance_id, v),
                'virtualStorageDescId': v['resource_name'],
                'storageResource': _handle(self.vim_id, v),
            }
            attached = _attachments(v)
            if attached:
                entry['metadata'] = {'attachments': attached}
            out.append(entry)
        return out

    def vnf_virtual_link_resource_info(self) -> list[Obj]:
        """vnfVirtualLinkResourceInfo of every Neutron network made."""
        out = []
        for net in self.of_type(NET):
            ports = [
                p
                for p in self.of_type(PORT)
                if _attrs(p).get('network_id')
                == net.get('physical_resource_id')
            ]
            out.append(
                {
                    'id': _rid('vl', self.instance_id, net),
                    'vnfVirtualLinkDescId': net['resource_name'],
                    'networkResource': _handle(self.vim_id, net),
                    'vnfLinkPorts': [self._link_port(p) for p in ports],
                }
            )
        return out

    def _link_port(self, port: Obj) -> Obj:
        owner = _owner(port, self.servers)
        out = {
            'id': _rid('port', self.instance_id, port),
            'resourceHandle': _handle(self.vim_id, port),
        }
        if owner is not None:
            out['cpInstanceId'] = _rid('cp', self.instance_id, port)
            out['cpInstanceType'] = 'VNFC_CP'
        return out

    def ext_virtual_link_info(self, ext_vls: list[Obj]) -> list[Obj]:
        """extVirtualLinkInfo of the request's extVirtualLinks, with the
        stack's ports on their networks."""
        out = []
        for vl in ext_vls:
            handle = vl.get('resourceHandle') or {
                'resourceId': vl.get('resourceId'),
                'vimConnectionId': vl.get('vimConnectionId'),
            }
            network = handle.get('resourceId')
            ports = [
                p
                for p in self.of_type(PORT)
                if _attrs(p).get('network_id') == network
                or p['resource_name'] in _cpd_ids(vl)
            ]
            out.append(
                {
                    'id': vl['id'],
                    'resourceHandle': handle,
                    'extLinkPorts': [self._link_port(p) for p in ports],
                }
            )
        return out

    def ext_managed_virtual_link_info(
        self, managed: list[Obj], cps_on: dict[str, set[str]]
    ) -> list[Obj]:
        """extManagedVirtualLinkInfo of the extManagedVirtualLinks
        (``id``, ``vnfVirtualLinkDescId``, ``resourceId``), with the stack's
        ports on them (on the network, or CPs the VNFD puts on the VL:
        ``cps_on``, VL -> cpd ids)."""
        out = []
        for link in managed:
            network = link.get('resourceId')
            cpds = cps_on.get(link.get('vnfVirtualLinkDescId') or '', set())
            ports = [
                p
                for p in self.of_type(PORT)
                if _attrs(p).get('network_id') == network
                or p['resource_name'] in cpds
            ]
            handle = {'resourceId': network, 'vimLevelResourceType': NET}
            if link.get('vimConnectionId'):
                handle['vimConnectionId'] = link['vimConnectionId']
            out.append(
                {
                    'id': link['id'],
                    'vnfVirtualLinkDescId': link.get('vnfVirtualLinkDescId'),
                    'networkResource': handle,
                    'vnfLinkPorts': [self._link_port(p) for p in ports],
                }
            )
        return out


def _cpd_ids(ext_vl: Obj) -> set[str]:
    return {c.get('cpdId') for c in ext_vl.get('extCps') or []} - {None}


def _config_ids(ext_vls: list[Obj], previous: list[Obj]) -> dict[str, str]:
    """cpdId -> the cpConfig id of an external CP: the request's (a map in
    SOL003 v3), else the one the instance reported before."""
    out = {e.get('cpdId'): e.get('cpConfigId') for e in previous}
    for vl in ext_vls:
        for cp in vl.get('extCps') or []:
            config = cp.get('cpConfig')
            if isinstance(config, dict) and config:
                out[cp.get('cpdId')] = next(iter(config))
    return {k: v for k, v in out.items() if k and v}


def ext_cp_info(
    vnfcs: list[Obj],
    ext_links: list[Obj],
    ext_vls: list[Obj],
    previous: list[Obj],
) -> list[Obj]:
    """extCpInfo of the VNFC CPs on external virtual links. Each such
    vnfcCpInfo gets its ``vnfExtCpId`` and its extLinkPort points at the
    external CP (``EXT_CP``), as SOL003 v3 links them."""
    by_cp = {cp['id']: cp for v in vnfcs for cp in v['vnfcCpInfo']}
    configs = _config_ids(ext_vls, previous)
    out = []
    for link in ext_links:
        for port in link['extLinkPorts']:
            cp = by_cp.get(port.get('cpInstanceId'))
            if cp is None:
                continue
            ext_id = str(uuid.uuid5(_NS, f'extcp/{cp["id"]}'))
            cp['vnfExtCpId'] = ext_id
            port['cpInstanceId'] = ext_id
            port['cpInstanceType'] = 'EXT_CP'
            out.append(
                {
                    'id': ext_id,
                    'cpdId': cp['cpdId'],
                    'cpConfigId': configs.get(cp['cpdId'], cp['cpdId']),
                    'cpProtocolInfo': cp['cpProtocolInfo'],
                    'extLinkPortId': port['id'],
                    'associatedVnfcCpId': cp['id'],
                }
            )
    return out


def kept_ext_cp_ids(old: list[Obj], new: list[Obj]) -> None:
    """Give the vnfcCpInfo of ``new`` the vnfExtCpId the same CP had in
    ``old`` (a server Heat replaced keeps its CPs' places)."""
    ids = {
        cp['id']: cp['vnfExtCpId']
        for v in old
        for cp in v.get('vnfcCpInfo') or []
        if cp.get('vnfExtCpId')
    }
    for vnfc in new:
        for cp in vnfc['vnfcCpInfo']:
            if cp['id'] in ids:
                cp['vnfExtCpId'] = ids[cp['id']]
