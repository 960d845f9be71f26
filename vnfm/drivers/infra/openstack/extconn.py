"""Change external VNF connectivity (SOL003 5.4.11): a stack update that
puts the CPs the request's extVirtualLinks name on the links' networks.

A Neutron port cannot change network, so Heat replaces each moved CP's
``OS::Neutron::Port`` (and, the port being a server's ``networks`` entry,
detaches the old port from the server and attaches the new one; servers
are updated in place, not rebuilt). The stack's ``nfv`` from before is kept
in ``work``; rollback updates the stack back to it.
"""

from __future__ import annotations

from typing import Any

from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import common
from vnfm.drivers.infra.openstack import nfv
from vnfm.drivers.infra.openstack import stackupdate
from vnfm.drivers.infra.openstack import standard

Obj = dict[str, Any]


def change_ext_conn(ctx: base.InfraContext) -> base.InfraResult:
    """Move the request's CPs to their new networks."""
    info = common.info_of(ctx)
    links = nfv.links_after(info, ctx.request)
    result = stackupdate.update(
        ctx,
        'change_ext_conn',
        common.levels_of(info),
        save_nfv=standard.SAVED_NFV,
        ext_vls=links,
    )
    record(result, links)
    return result


def rollback_change_ext_conn(ctx: base.InfraContext) -> base.InfraResult:
    """Update the stack back to the networks it had."""
    levels = common.levels_of(common.info_of(ctx))
    return stackupdate.update(
        ctx, 'change_ext_conn_rollback', levels, restore=True
    )


def record(result: base.InfraResult, links: list[Obj]) -> None:
    """Which CPs sit on which external link, for later operations."""
    meta = (result.instantiated_vnf_info or {}).setdefault('metadata', {})
    meta['ext_cpds'] = {
        vl['id']: [c.get('cpdId') for c in vl['extCps']] for vl in links
    }
