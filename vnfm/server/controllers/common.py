"""Helpers shared by the controllers."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable

import orjson
import oslo_messaging
import webob

from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.objects import sol013
from vnfm.server import http
from vnfm.server.request import ApiRequest

LOG = logging.getLogger(__name__)

# fetch(columns, after): the rows in list order after the row ``after``
# (None: from the first), read lazily.
Fetch = Callable[[Iterable[str] | None, str | None], Iterable[dict]]


def list_response(
    req: ApiRequest,
    fetch: Fetch,
    to_sol: Callable[[dict, str], dict],
    resource: sol013.Resource,
    page_size: int,
    light_columns: Iterable[str] | None = None,
) -> webob.Response:
    """A SOL013 list: filtered, paged and selected, with a Link header to
    the next page when there is one.

    ``fetch`` is given ``light_columns`` when the answer needs no
    default-excluded attribute; only as many rows as the page needs are
    read. ``page_size`` 0 turns paging off: then more than ``[api]
    max_list_items`` items is a 400.
    """
    try:
        params = req.GET
        light = light_columns is not None and sol013.default_view_suffices(
            params, resource
        )
        rows = fetch(
            light_columns if light else None, params.get(sol013.MARKER)
        )
        url = req.base_url + req.path_info
        if light and set(params) <= {sol013.MARKER}:
            return _plain_list(req, rows, to_sol, page_size, url)
        items = (to_sol(r, req.base_url) for r in rows)
        page, link = sol013.select(
            items,
            params,
            resource,
            page_size=page_size,
            max_items=CONF.api.max_list_items,
            url=url,
        )
    except UnicodeDecodeError:
        raise exceptions.BadRequest(
            'The query string is not valid UTF-8.'
        ) from None
    return http.json_response(page, headers={'Link': link} if link else None)


class FragmentCache:
    """The JSON of each row's default view, reused while the row (as read
    for the list) is unchanged: a plain list of 1,000 unchanged instances
    then costs a query and a join, not 1,000 conversions."""

    MAX_ITEMS = 100_000

    def __init__(self) -> None:
        self._items: dict[tuple, tuple[dict, bytes]] = {}

    def fragments(
        self,
        rows: list[dict],
        base_url: str,
        to_sol: Callable[[dict, str], dict],
    ) -> list[bytes]:
        """The JSON of ``to_sol(row)`` for each row."""
        if len(self._items) > self.MAX_ITEMS:
            self._items = {}  # deleted rows linger; start over
        items = self._items
        out = []
        for row in rows:
            key = (to_sol, base_url, row['id'])
            hit = items.get(key)
            if hit is None or hit[0] != row:
                hit = items[key] = (row, orjson.dumps(to_sol(row, base_url)))
            out.append(hit[1])
        return out


_cache = FragmentCache()


def _plain_list(
    req: ApiRequest,
    rows: Iterable[dict],
    to_sol: Callable[[dict, str], dict],
    page_size: int,
    url: str,
) -> webob.Response:
    page, more = sol013.take(rows, page_size, CONF.api.max_list_items)
    parts = _cache.fragments(page, req.base_url, to_sol)
    body = b'[' + b','.join(parts) + b']'
    # No charset (webob takes None; its stubs only allow a str).
    resp = webob.Response(status=200, body=body, charset=None)  # type: ignore[arg-type]
    resp.headers['Content-Type'] = http.JSON
    if more:
        resp.headers['Link'] = sol013.next_link(url, req.GET, page[-1]['id'])
    return resp


def merge_patch(target: object, patch: object) -> object:
    """RFC 7396 JSON merge patch of ``target`` with ``patch`` (a new value)."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


def cast(req: ApiRequest, method: str, *args: object) -> None:
    """Send a cast to the conductors. The database already holds the
    request and the conductors sweep it for unclaimed work, so a bus that
    is down delays the work rather than losing it: log, do not fail."""
    try:
        getattr(req.rpc, method)(req.ctx, *args)
    except (oslo_messaging.MessagingException, OSError) as e:
        LOG.warning(
            'Cast %s%r not sent (%s); a conductor will find the '
            'work in the database.',
            method,
            args[:1],
            e,
        )
