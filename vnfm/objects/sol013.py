"""SOL013 list handling on SOL dicts: attribute-based filtering (5.2),
attribute selectors (5.3) and paging (5.4.2).

Filtering runs in Python on the SOL representation, so every attribute a
client sees can be filtered on, nested ones included.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from vnfm.common import exceptions

ONE_VALUE_OPS = frozenset({'eq', 'neq', 'gt', 'gte', 'lt', 'lte'})
MULTI_VALUE_OPS = frozenset({'in', 'nin', 'cont', 'ncont'})
NEGATIVE_OPS = {'neq': 'eq', 'nin': 'in', 'ncont': 'cont'}
MARKER = 'nextpage_opaque_marker'
_SELECTORS = ('all_fields', 'fields', 'exclude_fields', 'exclude_default')
_MISSING = object()


def _bad_filter(detail: str) -> exceptions.BadRequest:
    return exceptions.BadRequest(f'Invalid filter: {detail}')


def _unescape(name: str) -> str:
    # SOL013 5.2.2: "~1" is "/", "~a" is ",", "~b" is "@", "~0" is "~".
    return re.sub(
        r'~([01ab])',
        lambda m: {'0': '~', '1': '/', 'a': ',', 'b': '@'}[m.group(1)],
        name,
    )


@dataclasses.dataclass(frozen=True)
class Expr:
    """One simpleFilterExpr: ``(op,attr/path,value,...)``."""

    op: str
    path: tuple[str, ...]
    values: tuple[str, ...]

    def matches(self, item: Mapping) -> bool:
        """Whether ``item`` satisfies this expression."""
        leaves = list(_resolve(item, self.path))
        positive = NEGATIVE_OPS.get(self.op)
        if positive is not None:
            return not any(_compare(positive, v, self.values) for v in leaves)
        return any(_compare(self.op, v, self.values) for v in leaves)


def _resolve(value: Any, path: tuple[str, ...]) -> Iterable[Any]:
    """Every value at ``path``, descending through lists element-wise."""
    if isinstance(value, list):
        for element in value:
            yield from _resolve(element, path)
        return
    if not path:
        yield value
        return
    if not isinstance(value, Mapping):
        return
    if path[0] == '@key':
        yield from value.keys()
        return
    child = value.get(path[0], _MISSING)
    if child is not _MISSING and child is not None:
        yield from _resolve(child, path[1:])


def _convert(sample: Any, text: str) -> Any:
    """``text`` as the type of ``sample``; ValueError if it is not one."""
    if isinstance(sample, bool):
        if text in ('true', 'false'):
            return text == 'true'
        raise ValueError(text)
    if isinstance(sample, int):
        return int(text)
    if isinstance(sample, float):
        return float(text)
    if isinstance(sample, str):
        return text
    raise ValueError(text)  # objects compare with nothing


def _compare(op: str, value: Any, texts: tuple[str, ...]) -> bool:
    try:
        wanted = [_convert(value, t) for t in texts]
    except (ValueError, OverflowError):
        return False
    if op == 'eq' or op == 'in':
        return value in wanted
    if op == 'cont':
        return isinstance(value, str) and any(w in value for w in wanted)
    if isinstance(value, bool):
        return False  # booleans are not ordered
    target = wanted[0]
    return {
        'gt': value > target,
        'gte': value >= target,
        'lt': value < target,
        'lte': value <= target,
    }[op]


class Filter:
    """A parsed ``filter`` parameter: expressions joined by ';' (AND)."""

    def __init__(self, exprs: list[Expr]) -> None:
        self.exprs = exprs

    def matches(self, item: Mapping) -> bool:
        """Whether ``item`` satisfies every expression."""
        return all(e.matches(item) for e in self.exprs)


def _parse_value(text: str, pos: int) -> tuple[str, int]:
    """One value starting at ``pos``; returns it and the position after."""
    if pos < len(text) and text[pos] == "'":
        out, pos = [], pos + 1
        while True:
            end = text.find("'", pos)
            if end < 0:
                raise _bad_filter(f'unterminated quoted value in {text!r}.')
            out.append(text[pos:end])
            if text.startswith("''", end):
                out.append("'")
                pos = end + 2
                continue
            return ''.join(out), end + 1
    match = re.compile(r"[^,)']*").match(text, pos)
    assert match is not None  # the pattern matches the empty string
    return match.group(0), match.end()


def _parse_expr(
    text: str, pos: int, attributes: frozenset[str] | None
) -> tuple[Expr, int]:
    head = re.compile(r'\(([a-z]+),([^,)]+)').match(text, pos)
    if head is None:
        raise _bad_filter(
            f'expected "(op,attribute,value)" at character '
            f'{pos + 1} of {text!r}.'
        )
    op, attr = head.group(1), head.group(2)
    if op not in ONE_VALUE_OPS and op not in MULTI_VALUE_OPS:
        known = ', '.join(sorted(ONE_VALUE_OPS | MULTI_VALUE_OPS))
        raise _bad_filter(f'unknown operator {op!r}; use one of {known}.')
    path = tuple(_unescape(p) for p in attr.split('/'))
    if any(not p for p in path):
        raise _bad_filter(f'attribute name {attr!r} has an empty part.')
    if attributes is not None and path[0] not in attributes:
        raise _bad_filter(f'unknown attribute {path[0]!r}.')
    values, pos = [], head.end()
    while pos < len(text) and text[pos] == ',':
        value, pos = _parse_value(text, pos + 1)
        values.append(value)
    if pos >= len(text) or text[pos] != ')':
        raise _bad_filter(
            f'expected "," or ")" at character {pos + 1} of {text!r}.'
        )
    if not values:
        raise _bad_filter(f'operator {op!r} on {attr!r} needs a value.')
    if len(values) > 1 and op in ONE_VALUE_OPS:
        raise _bad_filter(
            f'operator {op!r} takes one value, got {len(values)}.'
        )
    return Expr(op, path, tuple(values)), pos + 1


def parse_filter(text: str, attributes: Iterable[str] | None = None) -> Filter:
    """Parse a SOL013 filter; BadRequest naming the problem if malformed.

    ``attributes`` (the resource's top-level attribute names) lets a typo
    be reported instead of silently matching nothing.
    """
    known = frozenset(attributes) if attributes is not None else None
    exprs, pos = [], 0
    if not text:
        raise _bad_filter('it is empty.')
    while True:
        expr, pos = _parse_expr(text, pos, known)
        exprs.append(expr)
        if pos == len(text):
            return Filter(exprs)
        if text[pos] != ';':
            raise _bad_filter(
                f'expected ";" at character {pos + 1} of {text!r}.'
            )
        pos += 1


class Selector:
    """Attribute selectors (SOL013 5.3) for one resource type.

    ``fields`` alone keeps the mandatory attributes plus the named ones;
    otherwise the ``exclude`` paths are removed and the ``fields`` paths put
    back.
    """

    def __init__(
        self,
        *,
        mandatory: Iterable[str],
        fields: list[str] | None = None,
        exclude: Iterable[str] = (),
        only_fields: bool = False,
    ) -> None:
        self.mandatory = frozenset(mandatory)
        self.fields = [f.split('/') for f in fields or ()]
        self.only_fields = only_fields
        excluded = [e.split('/') for e in exclude]
        # Top-level exclusions are a set difference; nested ones a walk.
        self._top = (
            frozenset(e[0] for e in excluded if len(e) == 1) - self.mandatory
        )
        self._nested = [e for e in excluded if len(e) > 1]

    def apply(self, item: dict) -> dict:
        """The selected attributes of ``item`` (a new dict, or ``item``
        itself when nothing is removed)."""
        if self.only_fields:
            out = {
                k: v
                for k, v in item.items()
                if k in self.mandatory or k == '_links'
            }
        elif self._nested or self._top.intersection(item):
            out = {k: v for k, v in item.items() if k not in self._top}
            for keys in self._nested:
                _delete_path(out, keys, self.mandatory)
        else:
            return item
        for keys in self.fields:
            _copy_path(item, out, keys)
        return out


def _delete_path(out: dict, keys: list[str], mandatory: frozenset) -> None:
    if len(keys) == 1:
        if keys[0] not in mandatory:
            out.pop(keys[0], None)
        return
    child = out.get(keys[0])
    if isinstance(child, dict):
        # Copy on write: ``out`` shares nested dicts with the item.
        out[keys[0]] = child = dict(child)
        _delete_path(child, keys[1:], frozenset())


def _copy_path(src: dict, dst: dict, keys: list[str]) -> None:
    if keys[0] not in src:
        return
    if len(keys) == 1:
        dst[keys[0]] = src[keys[0]]
        return
    child = src[keys[0]]
    if not isinstance(child, dict):
        dst[keys[0]] = child
        return
    current = dst.get(keys[0])
    if current is child:
        return  # already there whole
    if not isinstance(current, dict):
        # Absent (or replaced): start an empty copy; a present dict is a
        # copy _delete_path made, safe to fill in.
        dst[keys[0]] = current = {}
    _copy_path(child, current, keys[1:])


def _fields_list(
    name: str, value: str, attributes: frozenset[str] | None
) -> list[str]:
    items = [v for v in value.split(',') if v]
    if not items:
        raise exceptions.BadRequest(f'Invalid {name}: it names no attribute.')
    if attributes is None:
        return items
    unknown = sorted({i.split('/')[0] for i in items} - attributes)
    if unknown:
        raise exceptions.BadRequest(
            f'Invalid {name}: unknown attribute {", ".join(unknown)}; this '
            f'resource has {", ".join(sorted(attributes))}.'
        )
    return items


def parse_selector(
    params: Mapping[str, str],
    *,
    mandatory: Iterable[str],
    default_excluded: Iterable[str],
    attributes: Iterable[str] | None = None,
) -> Selector:
    """A Selector from query parameters; BadRequest on a forbidden mix or
    on an attribute not in ``attributes`` (when given).

    With no selector parameter the default-excluded attributes are left
    out, as SOL013 5.3.2 says (``all_fields`` returns everything).
    """
    known = frozenset(attributes) if attributes is not None else None
    given = {k for k in _SELECTORS if k in params}
    exclude_value = params.get('exclude_fields', params.get('exclude-fields'))
    if exclude_value is not None:
        given.add('exclude_fields')
    if 'all_fields' in given and len(given) > 1:
        raise exceptions.BadRequest(
            'Invalid attribute selector: all_fields cannot be combined with '
            'fields, exclude_fields or exclude_default.'
        )
    if {'fields', 'exclude_fields'} <= given:
        raise exceptions.BadRequest(
            'Invalid attribute selector: fields and exclude_fields cannot '
            'be combined.'
        )
    if {'exclude_fields', 'exclude_default'} <= given:
        raise exceptions.BadRequest(
            'Invalid attribute selector: exclude_fields and exclude_default '
            'cannot be combined.'
        )
    if 'all_fields' in given:
        return Selector(mandatory=mandatory)
    if exclude_value is not None:
        return Selector(
            mandatory=mandatory,
            exclude=_fields_list('exclude_fields', exclude_value, known),
        )
    if 'fields' in given:
        fields = _fields_list('fields', params['fields'], known)
        if 'exclude_default' in given:
            return Selector(
                mandatory=mandatory, fields=fields, exclude=default_excluded
            )
        return Selector(mandatory=mandatory, fields=fields, only_fields=True)
    return Selector(mandatory=mandatory, exclude=default_excluded)


@dataclasses.dataclass(frozen=True)
class Resource:
    """What SOL013 needs to know of a resource type."""

    attributes: frozenset[str]
    mandatory: frozenset[str]
    default_excluded: tuple[str, ...]


def default_view_suffices(
    params: Mapping[str, str], resource: Resource
) -> bool:
    """Whether the answer to ``params`` holds only attributes outside the
    default-excluded ones (so a list may skip loading those)."""
    if any(
        k in params
        for k in ('all_fields', 'fields', 'exclude_fields', 'exclude-fields')
    ):
        return False
    if 'filter' not in params:
        return True
    excluded = set(resource.default_excluded)
    flt = parse_filter(params['filter'], resource.attributes)
    return not any(e.path[0] in excluded for e in flt.exprs)


def select(
    items: Iterable[dict],
    params: Mapping[str, str],
    resource: Resource,
    *,
    page_size: int = 0,
    max_items: int = 0,
    url: str = '',
) -> tuple[list[dict], str | None]:
    """Filter, page and select ``items`` (SOL dicts with ``id``, from the
    requested marker on) by the query ``params``; returns the page and the
    Link header value (or None).

    ``items`` is consumed only as far as the page needs. With paging off
    (``page_size`` 0) a result over ``max_items`` (if not 0) is a 400, as
    SOL013 5.4.2.1 says. ``url`` is the request URL without query; the
    next-page link keeps every parameter but the marker.
    """
    flt = (
        parse_filter(params['filter'], resource.attributes)
        if 'filter' in params
        else None
    )
    selector = parse_selector(
        params,
        mandatory=resource.mandatory,
        default_excluded=resource.default_excluded,
        attributes=resource.attributes,
    )
    matched = (i for i in items if flt is None or flt.matches(i))
    page, more = take(matched, page_size, max_items)
    link = next_link(url, params, page[-1]['id']) if more else None
    return [selector.apply(i) for i in page], link


def take(
    items: Iterable[dict], page_size: int, max_items: int = 0
) -> tuple[list[dict], bool]:
    """The first ``page_size`` items and whether more follow; with paging
    off (0) every item, BadRequest if there are more than ``max_items``."""
    if page_size > 0:
        page = list(itertools.islice(items, page_size + 1))
        return page[:page_size], len(page) > page_size
    if max_items <= 0:
        return list(items), False
    page = list(itertools.islice(items, max_items + 1))
    if len(page) > max_items:
        raise exceptions.BadRequest(
            f'The response is too big: more than {max_items} items match '
            f'and this server does not page this list. Narrow it with a '
            f'filter.'
        )
    return page, False


def next_link(url: str, params: Mapping[str, str], marker: str) -> str:
    """The ``Link`` header value of the page after ``marker``."""
    query = [(k, v) for k, v in params.items() if k != MARKER]
    query.append((MARKER, marker))
    return f'<{url}?{urllib.parse.urlencode(query)}>; rel="next"'
