"""/vnflcm/v2/subscriptions (SOL003 v3.3.1 clauses 5.4.18, 5.4.19).

Before a subscription is created its callbackUri is tested (clause
5.4.20.3.2: GET with the subscription's authentication must answer 204),
unless ``[notifications] test_callback_uri`` is off. vnfm-api never talks
to outside systems itself: a conductor runs the test (an RPC call), from
where the deliveries will leave. A failed test is a 422 and nothing is
created.
"""

from __future__ import annotations

import logging

import oslo_messaging
import webob

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import registry
from vnfm.objects import sol013
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.request import ApiRequest

LOG = logging.getLogger(__name__)

# LccnSubscription (5.5.2.16): authentication is write-only.
SOL013 = sol013.Resource(
    attributes=frozenset(
        {'id', 'filter', 'callbackUri', 'verbosity', '_links'}
    ),
    mandatory=frozenset({'id', 'callbackUri', 'verbosity', '_links'}),
    default_excluded=(),
)


def href(base_url: str, subscription_id: str) -> str:
    """Absolute URL of a subscription."""
    return f'{base_url}/vnflcm/v2/subscriptions/{subscription_id}'


def to_sol(row: dict, base_url: str) -> dict:
    """The LccnSubscription of a row (never its authentication)."""
    out = {'id': row['id']}
    if row.get('filter') is not None:
        out['filter'] = row['filter']
    out['callbackUri'] = row['callback_uri']
    out['verbosity'] = row.get('verbosity') or 'FULL'
    out['_links'] = {'self': {'href': href(base_url, row['id'])}}
    return out


def _get(req: ApiRequest) -> dict:
    row = registry.subscription_get(req.path_args['id'])
    req.authorize(row['project_id'])
    return row


def create(req: ApiRequest) -> webob.Response:
    """POST: a new subscription; 303 to an identical existing one unless
    duplicates are allowed."""
    body = req.json
    verbosity = body.get('verbosity', 'FULL')
    for row in _duplicate_candidates(req):
        if (
            row['api_version'] == req.lcm_api_version
            and row['callback_uri'] == body['callbackUri']
            and row['filter'] == body.get('filter')
            and (row['verbosity'] or 'FULL') == verbosity
        ):
            return http.empty_response(
                303, {'Location': href(req.base_url, row['id'])}
            )
    auth = body.get('authentication')
    if auth:
        _check_usable(auth)
    sealed = crypto.encrypt(auth) if auth else None
    if CONF.notifications.test_callback_uri:
        _test_callback(req, body['callbackUri'], sealed)
    row = registry.subscription_create(
        {
            'callback_uri': body['callbackUri'],
            'filter': body.get('filter'),
            'verbosity': verbosity,
            'authentication': sealed,
            'project_id': req.ctx.project_id,
            'api_version': req.lcm_api_version,
        }
    )
    return http.json_response(
        to_sol(row, req.base_url),
        201,
        headers={'Location': href(req.base_url, row['id'])},
    )


def _duplicate_candidates(req: ApiRequest) -> list[dict]:
    """The subscriptions a new one may duplicate (none when duplicates
    are allowed: SOL003 5.4.18.3.1 leaves the choice to the VNFM)."""
    if CONF.api.allow_duplicate_subscriptions:
        return []
    return registry.subscription_list(req.owner_filter())


def _check_usable(auth: dict) -> None:
    """Refuse authentication vnfm cannot apply (SOL013 8.3.4: authType
    lists what the consumer accepts; one usable entry is enough)."""
    problems = [_unusable(auth_type, auth) for auth_type in auth['authType']]
    if all(problems):
        raise exceptions.UnprocessableEntity(
            'authentication cannot be used: '
            + '; '.join(p for p in problems if p)
            + '.'
        )


def _unusable(auth_type: str, auth: dict) -> str | None:
    """Why vnfm cannot authenticate with ``auth_type``; None if it can."""
    if auth_type == 'TLS_CERT':
        return (
            None
            if CONF.notifications.client_cert_file
            else (
                'TLS_CERT needs a TLS client certificate and this vnfm has '
                'none '
                '(its operator can set [notifications] client_cert_file); use '
                'BASIC or OAUTH2_CLIENT_CREDENTIALS'
            )
        )
    params = {
        'BASIC': 'paramsBasic',
        'OAUTH2_CLIENT_CREDENTIALS': 'paramsOauth2ClientCredentials',
    }
    name = params[auth_type]
    return None if auth.get(name) else f'{auth_type} needs {name}'


# What a conductor without RPC API 1.1 answers the call with (mid-upgrade).
_OLDER_CONDUCTOR = frozenset({'UnsupportedVersion', 'NoSuchMethod'})


def _test_callback(req: ApiRequest, uri: str, sealed: str | None) -> None:
    """Have a conductor test ``uri``; raise unless it answered 204."""
    try:
        failure = req.rpc.test_notification_endpoint(
            req.ctx, uri, sealed, req.lcm_api_version
        )
    except oslo_messaging.RemoteError as e:
        if e.exc_type not in _OLDER_CONDUCTOR:
            raise  # a bug in the conductor: a 500, logged
        LOG.warning(
            'The conductors cannot test a callbackUri (%s): they '
            'are older than vnfm-api; upgrade them',
            e.exc_type,
        )
        raise exceptions.ServiceUnavailable(
            'The vnfm-conductors are older than this vnfm-api and cannot '
            'test the callbackUri; nothing was created. Try again once '
            'they are upgraded.'
        ) from None
    except (oslo_messaging.MessagingException, OSError) as e:
        LOG.warning('No conductor tested a callbackUri: %s', type(e).__name__)
        raise exceptions.ServiceUnavailable(
            'No vnfm-conductor answered, so the callbackUri could not be '
            'tested; nothing was created. Try again later.'
        ) from None
    if failure:
        raise exceptions.UnprocessableEntity(
            f'The test of the notification endpoint failed: {failure} '
            'The subscription was not created; make the callbackUri answer '
            'GET (with the authentication given) with 204 No Content, then '
            'subscribe again.'
        )


def index(req: ApiRequest) -> webob.Response:
    """GET: the subscriptions, SOL013 filtered."""
    return common.list_response(
        req,
        lambda _cols, after: registry.subscription_scan(
            req.owner_filter(), after
        ),
        to_sol,
        SOL013,
        CONF.api.subscription_page_size,
    )


def show(req: ApiRequest) -> webob.Response:
    """GET one subscription."""
    return http.json_response(to_sol(_get(req), req.base_url))


def delete(req: ApiRequest) -> webob.Response:
    """DELETE a subscription."""
    registry.subscription_delete(_get(req)['id'])
    return http.empty_response(204)
