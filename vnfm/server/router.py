"""The route table: every (path, method) of the API and its Action."""

from __future__ import annotations

import re
from collections.abc import Callable

import routes
import webob

from vnfm.common import exceptions
from vnfm.server import http
from vnfm.server import policies as p
from vnfm.server.controllers import alarms
from vnfm.server.controllers import alertmanager
from vnfm.server.controllers import lcm
from vnfm.server.controllers import op_occs
from vnfm.server.controllers import package_content
from vnfm.server.controllers import pm_jobs
from vnfm.server.controllers import subscriptions
from vnfm.server.controllers import thresholds
from vnfm.server.controllers import versions
from vnfm.server.controllers import vims
from vnfm.server.controllers import vnf_instances
from vnfm.server.controllers import vnf_packages
from vnfm.server.controllers.v1 import routes as v1_routes
from vnfm.server.request import ALERTMANAGER
from vnfm.server.request import JSON_BODY
from vnfm.server.request import VERSIONS
from vnfm.server.request import VNFFM_V1
from vnfm.server.request import VNFLCM_V2
from vnfm.server.request import VNFPKGM_V1
from vnfm.server.request import VNFPM_V2
from vnfm.server.request import ZIP_BODY
from vnfm.server.request import Action
from vnfm.server.request import ApiRequest
from vnfm.server.schemas import fm as fm_schema
from vnfm.server.schemas import pm as pm_schema
from vnfm.server.schemas import subscriptions as subsc_schema
from vnfm.server.schemas import vnf_instances as inst_schema
from vnfm.server.schemas import vnf_packages as pkg_schema

# Resource ids are UUIDs; anything unlike an id is a 404 without a query.
_ID_RE = re.compile(r'^[A-Za-z0-9._~-]{1,255}$')
_JSON = (http.JSON,)
_PATCH = (http.MERGE_PATCH_JSON, http.JSON)
Handler = Callable[[ApiRequest], webob.Response]
_ZIP_IN = (http.ZIP, http.OCTET_STREAM, 'application/x-zip-compressed')


def _api(prefix: str, api: str) -> Callable[..., Action]:
    """The Action maker of a JSON API (policy ``prefix``, family
    ``api``)."""

    def action(
        handler: Handler,
        rule: str,
        schema: dict | None = None,
        consumes: tuple[str, ...] = _JSON,
    ) -> Action:
        return Action(
            handler,
            prefix + rule,
            api,
            body=JSON_BODY if schema else 'none',
            schema=schema,
            consumes=consumes,
        )

    return action


_lcm = _api(p.LCM, VNFLCM_V2)
_fm = _api(p.FM, VNFFM_V1)
_pm = _api(p.PM, VNFPM_V2)


def _pkg(
    handler: Handler,
    rule: str,
    schema: dict | None = None,
    *,
    body: str | None = None,
    consumes: tuple[str, ...] = _JSON,
    body_required: bool = Action.body_required,
    produces: tuple[str, ...] | None = Action.produces,
) -> Action:
    return Action(
        handler,
        p.PKG + rule,
        VNFPKGM_V1,
        body=body or (JSON_BODY if schema else 'none'),
        schema=schema,
        body_required=body_required,
        consumes=consumes,
        produces=produces,
    )


_INST = '/vnflcm/v2/vnf_instances/{id}'
_OCC = '/vnflcm/v2/vnf_lcm_op_occs/{id}'
_PKG = '/vnfpkgm/v1/vnf_packages/{id}'
_JOB = '/vnfpm/v2/pm_jobs/{id}'

TABLE: list[tuple[str, dict[str, Action]]] = [
    (
        '/vnflcm/api_versions',
        {'GET': Action(versions.vnflcm, p.LCM + 'api_versions', VERSIONS)},
    ),
    (
        '/vnflcm/v2/api_versions',
        {'GET': Action(versions.vnflcm_v2, p.LCM + 'api_versions', VERSIONS)},
    ),
    (
        '/vnfpkgm/api_versions',
        {'GET': Action(versions.vnfpkgm, p.PKG + 'api_versions', VERSIONS)},
    ),
    (
        '/vnfpkgm/v1/api_versions',
        {'GET': Action(versions.vnfpkgm_v1, p.PKG + 'api_versions', VERSIONS)},
    ),
    (
        '/vnflcm/v2/vnf_instances',
        {
            'POST': _lcm(vnf_instances.create, 'create', inst_schema.CREATE),
            'GET': _lcm(vnf_instances.index, 'index'),
        },
    ),
    (
        _INST,
        {
            'GET': _lcm(vnf_instances.show, 'show'),
            'DELETE': _lcm(vnf_instances.delete, 'delete'),
            'PATCH': _lcm(
                vnf_instances.modify, 'update', inst_schema.MODIFY, _PATCH
            ),
        },
    ),
    (
        _INST + '/instantiate',
        {
            'POST': _lcm(
                lcm.instantiate, 'instantiate', inst_schema.INSTANTIATE
            )
        },
    ),
    (
        _INST + '/terminate',
        {'POST': _lcm(lcm.terminate, 'terminate', inst_schema.TERMINATE)},
    ),
    (_INST + '/scale', {'POST': _lcm(lcm.scale, 'scale', inst_schema.SCALE)}),
    (
        _INST + '/scale_to_level',
        {
            'POST': _lcm(
                lcm.scale_to_level,
                'scale_to_level',
                inst_schema.SCALE_TO_LEVEL,
            )
        },
    ),
    (
        _INST + '/change_flavour',
        {
            'POST': _lcm(
                lcm.change_flavour,
                'change_flavour',
                inst_schema.CHANGE_FLAVOUR,
            )
        },
    ),
    (_INST + '/heal', {'POST': _lcm(lcm.heal, 'heal', inst_schema.HEAL)}),
    (
        _INST + '/operate',
        {'POST': _lcm(lcm.operate, 'operate', inst_schema.OPERATE)},
    ),
    (
        _INST + '/change_ext_conn',
        {
            'POST': _lcm(
                lcm.change_ext_conn,
                'change_ext_conn',
                inst_schema.CHANGE_EXT_CONN,
            )
        },
    ),
    (
        _INST + '/change_vnfpkg',
        {
            'POST': _lcm(
                lcm.change_vnfpkg, 'change_vnfpkg', inst_schema.CHANGE_VNFPKG
            )
        },
    ),
    (
        '/vnflcm/v2/vnf_lcm_op_occs',
        {'GET': _lcm(op_occs.index, 'lcm_op_occ_list')},
    ),
    (_OCC, {'GET': _lcm(op_occs.show, 'lcm_op_occ_show')}),
    (_OCC + '/retry', {'POST': _lcm(op_occs.retry, 'lcm_op_occ_retry')}),
    (
        _OCC + '/rollback',
        {'POST': _lcm(op_occs.rollback, 'lcm_op_occ_rollback')},
    ),
    (_OCC + '/fail', {'POST': _lcm(op_occs.fail, 'lcm_op_occ_fail')}),
    (
        _OCC + '/cancel',
        {
            'POST': _lcm(
                op_occs.cancel, 'lcm_op_occ_cancel', inst_schema.CANCEL
            )
        },
    ),
    *subscriptions.routes(subscriptions.VNFLCM_V2, _lcm, subsc_schema.CREATE),
    *subscriptions.routes(
        subscriptions.VNFPKGM_V1, _pkg, subsc_schema.PKGM_CREATE
    ),
    (
        '/vnfpkgm/v1/vnf_packages',
        {
            'POST': _pkg(
                vnf_packages.create,
                'create',
                pkg_schema.CREATE,
                body_required=False,
            ),
            'GET': _pkg(vnf_packages.index, 'index'),
        },
    ),
    (
        _PKG,
        {
            'GET': _pkg(vnf_packages.show, 'show'),
            'PATCH': _pkg(
                vnf_packages.modify,
                'patch',
                pkg_schema.MODIFY,
                consumes=_PATCH,
            ),
            'DELETE': _pkg(vnf_packages.delete, 'delete'),
        },
    ),
    (
        _PKG + '/package_content',
        {
            'PUT': _pkg(
                package_content.upload,
                'upload_package_content',
                body=ZIP_BODY,
                consumes=_ZIP_IN,
            ),
            'GET': _pkg(
                package_content.download,
                'fetch_package_content',
                produces=(http.ZIP,),
            ),
        },
    ),
    (
        _PKG + '/package_content/upload_from_uri',
        {
            'POST': _pkg(
                package_content.upload_from_uri,
                'upload_from_uri',
                pkg_schema.UPLOAD_FROM_URI,
            )
        },
    ),
    (
        _PKG + '/vnfd',
        {
            'GET': _pkg(
                package_content.vnfd, 'get_vnf_package_vnfd', produces=None
            )
        },
    ),
    # The client sends whatever Accept its last request used: ignore it.
    (
        _PKG + '/artifacts/{path:.+}',
        {
            'GET': _pkg(
                package_content.artifact, 'fetch_artifact', produces=None
            )
        },
    ),
    (
        '/vnffm/api_versions',
        {'GET': Action(versions.vnffm, p.FM + 'api_versions', VERSIONS)},
    ),
    (
        '/vnffm/v1/api_versions',
        {'GET': Action(versions.vnffm_v1, p.FM + 'api_versions', VERSIONS)},
    ),
    (
        '/vnfpm/api_versions',
        {'GET': Action(versions.vnfpm, p.PM + 'api_versions', VERSIONS)},
    ),
    (
        '/vnfpm/v2/api_versions',
        {'GET': Action(versions.vnfpm_v2, p.PM + 'api_versions', VERSIONS)},
    ),
    ('/vnffm/v1/alarms', {'GET': _fm(alarms.index, 'index')}),
    (
        '/vnffm/v1/alarms/{id}',
        {
            'GET': _fm(alarms.show, 'show'),
            'PATCH': _fm(
                alarms.modify, 'update', fm_schema.ALARM_MODIFY, _PATCH
            ),
        },
    ),
    *subscriptions.routes(
        subscriptions.VNFFM_V1, _fm, fm_schema.SUBSCRIPTION_CREATE
    ),
    (
        '/vnfpm/v2/pm_jobs',
        {
            'POST': _pm(pm_jobs.create, 'create', pm_schema.PM_JOB_CREATE),
            'GET': _pm(pm_jobs.index, 'index'),
        },
    ),
    (
        _JOB,
        {
            'GET': _pm(pm_jobs.show, 'show'),
            'PATCH': _pm(
                pm_jobs.modify, 'update', pm_schema.PM_JOB_MODIFY, _PATCH
            ),
            'DELETE': _pm(pm_jobs.delete, 'delete'),
        },
    ),
    (
        _JOB + '/reports/{report_id}',
        {'GET': _pm(pm_jobs.report, 'report_show')},
    ),
    (
        '/vnfpm/v2/thresholds',
        {
            'POST': _pm(
                thresholds.create,
                'create_threshold',
                pm_schema.THRESHOLD_CREATE,
            ),
            'GET': _pm(thresholds.index, 'index_threshold'),
        },
    ),
    (
        '/vnfpm/v2/thresholds/{id}',
        {
            'GET': _pm(thresholds.show, 'show_threshold'),
            'PATCH': _pm(
                thresholds.modify,
                'update_threshold',
                pm_schema.THRESHOLD_MODIFY,
                _PATCH,
            ),
            'DELETE': _pm(thresholds.delete, 'delete_threshold'),
        },
    ),
    (
        '/alert',
        {
            'POST': Action(
                alertmanager.receive,
                p.ALERT + 'receive',
                ALERTMANAGER,
                body=JSON_BODY,
                schema=alertmanager.SCHEMA,
                consumes=_JSON,
            )
        },
    ),
    *vims.ROUTES,
    *v1_routes.ROUTES,
]


class Router:
    """Maps (method, path) to an Action; 404 / 405 ProblemDetails."""

    def __init__(self, table: list[tuple[str, dict[str, Action]]]) -> None:
        self._mapper = routes.Mapper()
        self._methods: list[dict[str, Action]] = []
        for path, methods in table:
            self._mapper.connect(path, route_index=len(self._methods))
            self._methods.append(methods)
        # Compiled now rather than by the first request (~50 ms).
        self._mapper.create_regs()

    def match(self, method: str, path: str) -> tuple[Action, dict]:
        """The Action and path arguments of a request."""
        found = self._mapper.match(path) if len(path) < 4096 else None
        if found is None:
            raise exceptions.NotFound(f'No resource at {path[:200]}.')
        methods = self._methods[int(found.pop('route_index'))]
        action = methods.get(method)
        if action is None:
            allow = ', '.join(sorted(methods))
            error = exceptions.MethodNotAllowed(
                f'{method[:20]} is not allowed on {path[:200]}; allowed: '
                f'{allow}.'
            )
            error.headers = {'Allow': allow}
            raise error
        if 'id' in found and not _ID_RE.match(found['id']):
            raise exceptions.NotFound(
                f'No resource with id {found["id"][:100]!r}.'
            )
        return action, found


def build() -> Router:
    """The router of the whole API."""
    return Router(TABLE)
