"""Task resources of a VNF instance: instantiate, terminate, scale,
scale_to_level, change_flavour, heal, operate, change_ext_conn,
change_vnfpkg (SOL003 v3.3.1 clauses 5.4.4 to 5.4.11a).

Each checks what can be checked now (state, flavour, aspect, VNFC ids) so
the client gets a 4xx instead of a failed op, then records the op.
"""

from __future__ import annotations

import webob

from vnfm.common import exceptions
from vnfm.db import api as db
from vnfm.db import rows
from vnfm.objects import request_checks
from vnfm.objects import scale_level
from vnfm.objects import states
from vnfm.objects import vim as vim_obj
from vnfm.objects import vnf_instance
from vnfm.server.controllers import vnf_instances
from vnfm.server.request import ApiRequest

_OP = states.LcmOperation
_NOT_INSTANTIATED = vnf_instances.NOT_INSTANTIATED
_INSTANTIATED = vnf_instances.INSTANTIATED


def _instance_in(req: ApiRequest, state: str) -> rows.InstanceRow:
    row = vnf_instances.get_instance(req)
    if row['instantiation_state'] != state:
        hint = (
            'terminate it first'
            if state == _NOT_INSTANTIATED
            else 'instantiate it first'
        )
        raise exceptions.InstanceStateConflict(
            f'VNF instance {row["id"]} is {row["instantiation_state"]}; '
            f'{hint}.'
        )
    return row


def _vnfd(row: rows.InstanceRow) -> dict:
    """The stored VNFD model of the instance's package ({} if unknown)."""
    try:
        pkg = (
            db.package_get(row['vnf_pkg_id'])
            if row['vnf_pkg_id']
            else db.package_get_by_vnfd_id(row['vnfd_id'])
        )
    except exceptions.NotFound:
        return {}
    return (pkg['vnfd'] if pkg else None) or {}


def instantiate(req: ApiRequest) -> webob.Response:
    """POST instantiate: flavourId (and instantiationLevelId) must be in
    the VNFD."""
    row = _instance_in(req, _NOT_INSTANTIATED)
    body = req.json
    flavour = _flavour_in_vnfd(row, body, 'flavourId')
    return _start(req, row, _OP.INSTANTIATE, flavour)


def _flavour_in_vnfd(row: rows.InstanceRow, body: dict, field: str) -> dict:
    """422 unless ``body[field]`` is a flavour of the instance's VNFD and
    the body's instantiationLevelId a level of it; that flavour (the whole
    VNFD when it declares no flavours)."""
    vnfd = _vnfd(row)
    flavours = vnfd.get('flavours') or {}
    flavour = flavours.get(body[field])
    if flavours and flavour is None:
        raise exceptions.FlavourNotInVnfd(
            f'{field} {body[field]} is not a flavour of VNFD '
            f'{row["vnfd_id"]}; it has {", ".join(sorted(flavours))}.'
        )
    levels = (flavour or {}).get('instantiation_levels') or {}
    level = body.get('instantiationLevelId')
    if level is not None and levels and level not in levels:
        raise exceptions.FlavourNotInVnfd(
            f'instantiationLevelId {level} is not a level of flavour '
            f'{body[field]}; it has {", ".join(sorted(levels))}.'
        )
    return flavour or vnfd


def _start(
    req: ApiRequest,
    row: rows.InstanceRow,
    operation: states.LcmOperation,
    flavour: dict | None = None,
) -> webob.Response:
    """Run the request checks of the instance's drivers (the infra driver
    of its vimType, the MgmtDrivers of ``flavour``, by default the
    instance's), then record the op."""
    body = req.json
    if flavour is None:
        flavour = _instance_flavour(row)
    vim_types = {
        *vnf_instance.vim_types(row['vim_connection_info']),
        *vnf_instance.vim_types(body.get('vimConnectionInfo')),
    }
    request_checks.check(
        request_checks.LcmRequest(operation, body, flavour, row['id']),
        vim_types,
        vnf_instance.enabled_infra(),
    )
    required = (
        _NOT_INSTANTIATED if operation is _OP.INSTANTIATE else _INSTANTIATED
    )
    return vnf_instances.start_op(req, row, operation, required)


def _instance_flavour(row: rows.InstanceRow) -> dict:
    """The VNFD flavour the instance runs with (its VNFD when unknown)."""
    vnfd = _vnfd(row)
    flavour_id = (row['instantiated_vnf_info'] or {}).get('flavourId')
    return (vnfd.get('flavours') or {}).get(flavour_id) or vnfd


def terminate(req: ApiRequest) -> webob.Response:
    """POST terminate: 409 while other instances use a VIM this one
    provides (the cluster of a kubernetes_cluster VNF)."""
    row = _instance_in(req, _INSTANTIATED)
    for vim_id in vim_obj.provided_vim_ids(row['vim_connection_info']):
        users = vim_obj.instances_using(vim_id, row['id'], row['project_id'])
        if users:
            named = ', '.join(
                f'{u["id"]} ({u["vnfInstanceName"] or "no name"})'
                for u in users
            )
            raise exceptions.VimInUse(
                f'VNF instance {row["id"]} provides VIM {vim_id}, which VNF '
                f'instances {named} still use; terminate them first.'
            )
    return _start(req, row, _OP.TERMINATE)


def _level(levels: list | None, aspect_id: str) -> int | None:
    for entry in levels or []:
        if isinstance(entry, dict) and entry.get('aspectId') == aspect_id:
            return entry.get('scaleLevel')
    return None


def scale(req: ApiRequest) -> webob.Response:
    """POST scale: the aspect must exist and the level stay in range."""
    row = _instance_in(req, _INSTANTIATED)
    body = req.json
    info = row['instantiated_vnf_info'] or {}
    current = _level(info.get('scaleStatus'), body['aspectId'])
    maximum = _level(info.get('maxScaleLevels'), body['aspectId'])
    if info.get('scaleStatus') is not None and current is None:
        raise exceptions.BadRequest(
            f'aspectId {body["aspectId"]} is not a scaling aspect of VNF '
            f'instance {row["id"]}.'
        )
    if isinstance(current, int):
        steps = body.get('numberOfSteps', 1)
        new = current + (steps if body['type'] == 'SCALE_OUT' else -steps)
        if new < 0 or (isinstance(maximum, int) and new > maximum):
            raise exceptions.BadRequest(
                f'numberOfSteps {steps} would take aspect '
                f'{body["aspectId"]} from level {current} to {new}, outside '
                f'0..{maximum}.'
            )
    _check_scalable(row, [body['aspectId']])
    return _start(req, row, _OP.SCALE)


def _check_scalable(row: rows.InstanceRow, aspects: list[str]) -> None:
    """422 when the instance's infra driver said it cannot scale one of
    ``aspects`` on its VIM (nothing recorded, nothing run)."""
    why = scale_level.unscalable(row['instantiated_vnf_info'])
    for aspect in aspects:
        if aspect in why:
            raise exceptions.UnprocessableEntity(why[aspect])


def scale_to_level(req: ApiRequest) -> webob.Response:
    """POST scale_to_level: the level or every aspect must exist in the
    instance's flavour and every target level be within its maximum."""
    row = _instance_in(req, _INSTANTIATED)
    info = row['instantiated_vnf_info'] or {}
    flavour = (_vnfd(row).get('flavours') or {}).get(info.get('flavourId'))
    if flavour is not None:
        current = scale_level.current_levels(info)
        try:
            target = scale_level.target_levels(flavour, current, req.json)
        except scale_level.LevelError as e:
            error = (
                exceptions.UnprocessableEntity
                if e.unknown_level
                else exceptions.BadRequest
            )
            raise error(e.detail) from None
        _check_scalable(
            row, [a for a, n in target.items() if n != current.get(a, 0)]
        )
    return _start(req, row, _OP.SCALE_TO_LEVEL, flavour)


def change_flavour(req: ApiRequest) -> webob.Response:
    """POST change_flavour: newFlavourId (and instantiationLevelId) must be
    in the VNFD and differ from the instance's flavour."""
    row = _instance_in(req, _INSTANTIATED)
    body = req.json
    current = (row['instantiated_vnf_info'] or {}).get('flavourId')
    if body['newFlavourId'] == current:
        raise exceptions.Conflict(
            f'VNF instance {row["id"]} already has flavour {current}; '
            'nothing to do (scale_to_level changes its level).'
        )
    flavour = _flavour_in_vnfd(row, body, 'newFlavourId')
    return _start(req, row, _OP.CHANGE_FLAVOUR, flavour)


def heal(req: ApiRequest) -> webob.Response:
    """POST heal: every vnfcInstanceId must be a VNFC of the instance."""
    row = _instance_in(req, _INSTANTIATED)
    body = req.json
    all_param = (body.get('additionalParams') or {}).get('all', False)
    if not isinstance(all_param, bool):
        raise exceptions.BadRequest('additionalParams/all: must be a boolean.')
    known = {
        v.get('id')
        for v in (row['instantiated_vnf_info'] or {}).get('vnfcInfo') or []
        if isinstance(v, dict)
    }
    for vnfc_id in body.get('vnfcInstanceId') or []:
        if vnfc_id not in known:
            raise exceptions.BadRequest(
                f'vnfcInstanceId: VNFC {vnfc_id} does not exist in VNF '
                f'instance {row["id"]}.'
            )
    return _start(req, row, _OP.HEAL)


def operate(req: ApiRequest) -> webob.Response:
    """POST operate: 409 when the VNF is already in the state asked for."""
    row = _instance_in(req, _INSTANTIATED)
    body = req.json
    current = (row['instantiated_vnf_info'] or {}).get('vnfState')
    if current == body['changeStateTo']:
        raise exceptions.Conflict(
            f'VNF instance {row["id"]} is already {current}; nothing to do.'
        )
    if body['changeStateTo'] == 'STARTED' and (
        'stopType' in body or 'gracefulStopTimeout' in body
    ):
        raise exceptions.BadRequest(
            'stopType and gracefulStopTimeout apply only to changeStateTo '
            'STOPPED.'
        )
    if body.get('stopType') == 'FORCEFUL' and 'gracefulStopTimeout' in body:
        raise exceptions.BadRequest(
            'gracefulStopTimeout applies only to stopType GRACEFUL.'
        )
    return _start(req, row, _OP.OPERATE)


def change_ext_conn(req: ApiRequest) -> webob.Response:
    """POST change_ext_conn."""
    row = _instance_in(req, _INSTANTIATED)
    return _start(req, row, _OP.CHANGE_EXT_CONN)


def change_vnfpkg(req: ApiRequest) -> webob.Response:
    """POST change_vnfpkg: the target vnfdId must be an enabled package."""
    row = _instance_in(req, _INSTANTIATED)
    vnf_instances.enabled_package(req, req.json['vnfdId'])
    return _start(req, row, _OP.CHANGE_VNFPKG)
