"""Change VNF flavour: a stack update to the target flavour's base HOT
(``BaseHOT/<newFlavourId>/``) with the ``nfv`` parameter computed for it
at the request's instantiationLevelId, and back on rollback.

The stack's ``nfv`` from before the change is kept in ``work``, so the
rollback gives the stack back exactly the parameters it had (what the
instance's instantiate added through ``additionalParams.nfv`` included).
Heat creates the resources only the target flavour has, deletes those only
the source flavour had, and updates the others in place where it can.
"""

from __future__ import annotations

import dataclasses

from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.infra.openstack import common
from vnfm.drivers.infra.openstack import extconn
from vnfm.drivers.infra.openstack import nfv
from vnfm.drivers.infra.openstack import stackupdate
from vnfm.drivers.infra.openstack import standard
from vnfm.drivers.infra.openstack import userdata


def change_flavour(ctx: base.InfraContext) -> base.InfraResult:
    """Update the stack to ``newFlavourId`` at its instantiation level."""
    target = dataclasses.replace(ctx, flavour_id=ctx.request['newFlavourId'])
    flavour = scaling.flavour_of(ctx.vnfd, target.flavour_id)
    levels = scaling.initial_levels(
        flavour, ctx.request.get('instantiationLevelId')
    )
    links = nfv.links_after(common.info_of(ctx), ctx.request)
    result = stackupdate.update(
        target,
        'change_flavour',
        levels,
        save_nfv=standard.SAVED_NFV,
        ext_vls=links,
    )
    extconn.record(result, links)
    info = result.instantiated_vnf_info or {}
    # Later operations compute their input with the user data named here.
    params = ctx.request.get('additionalParams') or {}
    for key in (userdata.USER_DATA, userdata.USER_DATA_CLASS):
        if key in params:
            info.setdefault('metadata', {})[key] = params[key]
    return result


def rollback_change_flavour(ctx: base.InfraContext) -> base.InfraResult:
    """Update the stack back to the source flavour's HOT and parameters."""
    levels = common.levels_of(common.info_of(ctx))
    return stackupdate.update(
        ctx, 'change_flavour_rollback', levels, restore=True
    )
