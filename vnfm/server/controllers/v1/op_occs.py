"""/vnflcm/v1/vnf_lcm_op_occs (SOL003 v2.6.1 clauses 5.4.12 to 5.4.17):
the v2 controllers, occurrences in the v1 view."""

from __future__ import annotations

import webob

from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.objects import v1_views
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.controllers import op_occs
from vnfm.server.request import ApiRequest


def index(req: ApiRequest) -> webob.Response:
    """GET: the op occurrences in the v1 view, SOL013 filtered."""
    return common.list_response(
        req,
        lambda cols, after: db.op_scan(req.owner_filter(), cols, after),
        v1_views.op_to_sol,
        v1_views.OP_SOL013,
        CONF.api.lcm_op_occ_page_size,
        v1_views.OP_LIST_COLUMNS,
    )


def _view(req: ApiRequest) -> webob.Response:
    row = db.op_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return http.json_response(v1_views.op_to_sol(row, req.base_url))


def show(req: ApiRequest) -> webob.Response:
    """GET one op occurrence in the v1 view."""
    return _view(req)


def fail(req: ApiRequest) -> webob.Response:
    """POST fail: FAILED_TEMP → FAILED; the occurrence in the v1 view."""
    op_occs.fail(req)
    return _view(req)
