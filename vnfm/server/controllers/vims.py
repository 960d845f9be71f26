"""/v1.0/vims: the VIM registry of Tacker's NFVO API v1.0 (``openstack vim
register|list|show|set|delete``).

Credentials are stored encrypted as a whole and shown masked. An
OpenStack VIM is registered only once a conductor has authenticated with
its credentials at its Keystone (the API server never contacts a VIM
itself): it is then REACHABLE; a refusal is a 400 naming the cause. A
Kubernetes VIM is ACTIVE once its request is valid (the conductor finds
out whether it is reachable when it uses it).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import oslo_messaging
import webob

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.db import api as db
from vnfm.db import registry
from vnfm.objects import vim as vim_obj
from vnfm.server import http
from vnfm.server import policies
from vnfm.server import request as api_request
from vnfm.server.request import ApiRequest
from vnfm.server.schemas import vims as schema

# auth_cred keys that choose how to authenticate; a new choice replaces
# the old one on update.
_METHOD_KEYS = frozenset(
    {
        'bearer_token',
        'username',
        'password',
        'client_cert',
        'client_key',
        'oidc_token_url',
        'client_id',
        'client_secret',
    }
)
_FILTERS = ('id', 'name', 'type', 'status')
LOG = logging.getLogger(__name__)


def _get(req: ApiRequest) -> dict:
    row = registry.vim_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return row


def _respond(row: dict, status: int = 200) -> webob.Response:
    return http.json_response({'vim': vim_obj.to_tacker(row)}, status)


# -- the default VIM ----------------------------------------------------------


def _other_defaults(row: dict) -> list[dict]:
    rows = registry.vim_list(
        {
            'is_default': True,
            'type': row['type'],
            'project_key': row['project_key'],
        }
    )
    return [r for r in rows if r['id'] != row['id']]


def _default_taken(vim_type: str, others: list[dict]) -> exceptions.Conflict:
    return exceptions.Conflict(
        f'VIM {others[0]["id"]} is already the default {vim_type} VIM of '
        f'this project; unset it first (openstack vim set --is-default '
        f'False {others[0]["name"]}).'
    )


# -- actions -----------------------------------------------------------------


def _project_of(req: ApiRequest, body: dict) -> str | None:
    tenant = body.get('tenant_id')
    if (
        tenant
        and tenant != req.ctx.project_id
        and not policies.check(
            policies.VIM_FOR_PROJECT, {'project_id': tenant}, req.ctx
        )
    ):
        raise exceptions.Forbidden(
            f'Policy does not allow {policies.VIM_FOR_PROJECT}: only an '
            f'administrator may register a VIM for another project.'
        )
    return tenant or req.ctx.project_id


def _check(req: ApiRequest, vim: dict) -> str:
    """The status of a VIM about to be stored: an OpenStack VIM's
    credentials are tried by a conductor first (BadRequest naming why they
    do not work)."""
    if vim['type'] != vim_obj.OPENSTACK:
        return vim_obj.ACTIVE
    try:
        failure = req.rpc.check_vim(req.ctx, vim)
    except (oslo_messaging.MessagingException, OSError) as e:
        LOG.warning('No conductor checked a VIM: %s', type(e).__name__)
        raise exceptions.ServiceUnavailable(
            'No vnfm-conductor answered, so the VIM credentials could not '
            'be checked; nothing was registered. Try again later.'
        ) from None
    if failure:
        raise exceptions.BadRequest(f'The VIM was not registered: {failure}')
    return vim_obj.REACHABLE


def create(req: ApiRequest) -> webob.Response:
    """POST: register a VIM; 201 with its masked view."""
    body = dict(req.json['vim'])
    body.setdefault('type', vim_obj.OPENSTACK)
    schema.validate_vim(body)
    project_id = _project_of(req, body)
    is_default = bool(body.get('is_default'))
    probe = {'id': None, 'type': body['type'], 'project_key': project_id or ''}
    if is_default and (others := _other_defaults(probe)):
        raise _default_taken(body['type'], others)
    vim = {
        'type': body['type'],
        'auth_url': body['auth_url'],
        'vim_project': body.get('vim_project') or {},
        'auth_cred': crypto.encrypt(body['auth_cred']),
        'extra': body.get('extra') or {},
    }
    status = _check(req, vim)
    row = registry.vim_create(
        {
            'name': body['name'],
            'description': body.get('description'),
            'project_id': project_id,
            'is_default': is_default,
            'status': status,
            **vim,
        }
    )
    if is_default and (others := _other_defaults(row)):
        # Lost a race with another new default: undo, as a CAS would.
        registry.vim_delete(row['id'])
        raise _default_taken(row['type'], others)
    return _respond(row, 201)


def _select(view: dict, fields: list[str]) -> dict:
    return {k: v for k, v in view.items() if k in fields} if fields else view


def index(req: ApiRequest) -> webob.Response:
    """GET: the VIMs the caller may see, filtered by id/name/type/status
    and reduced to ``fields`` as Tacker does."""
    try:
        params = req.GET
        filters = {k: params.getall(k) for k in _FILTERS if k in params}
        fields = params.getall('fields')
    except UnicodeDecodeError:
        raise exceptions.BadRequest(
            'The query string is not valid UTF-8.'
        ) from None
    rows = [
        r
        for r in registry.vim_list(req.owner_filter())
        if all(r[k] in v for k, v in filters.items())
    ]
    return http.json_response(
        {'vims': [_select(vim_obj.to_tacker(r), fields) for r in rows]}
    )


def show(req: ApiRequest) -> webob.Response:
    """GET one VIM."""
    return _respond(_get(req))


def _merge_cred(old: dict, new: dict) -> dict:
    """auth_cred after an update: a new way to authenticate replaces the old
    one, ``***`` (the masked view sent back) keeps a stored value."""
    replaces = bool(new.keys() & _METHOD_KEYS)
    merged = {
        k: v for k, v in old.items() if not (replaces and k in _METHOD_KEYS)
    }
    for key, value in new.items():
        if value == vim_obj.TACKER_MASK:
            if key in old:
                merged[key] = old[key]
        else:
            merged[key] = value
    return merged


def _updated(row: dict, body: dict) -> dict:
    """The complete VIM after applying an update body to ``row``."""
    if body.get('type', row['type']) != row['type']:
        raise exceptions.BadRequest(
            f'The type of VIM {row["id"]} ({row["type"]}) cannot change.'
        )
    vim = {
        'type': row['type'],
        'auth_url': row['auth_url'],
        'vim_project': row['vim_project'] or {},
        'extra': row['extra'] or {},
        'auth_cred': vim_obj.credentials(row),
    }
    for key in ('name', 'description', 'auth_url', 'is_default', 'extra'):
        if key in body:
            vim[key] = body[key]
    if 'vim_project' in body:
        vim['vim_project'] = {**vim['vim_project'], **body['vim_project']}
    if 'auth_cred' in body:
        vim['auth_cred'] = _merge_cred(vim['auth_cred'], body['auth_cred'])
    return vim


def _check_moved(row: dict, vim: dict, body: dict) -> None:
    """400 when an update sends the stored secrets to another place (URL,
    CA, certificate verification, token URL) without giving them again:
    whoever sees only ``***`` must not learn them there."""
    if vim_obj.destination(vim) == vim_obj.destination(_updated(row, {})):
        return
    given = body.get('auth_cred') or {}
    stale = sorted(
        k
        for k in vim['auth_cred']
        if k not in vim_obj.PUBLIC_CRED_KEYS
        and given.get(k) in (None, vim_obj.TACKER_MASK)
    )
    if stale:
        raise exceptions.BadRequest(
            f'VIM {row["id"]}: this change sends its credentials to another '
            f'endpoint or trusts it differently, so give them again: '
            f'auth_cred {", ".join(stale)} for the new endpoint. Nothing was '
            'changed.'
        )


def update(req: ApiRequest) -> webob.Response:
    """PUT: change name, description, credentials, project, extra or the
    default flag (a compare-and-set: a concurrent change is a 409). Moving
    a VIM takes its secrets again."""
    row = _get(req)
    body = req.json['vim']
    vim = _updated(row, body)
    _check_moved(row, vim, body)
    schema.validate_vim(vim)
    values = {
        k: vim[k]
        for k in (
            'name',
            'description',
            'auth_url',
            'is_default',
            'vim_project',
            'extra',
        )
        if k in vim
    }
    if 'auth_cred' in body:
        values['auth_cred'] = crypto.encrypt(vim['auth_cred'])
    if body.keys() & {'auth_cred', 'auth_url', 'vim_project', 'extra'}:
        sealed = values.get('auth_cred') or row['auth_cred']
        values['status'] = _check(req, {**vim, 'auth_cred': sealed})
    becomes_default = bool(body.get('is_default')) and not row['is_default']
    if becomes_default and (others := _other_defaults(row)):
        raise _default_taken(row['type'], others)
    new = registry.vim_update(
        row['id'], values, expected={'updated_at': row['updated_at']}
    )
    if becomes_default and (others := _other_defaults(new)):
        registry.vim_update(
            row['id'], {'is_default': False}, expected={'is_default': True}
        )
        raise _default_taken(row['type'], others)
    return _respond(new)


def _users(vim: dict) -> list[str]:
    """Ids of the VNF instances of the VIM's project (no other project's
    can use it) whose vimConnectionInfo names it."""
    vim_id, users = vim['id'], []
    for inst in db.instance_list({'project_id': vim['project_id']}):
        infos = inst.get('vim_connection_info') or {}
        entries = infos.values() if isinstance(infos, dict) else infos
        if any(
            isinstance(e, dict) and e.get('vimId') == vim_id for e in entries
        ):
            users.append(inst['id'])
    return users


def delete(req: ApiRequest) -> webob.Response:
    """DELETE a VIM no VNF instance uses; 204."""
    row = _get(req)
    users = _users(row)
    if users:
        raise exceptions.VimInUse(
            f'VIM {row["id"]} is used by VNF instance(s) '
            f'{", ".join(users[:5])}; terminate and delete them first.'
        )
    registry.vim_delete(row['id'])
    return http.empty_response(204)


# -- routes ------------------------------------------------------------------

# The Tacker NFVO API v1.0 family: no Version header.
API = 'nfvo_v1'


def _action(
    handler: Callable[[ApiRequest], webob.Response],
    rule: str,
    body_schema: dict | None = None,
) -> api_request.Action:
    return api_request.Action(
        handler,
        rule,
        API,
        schema=body_schema,
        body=api_request.JSON_BODY if body_schema else api_request.NO_BODY,
        consumes=(http.JSON,),
    )


_COLLECTION = {
    'POST': _action(create, 'create_vim', schema.CREATE),
    'GET': _action(index, 'get_vim'),
}
_ITEM = {
    'GET': _action(show, 'get_vim'),
    'PUT': _action(update, 'update_vim', schema.UPDATE),
    'DELETE': _action(delete, 'delete_vim'),
}
# tackerclient appends ".json" to every path; the suffixed forms come first
# so that "{id}" does not swallow the suffix.
ROUTES = [
    ('/v1.0/vims.json', _COLLECTION),
    ('/v1.0/vims', _COLLECTION),
    ('/v1.0/vims/{id}.json', _ITEM),
    ('/v1.0/vims/{id}', _ITEM),
]
