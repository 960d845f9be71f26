"""The invariant every integration test checks after each op it waits
for: a COMPLETED op left an instance whose record is what its VIM has.

* VNFCs per VDU (``computeResource.resourceId``) against the servers of
  the instance's Heat stack (on a registered local cloud) or the live Pods
  of the instance (on a registered local Kubernetes, found by the
  instance and VDU labels vnfm puts on every Pod template);
* ``scaleStatus`` against the VNFC counts: each VDU of a scaling aspect
  has the count the VNFD's initial delta and step deltas give at its
  aspects' levels (for every VIM, the noop one included).

``Api.wait_op`` calls ``check`` when the op it waited for is COMPLETED,
so every test that runs ops through the shared helpers gets it. The
clouds are registered by the integration conftest's autouse
``truth_clouds`` fixture for each test that uses them.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any, Protocol

from heatclient import client as heat_client
from heatclient import exc as heat_exc

from vnfm.clients import kubernetes as k8s
from vnfm.csar import CsarLimits
from vnfm.csar import read_csar
from vnfm.drivers import scaling
from vnfm_testbed.k8s.cluster import LocalCluster
from vnfm_testbed.openstack.cloud import LocalCloud

Obj = dict[str, Any]
# VIM entry -> VDU id -> resource ids the VIM has (None: not this VIM's).
Lister = Callable[[Obj, Obj], dict[str, list[str]] | None]
_LISTERS: dict[int, Lister] = {}
#: The fixtures whose clouds are compared (``register``).
CLOUD_FIXTURES = ('local_k8s', 'local_cloud')
_VNFDS: dict[str, Obj] = {}
_SERVER = 'OS::Nova::Server'


class Http(Protocol):
    """What ``check`` needs of the suite's Api helper."""

    def instance(self, inst_id: str) -> dict: ...

    def request(self, method: str, path: str, **kw: Any) -> Any: ...


def register(resource: object) -> None:
    """Compare instances on ``resource`` (a fixture's LocalCluster or
    LocalCloud) with it from now on (once each)."""
    if id(resource) in _LISTERS:
        return
    if isinstance(resource, LocalCluster):
        _LISTERS[id(resource)] = _pods_of(resource)
    elif isinstance(resource, LocalCloud):
        _LISTERS[id(resource)] = _servers_of(resource)


def reported(info: Obj) -> dict[str, list[str]]:
    """VDU id -> resource ids of the VNFCs an instantiatedVnfInfo reports."""
    out: dict[str, list[str]] = {}
    for entry in info.get('vnfcResourceInfo') or []:
        resource_id = (entry.get('computeResource') or {}).get('resourceId')
        out.setdefault(entry['vduId'], []).append(str(resource_id or ''))
    return out


def check(api: Http, op: dict) -> None:
    """AssertionError naming the difference between the instance the
    COMPLETED ``op`` left and its VIM."""
    instance = api.instance(op['vnfInstanceId'])
    info = instance.get('instantiatedVnfInfo')
    if instance['instantiationState'] != 'INSTANTIATED' or not info:
        return
    if info.get('vnfState') == 'STOPPED':
        return
    mine = reported(info)
    flavour = (_vnfd(api, instance['vnfdId']).get('flavours') or {}).get(
        info.get('flavourId') or ''
    ) or {}
    _check_levels(instance, flavour, info, mine)
    vdus = set(flavour.get('vdus') or mine)
    for entry in _vim_entries(api, instance):
        for lister in list(_LISTERS.values()):
            listed = lister(instance, entry)
            if listed is None:
                continue
            theirs = {v: ids for v, ids in listed.items() if v in vdus}
            for vdu in sorted(set(mine) | set(theirs)):
                assert sorted(mine.get(vdu, [])) == sorted(
                    theirs.get(vdu, [])
                ), (
                    f'{op["operation"]} {op["id"]} COMPLETED, but VDU {vdu} '
                    f'of instance {instance["id"]} reports '
                    f'{sorted(mine.get(vdu, []))} and the VIM has '
                    f'{sorted(theirs.get(vdu, []))}'
                )


def _vim_entries(api: Http, instance: Obj) -> list[Obj]:
    """The instance's VimConnectionInfo entries, the endpoint of a
    registered VIM filled in from the VIM registry."""
    entries = instance.get('vimConnectionInfo') or {}
    listed = entries if isinstance(entries, list) else list(entries.values())
    out = []
    for entry in listed:
        interface = entry.get('interfaceInfo') or {}
        if not interface.get('endpoint') and entry.get('vimId'):
            found = api.request(
                'GET', f'/v1.0/vims/{entry["vimId"]}', version=None
            )
            if found.status_code == 200:
                url = found.json()['vim'].get('auth_url')
                entry = dict(
                    entry, interfaceInfo={**interface, 'endpoint': url}
                )
        out.append(entry)
    return out


def _check_levels(
    instance: Obj, flavour: Obj, info: Obj, mine: dict[str, list[str]]
) -> None:
    if not flavour:
        return
    levels = scaling.levels_of(info)
    fixed = _unexplained(flavour)
    for aspect in (flavour.get('scaling_aspects') or {}).values():
        for vdu, deltas in (aspect.get('vdu_deltas') or {}).items():
            if not deltas or vdu in fixed or vdu not in flavour['vdus']:
                continue
            wanted = scaling.counts_at(flavour, vdu, levels)
            assert len(mine.get(vdu, [])) == wanted, (
                f'instance {instance["id"]} has scaleStatus {levels}, which '
                f'gives VDU {vdu} {wanted} VNFC(s), but it reports '
                f'{len(mine.get(vdu, []))}'
            )


def _unexplained(flavour: Obj) -> set[str]:
    """VDUs an instantiation level gives a count its scale levels do not
    (their count cannot be told from scaleStatus alone)."""
    out = set()
    for level in (flavour.get('instantiation_levels') or {}).values():
        levels = {
            a: int((i or {}).get('scale_level', 0))
            for a, i in (level.get('scale_info') or {}).items()
        }
        for vdu, count in (level.get('vdu_levels') or {}).items():
            if vdu not in flavour['vdus']:
                continue
            if scaling.counts_at(flavour, vdu, levels) != int(count):
                out.add(vdu)
    return out


def _vnfd(api: Http, vnfd_id: str) -> Obj:
    """The VNFD (Vnfd.to_dict()) of an onboarded package, read once."""
    if vnfd_id not in _VNFDS:
        found = api.request(
            'GET',
            '/vnfpkgm/v1/vnf_packages',
            version=None,
            params={'filter': f'(eq,vnfdId,{vnfd_id})'},
        ).json()
        _VNFDS[vnfd_id] = {}
        if found:
            content = api.request(
                'GET',
                f'/vnfpkgm/v1/vnf_packages/{found[0]["id"]}/package_content',
                version=None,
            )
            if content.status_code == 200:
                csar = read_csar(
                    io.BytesIO(content.content).read(), CsarLimits()
                )
                _VNFDS[vnfd_id] = csar.vnfd.to_dict()
    return _VNFDS[vnfd_id]


def _pods_of(cluster: LocalCluster) -> Lister:
    vim = {
        'interfaceInfo': {
            'endpoint': cluster.endpoint,
            'ssl_ca_cert': cluster.ca_cert_path.read_text(),
        },
        'accessInfo': {'bearer_token': cluster.admin_token},
    }

    def pods(instance: Obj, entry: Obj) -> dict[str, list[str]] | None:
        endpoint = (entry.get('interfaceInfo') or {}).get('endpoint')
        if not endpoint or endpoint.rstrip('/') != cluster.endpoint:
            return None
        selector = f'{k8s.INSTANCE_LABEL}={instance["id"]}'
        with k8s.KubeClient(vim) as kube:
            listed = kube.list('v1', 'Pod', None, selector)[0]
        out: dict[str, list[str]] = {}
        for pod in listed:
            meta = pod['metadata']
            phase = (pod.get('status') or {}).get('phase')
            if meta.get('deletionTimestamp') or phase in {
                'Succeeded',
                'Failed',
            }:
                continue
            vdu = (meta.get('labels') or {}).get(k8s.VDU_LABEL)
            if vdu:
                out.setdefault(vdu, []).append(meta['name'])
        return out

    return pods


def _servers_of(cloud: LocalCloud) -> Lister:
    def servers(instance: Obj, entry: Obj) -> dict[str, list[str]] | None:
        if entry.get('vimType') not in {
            'ETSINFV.OPENSTACK_KEYSTONE.V_3',
            'OPENSTACK',  # v1
        }:
            return None
        meta = (instance.get('instantiatedVnfInfo') or {}).get(
            'metadata'
        ) or {}
        if not meta.get('stack_id'):
            return None
        heat = heat_client.Client('1', session=cloud.session('demo'))
        try:
            resources = heat.resources.list(
                f'{meta["stack_name"]}/{meta["stack_id"]}', nested_depth=5
            )
        except heat_exc.HTTPNotFound:
            return None  # another project's stack: not checked
        out: dict[str, list[str]] = {}
        for r in resources:
            if r.resource_type == _SERVER:
                out.setdefault(r.resource_name, []).append(
                    r.physical_resource_id or ''
                )
        return out

    return servers
