"""Subscriptions of /vnflcm/v2, /vnflcm/v1 (SOL003 v3.3.1 and v2.6.1
clauses 5.4.18, 5.4.19) and /vnfpkgm/v1 (SOL005 v2.6.1 clauses 9.4.8,
9.4.9): one code path, an :class:`Interface` per API.

A subscription belongs to the interface (vnflcm or vnfpkgm) and API
version it was made through: it gets that interface's notifications in
that version's shapes. /vnflcm/v2 serves the LCM subscriptions of both
versions, /vnflcm/v1 the v1 ones, /vnfpkgm/v1 the package ones; any other
is a 404 there.

Before a subscription is created its callbackUri is tested (SOL003
5.4.20.3.2, SOL005 9.4.10.3.2: GET with the subscription's authentication
must answer 204), unless ``[notifications] test_callback_uri`` is off.
vnfm-api never talks to outside systems itself: a conductor runs the test
(an RPC call), from where the deliveries will leave. A failed test is a 422
and nothing is created.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import Any

import oslo_messaging
import webob

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import registry
from vnfm.objects import sol013
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.request import Action
from vnfm.server.request import ApiRequest

LOG = logging.getLogger(__name__)

_SOL013 = {
    # LccnSubscription (SOL003 v3.3.1 5.5.2.16).
    True: sol013.Resource(
        attributes=frozenset(
            {'id', 'filter', 'callbackUri', 'verbosity', '_links'}
        ),
        mandatory=frozenset({'id', 'callbackUri', 'verbosity', '_links'}),
        default_excluded=(),
    ),
    # LccnSubscription v2.6.1, PkgmSubscription (SOL005 9.5.2.4) and
    # FmSubscription (SOL003 v3.3.1 7.5.2.3).
    False: sol013.Resource(
        attributes=frozenset({'id', 'filter', 'callbackUri', '_links'}),
        mandatory=frozenset({'id', 'callbackUri', '_links'}),
        default_excluded=(),
    ),
}


@dataclasses.dataclass(frozen=True)
class Interface:
    """The subscriptions one API serves and how it shows them
    (authentication is write-only)."""

    #: URI prefix of the API, e.g. /vnflcm/v2.
    prefix: str
    #: The interface of its subscriptions (registry.VNFLCM, VNFPKGM).
    interface: str
    #: The api_version its new subscriptions get, then the others it
    #: serves too.
    api_versions: tuple[str, ...]
    #: Whether the representation has ``verbosity`` (LCM v2 only).
    verbosity: bool

    def href(self, base_url: str, subscription_id: str) -> str:
        """Absolute URL of a subscription."""
        return f'{base_url}{self.prefix}/subscriptions/{subscription_id}'

    def to_sol(self, row: dict, base_url: str) -> dict:
        """The subscription of a row (never its authentication)."""
        out: dict[str, Any] = {'id': row['id']}
        if row.get('filter') is not None:
            out['filter'] = row['filter']
        out['callbackUri'] = row['callback_uri']
        if self.verbosity:
            out['verbosity'] = row.get('verbosity') or 'FULL'
        out['_links'] = {'self': {'href': self.href(base_url, row['id'])}}
        return out

    @property
    def sol013(self) -> sol013.Resource:
        """The attributes of its representation, for SOL013 lists."""
        return _SOL013[self.verbosity]

    def where(self, req: ApiRequest) -> dict:
        """The subscriptions it serves that the caller may list."""
        return dict(
            req.owner_filter() or {},
            interface=self.interface,
            api_version=list(self.api_versions),
        )

    def get(self, req: ApiRequest) -> dict:
        """The subscription of the request path, if it is one of this
        API's and the caller may see it."""
        row = registry.subscription_get(req.path_args['id'])
        # Another project's subscription is "not found" before anything
        # else is said about it.
        req.authorize(row['project_id'])
        if (
            row['interface'] != self.interface
            or row['api_version'] not in self.api_versions
        ):
            raise exceptions.NotFound(
                f'Subscription {row["id"]} is not a subscription of '
                f'{self.prefix}.'
            )
        return row

    # -- the handlers of its routes ------------------------------------------

    def create(self, req: ApiRequest) -> webob.Response:
        """POST: a new subscription; 303 to an identical existing one
        unless duplicates are allowed."""
        body = req.json
        # LCM subscriptions are FULL unless said otherwise (v1 has no
        # verbosity: always FULL); package notifications have none.
        lcm = self.interface == registry.VNFLCM
        verbosity = body.get('verbosity', 'FULL') if lcm else None
        for row in _duplicate_candidates(req, self):
            if (
                row['api_version'] == self.api_versions[0]
                and row['callback_uri'] == body['callbackUri']
                and row['filter'] == body.get('filter')
                and (row['verbosity'] or 'FULL') == (verbosity or 'FULL')
            ):
                return http.empty_response(
                    303, {'Location': self.href(req.base_url, row['id'])}
                )
        sealed = sealed_callback(
            req, self, body['callbackUri'], body.get('authentication')
        )
        row = registry.subscription_create(
            {
                'callback_uri': body['callbackUri'],
                'filter': body.get('filter'),
                'verbosity': verbosity,
                'authentication': sealed,
                'project_id': req.ctx.project_id,
                'api_version': self.api_versions[0],
                'interface': self.interface,
            }
        )
        return http.json_response(
            self.to_sol(row, req.base_url),
            201,
            headers={'Location': self.href(req.base_url, row['id'])},
        )

    def index(self, req: ApiRequest) -> webob.Response:
        """GET: the subscriptions, SOL013 filtered."""
        where = self.where(req)
        return common.list_response(
            req,
            lambda _cols, after: registry.subscription_scan(where, after),
            self.to_sol,
            self.sol013,
            CONF.api.subscription_page_size,
        )

    def show(self, req: ApiRequest) -> webob.Response:
        """GET one subscription."""
        return http.json_response(self.to_sol(self.get(req), req.base_url))

    def delete(self, req: ApiRequest) -> webob.Response:
        """DELETE a subscription."""
        registry.subscription_delete(self.get(req)['id'])
        return http.empty_response(204)


#: /vnflcm/v2 serves the LCM subscriptions of both versions.
VNFLCM_V2 = Interface('/vnflcm/v2', registry.VNFLCM, ('2', '1'), True)
VNFLCM_V1 = Interface('/vnflcm/v1', registry.VNFLCM, ('1',), False)
VNFPKGM_V1 = Interface('/vnfpkgm/v1', registry.VNFPKGM, ('1',), False)
#: FmSubscription (SOL003 v3.3.1 7.5.2.3) has no verbosity.
VNFFM_V1 = Interface('/vnffm/v1', registry.VNFFM, ('1',), False)
#: PM jobs and thresholds carry their own callbackUri (SOL003 v3.3.1
#: 6.5.2.6): each has a subscription row, never listed on a route.
VNFPM_V2 = Interface('/vnfpm/v2', registry.VNFPM, ('2',), False)


def sealed_callback(
    req: ApiRequest, api: Interface, uri: str, auth: dict | None
) -> str | None:
    """Check ``auth`` is usable and, if configured, that ``uri`` answers
    its test; the authentication encrypted for storing."""
    if auth:
        _check_usable(auth)
    sealed = crypto.encrypt(auth) if auth else None
    if CONF.notifications.test_callback_uri:
        _test_callback(req, api, uri, sealed)
    return sealed


def _duplicate_candidates(req: ApiRequest, api: Interface) -> list[dict]:
    """The subscriptions a new one may duplicate (none when duplicates
    are allowed: SOL003 5.4.18.3.1 and SOL005 9.4.8.3.1 leave the choice
    to the VNFM)."""
    if CONF.api.allow_duplicate_subscriptions:
        return []
    return registry.subscription_list(api.where(req))


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


def _test_callback(
    req: ApiRequest, api: Interface, uri: str, sealed: str | None
) -> None:
    """Have a conductor test ``uri``; raise unless it answered 204."""
    try:
        failure = req.rpc.test_notification_endpoint(
            req.ctx, uri, sealed, api.api_versions[0], api.interface
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


def routes(
    api: Interface, action: Callable[..., Action], schema: dict
) -> list[tuple[str, dict[str, Action]]]:
    """The route table entries of ``api``'s subscriptions; ``action(handler,
    rule, schema=None)`` makes the API's Action (rules named
    ``subscription_create``, ``_list``, ``_show``, ``_delete``)."""
    base = f'{api.prefix}/subscriptions'
    return [
        (
            base,
            {
                'POST': action(api.create, 'subscription_create', schema),
                'GET': action(api.index, 'subscription_list'),
            },
        ),
        (
            base + '/{id}',
            {
                'GET': action(api.show, 'subscription_show'),
                'DELETE': action(api.delete, 'subscription_delete'),
            },
        ),
    ]
