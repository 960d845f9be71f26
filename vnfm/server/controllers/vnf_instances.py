"""/vnflcm/v2/vnf_instances: create, list, show, delete, modify
(SOL003 v3.3.1 clauses 5.4.2, 5.4.3)."""

from __future__ import annotations

import contextlib

import webob

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import rows
from vnfm.objects import alarm
from vnfm.objects import lcm_params
from vnfm.objects import notifications
from vnfm.objects import op_occ
from vnfm.objects import states
from vnfm.objects import vnf_instance
from vnfm.server import http
from vnfm.server.controllers import capabilities
from vnfm.server.controllers import common
from vnfm.server.controllers import vim_refs
from vnfm.server.request import ApiRequest

NOT_INSTANTIATED = states.InstantiationState.NOT_INSTANTIATED.value
INSTANTIATED = states.InstantiationState.INSTANTIATED.value
IN_USE = states.UsageState.IN_USE.value
NOT_IN_USE = states.UsageState.NOT_IN_USE.value


def get_instance(req: ApiRequest) -> rows.InstanceRow:
    """The instance of the request path, if the caller may see it."""
    row = db.instance_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return row


def enabled_package(req: ApiRequest, vnfd_id: str) -> rows.PackageRow:
    """The ONBOARDED and ENABLED package of ``vnfd_id`` that the caller
    may use; 422 otherwise (as Tacker answers)."""
    pkg = db.package_get_by_vnfd_id(vnfd_id)
    if (
        pkg is None
        or pkg['onboarding_state'] != 'ONBOARDED'
        # Another project's package is one the caller does not have.
        or not req.allows(pkg['project_id'])
    ):
        raise exceptions.PackageNotOnboarded(
            f'No onboarded VNF package has vnfdId {vnfd_id}.'
        )
    if pkg['operational_state'] != 'ENABLED':
        raise exceptions.PackageDisabled(
            f'VNF package {pkg["id"]} of vnfdId {vnfd_id} is '
            f'{pkg["operational_state"]}; enable it first.'
        )
    return pkg


def _mark_in_use(pkg: rows.PackageRow) -> None:
    if pkg['usage_state'] != IN_USE:
        db.package_update(
            pkg['id'],
            {'usage_state': IN_USE},
            {'onboarding_state': 'ONBOARDED', 'operational_state': 'ENABLED'},
        )


def create(req: ApiRequest) -> webob.Response:
    """POST: a NOT_INSTANTIATED instance of an enabled package."""
    row = new_instance(req)
    return http.json_response(
        vnf_instance.to_sol(row, req.base_url),
        201,
        headers={
            'Location': vnf_instance.instance_href(req.base_url, row['id'])
        },
    )


def new_instance(req: ApiRequest) -> rows.InstanceRow:
    """Record the instance ``req.json`` (a v2 CreateVnfRequest) asks for;
    return its row."""
    body = req.json
    capabilities.check_vim_types(body, req.lcm_api_version)
    vim_refs.check(body, req.ctx.project_id)
    pkg = enabled_package(req, body['vnfdId'])
    _mark_in_use(pkg)
    values = {
        'id': db.new_id(),
        'vnf_instance_name': body.get('vnfInstanceName'),
        'vnf_instance_description': body.get('vnfInstanceDescription'),
        'vnfd_id': pkg['vnfd_id'],
        'vnf_provider': pkg['vnf_provider'],
        'vnf_product_name': pkg['vnf_product_name'],
        'vnf_software_version': pkg['vnf_software_version'],
        'vnfd_version': pkg['vnfd_version'],
        'vnf_pkg_id': pkg['id'],
        'instantiation_state': NOT_INSTANTIATED,
        'metadata': body.get('metadata'),
        'vim_connection_info': crypto.seal_vim_connection_info(
            body.get('vimConnectionInfo')
        ),
        'project_id': req.ctx.project_id,
        'api_version': req.lcm_api_version,
    }
    return db.instance_create(
        values,
        notifications=notifications.for_instance(
            notifications.CREATION, values
        ),
    )


def index(req: ApiRequest) -> webob.Response:
    """GET: the instances, SOL013 filtered and selected."""
    return common.list_response(
        req,
        lambda cols, after: db.instance_scan(req.owner_filter(), cols, after),
        vnf_instance.to_sol,
        vnf_instance.SOL013,
        CONF.api.vnf_instance_page_size,
        vnf_instance.LIST_COLUMNS,
    )


def show(req: ApiRequest) -> webob.Response:
    """GET one instance."""
    return http.json_response(
        vnf_instance.to_sol(get_instance(req), req.base_url)
    )


def delete(req: ApiRequest) -> webob.Response:
    """DELETE a NOT_INSTANTIATED instance without unfinished operation."""
    row = get_instance(req)
    db.instance_delete(
        row['id'],
        notifications=notifications.for_instance(notifications.DELETION, row)
        + alarm.for_deleted_instance(row),
    )
    package_id = row['vnf_pkg_id']
    if package_id and not db.instance_count_by_package(package_id):
        # Already NOT_IN_USE, or another request changed it: fine.
        with contextlib.suppress(
            exceptions.ConcurrentUpdate, exceptions.NotFound
        ):
            db.package_update(
                package_id,
                {'usage_state': NOT_IN_USE},
                {'usage_state': IN_USE},
            )
    return http.empty_response(204)


def start_op(
    req: ApiRequest,
    row: rows.InstanceRow,
    operation: states.LcmOperation,
    required_state: str | None = None,
) -> webob.Response:
    """Record a STARTING op occurrence (one unfinished op per instance,
    enforced by the database), then ring the conductors; 202 + Location.
    An operation or vimType no enabled infra driver supports is a 4xx."""
    capabilities.check_vim_types(req.json or {}, req.lcm_api_version)
    vim_refs.check(
        req.json or {}, row['project_id'], row.get('vim_connection_info')
    )
    capabilities.require_operation(row, operation, req.json)
    lcm_params.check((req.json or {}).get('additionalParams'))
    op_id = db.new_id()
    values = {
        'id': op_id,
        'vnf_instance_id': row['id'],
        'operation': operation.value,
        'operation_state': states.OpState.STARTING.value,
        'operation_params': sealed_params(req.json),
        'is_automatic_invocation': False,
        'is_cancel_pending': False,
        'api_version': req.lcm_api_version,
        'project_id': row['project_id'],
    }
    db.op_create(
        values,
        instance_expected=(
            {'instantiation_state': required_state} if required_state else None
        ),
        notifications=notifications.for_op(values, instance=row),
    )
    common.cast(req, 'start_lcm_op', op_id)
    return http.empty_response(
        202, {'Location': op_occ.op_href(req.base_url, op_id)}
    )


def sealed_params(body: dict) -> dict:
    """The request as stored: vimConnectionInfo secrets and the secrets of
    additionalParams (passwords, keys, ...) encrypted."""
    sealed = dict(body)
    if isinstance(body.get('vimConnectionInfo'), dict):
        sealed['vimConnectionInfo'] = crypto.seal_vim_connection_info(
            body['vimConnectionInfo']
        )
    if isinstance(body.get('additionalParams'), dict):
        sealed['additionalParams'] = crypto.seal_params(
            body['additionalParams']
        )
    return sealed


def modify(req: ApiRequest) -> webob.Response:
    """PATCH: Modify VNF information runs as a MODIFY_INFO op."""
    row = get_instance(req)
    body = req.json
    if 'vnfdId' in body and body['vnfdId'] != row['vnfd_id']:
        enabled_package(req, body['vnfdId'])
    if body.get('vnfcInfoModifications'):
        known = {
            v.get('id')
            for v in (row['instantiated_vnf_info'] or {}).get('vnfcInfo') or []
        }
        for mod in body['vnfcInfoModifications']:
            if mod['id'] not in known:
                raise exceptions.BadRequest(
                    f'vnfcInfoModifications: VNFC {mod["id"]} does not '
                    f'exist in VNF instance {row["id"]}.'
                )
    return start_op(req, row, states.LcmOperation.MODIFY_INFO)
