"""The cluster VMs a scale in is about to remove, known before the infra
driver removes them so that their Nodes are drained first.

The choice is the infra driver's (``scaling.scale_in_victims``): the VNFCs
``additionalParams.vnfcInstanceIds`` names, else the newest of each VDU the
aspect scales, as many as the aspect's deltas take away.
"""

from __future__ import annotations

from vnfm.drivers import scaling
from vnfm.drivers.mgmt import base
from vnfm.drivers.mgmt.kubernetes_cluster import nodes

#: additionalParams of a ScaleVnfRequest naming the VNFCs to remove.
REMOVE = 'vnfcInstanceIds'


def leaving(
    ctx: base.HookContext, cluster: list[nodes.VmNode]
) -> list[nodes.VmNode]:
    """The VMs of ``cluster`` the SCALE_IN request of ``ctx`` removes."""
    info = ctx.vnf_instance.get('instantiatedVnfInfo') or {}
    flavour = scaling.flavour_of(ctx.vnfd, info.get('flavourId'))
    levels = scaling.scaled_levels(
        flavour, scaling.levels_of(info), ctx.request
    )
    aspect = (flavour.get('scaling_aspects') or {})[ctx.request['aspectId']]
    counts = {
        vdu_id: scaling.counts_at(flavour, vdu_id, levels)
        for vdu_id in aspect.get('vdu_deltas') or {}
    }
    named = (ctx.request.get('additionalParams') or {}).get(REMOVE) or []
    removed = {
        e['id'] for e in scaling.scale_in_victims(info, counts, list(named))
    }
    return [n for n in cluster if n.vnfc_id in removed]
