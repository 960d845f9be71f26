"""/vnfpkgm/v1/vnf_packages: create, list, show, modify, delete
(SOL005 v2.6.1 clauses 9.4.2, 9.4.3)."""

from __future__ import annotations

from typing import Any

import webob

from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import rows
from vnfm.objects import package_notifications
from vnfm.objects import states
from vnfm.objects import vnf_package
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.request import ApiRequest

ONBOARDED = states.OnboardingState.ONBOARDED.value


def get_package(req: ApiRequest) -> rows.PackageRow:
    """The package of the request path, if the caller may see it."""
    row = db.package_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return row


def create(req: ApiRequest) -> webob.Response:
    """POST: a new package in CREATED state."""
    values = {
        'onboarding_state': states.OnboardingState.CREATED.value,
        'operational_state': states.OperationalState.DISABLED.value,
        'usage_state': states.UsageState.NOT_IN_USE.value,
        'user_defined_data': req.json.get('userDefinedData'),
        'project_id': req.ctx.project_id,
    }
    row = db.package_create(values)
    body = vnf_package.to_sol(row, req.base_url)
    return http.json_response(
        body,
        201,
        headers={
            'Location': vnf_package.package_href(req.base_url, row['id'])
        },
    )


def index(req: ApiRequest) -> webob.Response:
    """GET: the packages, SOL013 filtered and selected."""
    return common.list_response(
        req,
        lambda cols, after: db.package_scan(req.owner_filter(), cols, after),
        vnf_package.to_sol,
        vnf_package.SOL013,
        CONF.api.vnf_package_page_size,
        vnf_package.LIST_COLUMNS,
    )


def show(req: ApiRequest) -> webob.Response:
    """GET one package."""
    return http.json_response(
        vnf_package.to_sol(get_package(req), req.base_url)
    )


def modify(req: ApiRequest) -> webob.Response:
    """PATCH: operationalState and/or userDefinedData (merge patch);
    answers the VnfPkgInfoModifications applied."""
    row = get_package(req)
    body = req.json
    if 'operationalState' not in body and 'userDefinedData' not in body:
        raise exceptions.BadRequest(
            'Nothing to modify: give operationalState and/or userDefinedData.'
        )
    values: dict = {}
    expected: dict[str, Any] = {'updated_at': row['updated_at']}
    if 'operationalState' in body:
        wanted = body['operationalState']
        if row['onboarding_state'] != ONBOARDED:
            raise exceptions.PackageStateConflict(
                f'VNF package {row["id"]} is {row["onboarding_state"]}; '
                f'its operationalState can change once it is ONBOARDED.'
            )
        if row['operational_state'] == wanted:
            raise exceptions.PackageStateConflict(
                f'VNF package {row["id"]} is already {wanted}.'
            )
        values['operational_state'] = wanted
        expected['operational_state'] = row['operational_state']
    if 'userDefinedData' in body:
        values['user_defined_data'] = common.merge_patch(
            row['user_defined_data'] or {}, body['userDefinedData']
        )
    notes = None
    if 'operational_state' in values:
        notes = package_notifications.for_change(
            {**row, **values}, package_notifications.OP_STATE_CHANGE
        )
    db.package_update(row['id'], values, expected, notifications=notes)
    return http.json_response(
        {
            k: body[k]
            for k in ('operationalState', 'userDefinedData')
            if k in body
        }
    )


def delete(req: ApiRequest) -> webob.Response:
    """DELETE: a package not onboarded, or DISABLED and NOT_IN_USE."""
    row = get_package(req)
    state = row['onboarding_state']
    if state in (
        states.OnboardingState.UPLOADING.value,
        states.OnboardingState.PROCESSING.value,
    ):
        raise exceptions.PackageStateConflict(
            f'VNF package {row["id"]} is {state}; wait until onboarding '
            f'finishes before deleting it.'
        )
    expected: dict = {'onboarding_state': state}
    notes = None
    if state == ONBOARDED:
        _check_deletable(row)
        expected.update(operational_state='DISABLED', usage_state='NOT_IN_USE')
        notes = package_notifications.for_change(
            row, package_notifications.PKG_DELETE
        )
    db.package_delete(row['id'], expected, notifications=notes)
    return http.empty_response(204)


def _check_deletable(row: rows.PackageRow) -> None:
    if row['operational_state'] != 'DISABLED':
        raise exceptions.PackageStateConflict(
            f'VNF package {row["id"]} is ENABLED; disable it '
            f'(operationalState DISABLED) before deleting it.'
        )
    used = db.instance_count_by_package(row['id'])
    if row['usage_state'] != 'NOT_IN_USE' or used:
        raise exceptions.PackageInUse(
            f'VNF package {row["id"]} is used by {used} VNF instance(s); '
            f'delete them before deleting the package.'
        )
