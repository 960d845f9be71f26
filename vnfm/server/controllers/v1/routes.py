"""The /vnflcm/v1 routes (included in the API's route table)."""

from __future__ import annotations

from vnfm.server import http
from vnfm.server import policies
from vnfm.server.controllers import lcm
from vnfm.server.controllers import op_occs as v2_op_occs
from vnfm.server.controllers import subscriptions
from vnfm.server.controllers import versions
from vnfm.server.controllers import vnf_instances as v2_instances
from vnfm.server.controllers.v1 import op_occs
from vnfm.server.controllers.v1 import vnf_instances
from vnfm.server.controllers.v1.api import action
from vnfm.server.request import VERSIONS
from vnfm.server.request import Action
from vnfm.server.schemas import subscriptions as subsc_schema
from vnfm.server.schemas import v1_vnf_instances as schema
from vnfm.server.schemas import vnf_instances as v2_schema

_PATCH = (http.MERGE_PATCH_JSON, http.JSON)
_INST = '/vnflcm/v1/vnf_instances/{id}'
_OCC = '/vnflcm/v1/vnf_lcm_op_occs/{id}'

ROUTES = [
    (
        '/vnflcm/v1/api_versions',
        {
            'GET': Action(
                versions.vnflcm_v1, policies.LCM_V1 + 'api_versions', VERSIONS
            )
        },
    ),
    (
        '/vnflcm/v1/vnf_instances',
        {
            'POST': action(vnf_instances.create, 'create', schema.CREATE),
            'GET': action(vnf_instances.index, 'index'),
        },
    ),
    (
        _INST,
        {
            'GET': action(vnf_instances.show, 'show'),
            'DELETE': action(v2_instances.delete, 'delete'),
            'PATCH': action(
                vnf_instances.modify, 'update_vnf', schema.MODIFY, _PATCH
            ),
        },
    ),
    (
        _INST + '/instantiate',
        {
            'POST': action(
                vnf_instances.instantiate, 'instantiate', schema.INSTANTIATE
            )
        },
    ),
    (
        _INST + '/terminate',
        {'POST': action(lcm.terminate, 'terminate', schema.TERMINATE)},
    ),
    (_INST + '/scale', {'POST': action(lcm.scale, 'scale', schema.SCALE)}),
    (
        _INST + '/scale_to_level',
        {
            'POST': action(
                lcm.scale_to_level, 'scale_to_level', schema.SCALE_TO_LEVEL
            )
        },
    ),
    (
        _INST + '/change_flavour',
        {
            'POST': action(
                vnf_instances.change_flavour,
                'change_flavour',
                schema.CHANGE_FLAVOUR,
            )
        },
    ),
    (
        _INST + '/heal',
        {'POST': action(vnf_instances.heal, 'heal', schema.HEAL)},
    ),
    (
        _INST + '/operate',
        {'POST': action(lcm.operate, 'operate', schema.OPERATE)},
    ),
    (
        _INST + '/change_ext_conn',
        {
            'POST': action(
                vnf_instances.change_ext_conn,
                'change_ext_conn',
                schema.CHANGE_EXT_CONN,
            )
        },
    ),
    (
        '/vnflcm/v1/vnf_lcm_op_occs',
        {'GET': action(op_occs.index, 'list_lcm_op_occs')},
    ),
    (_OCC, {'GET': action(op_occs.show, 'show_lcm_op_occs')}),
    (_OCC + '/retry', {'POST': action(v2_op_occs.retry, 'retry')}),
    (_OCC + '/rollback', {'POST': action(v2_op_occs.rollback, 'rollback')}),
    (_OCC + '/fail', {'POST': action(op_occs.fail, 'fail')}),
    (
        _OCC + '/cancel',
        {'POST': action(v2_op_occs.cancel, 'cancel', v2_schema.CANCEL)},
    ),
    *subscriptions.routes(
        subscriptions.VNFLCM_V1, action, subsc_schema.CREATE
    ),
]
