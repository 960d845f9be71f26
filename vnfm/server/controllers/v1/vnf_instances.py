"""/vnflcm/v1/vnf_instances and its task resources (SOL003 v2.6.1 clauses
5.4.2 to 5.4.10): the v2 controllers with the request in the v2 form and
the instance in the v1 view."""

from __future__ import annotations

import webob

from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.objects import v1_views
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.controllers import lcm
from vnfm.server.controllers import vnf_instances
from vnfm.server.request import ApiRequest


def create(req: ApiRequest) -> webob.Response:
    """POST: a NOT_INSTANTIATED instance, shown in the v1 view."""
    req.json = v1_views.request_to_v2(req.json)
    row = vnf_instances.new_instance(req)
    return http.json_response(
        v1_views.instance_to_sol(row, req.base_url),
        201,
        headers={'Location': v1_views.instance_href(req.base_url, row['id'])},
    )


def index(req: ApiRequest) -> webob.Response:
    """GET: the instances in the v1 view, SOL013 filtered and selected."""
    return common.list_response(
        req,
        lambda cols, after: db.instance_scan(req.owner_filter(), cols, after),
        v1_views.instance_to_sol,
        v1_views.INSTANCE_SOL013,
        CONF.api.vnf_instance_page_size,
        v1_views.INSTANCE_LIST_COLUMNS,
    )


def show(req: ApiRequest) -> webob.Response:
    """GET one instance in the v1 view."""
    return http.json_response(
        v1_views.instance_to_sol(vnf_instances.get_instance(req), req.base_url)
    )


def _vnfd_id_of_package(req: ApiRequest, package_id: str) -> str:
    try:
        pkg = db.package_get(package_id)
        req.authorize(pkg['project_id'])
    except exceptions.NotFound:
        raise exceptions.UnprocessableEntity(
            f'vnfPkgId {package_id}: no such VNF package.'
        ) from None
    vnfd_id = pkg['vnfd_id']
    if pkg['onboarding_state'] != 'ONBOARDED' or vnfd_id is None:
        raise exceptions.PackageNotOnboarded(
            f'vnfPkgId {package_id}: the VNF package is '
            f'{pkg["onboarding_state"]}, not ONBOARDED.'
        )
    return vnfd_id


def modify(req: ApiRequest) -> webob.Response:
    """PATCH: Modify VNF information; vnfPkgId names the package whose
    vnfdId the v2 path moves the instance to."""
    body = v1_views.request_to_v2(req.json)
    if body.get('vnfPkgId') is not None:
        vnfd_id = _vnfd_id_of_package(req, body['vnfPkgId'])
        if body.get('vnfdId', vnfd_id) != vnfd_id:
            raise exceptions.UnprocessableEntity(
                f'vnfdId {body["vnfdId"]} is not the vnfdId of vnfPkgId '
                f'{body["vnfPkgId"]} ({vnfd_id}).'
            )
        body['vnfdId'] = vnfd_id
    req.json = body
    return vnf_instances.modify(req)


def instantiate(req: ApiRequest) -> webob.Response:
    """POST instantiate."""
    req.json = v1_views.request_to_v2(req.json)
    return lcm.instantiate(req)


def change_flavour(req: ApiRequest) -> webob.Response:
    """POST change_flavour."""
    req.json = v1_views.request_to_v2(req.json)
    return lcm.change_flavour(req)


def change_ext_conn(req: ApiRequest) -> webob.Response:
    """POST change_ext_conn."""
    req.json = v1_views.request_to_v2(req.json)
    return lcm.change_ext_conn(req)


def heal(req: ApiRequest) -> webob.Response:
    """POST heal. A v1 vnfcInstanceId names a vnfcResourceInfo (v2.6.1 has
    no vnfcInfo); the v2 path takes the vnfcInfo of it."""
    wanted = req.json.get('vnfcInstanceId')
    if wanted:
        info = vnf_instances.get_instance(req)['instantiated_vnf_info'] or {}
        by_resource = {
            v.get('vnfcResourceInfoId'): v.get('id')
            for v in info.get('vnfcInfo') or []
            if isinstance(v, dict)
        }
        req.json = dict(
            req.json,
            vnfcInstanceId=[
                by_resource.get(vnfc_id, vnfc_id) for vnfc_id in wanted
            ],
        )
    return lcm.heal(req)
