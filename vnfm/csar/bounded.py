"""The one parser of YAML and JSON that comes from outside: packages,
requests, peers (Kubernetes, kubectl, hook scripts).

A document is refused before it can cost much: by its size in bytes,
then by what it expands to (nodes, alias expansion included, counted as
the copy is made), its nesting depth and the length of its strings. The
result is plain JSON data: string keys, no bytes, sets or dates.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import orjson
import yaml


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one document may cost to read."""

    max_bytes: int = 8 * 1024 * 1024
    max_nodes: int = 200_000
    max_depth: int = 100
    max_string: int = 1024 * 1024


#: Packages' files and request bodies.
DOCUMENT = Limits()
#: Answers of peers (lists of a cluster's objects are larger).
PEER = Limits(max_bytes=64 * 1024 * 1024, max_nodes=5_000_000)

_TIMESTAMP = 'tag:yaml.org,2002:timestamp'
_Base: Any = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


class _Loader(_Base):
    """Safe loader keeping dates as strings, so documents stay JSON-able."""


_Loader.yaml_implicit_resolvers = {
    k: [r for r in v if r[0] != _TIMESTAMP]
    for k, v in _Base.yaml_implicit_resolvers.items()
}


class BadDocument(Exception):
    """A document that cannot be read or costs too much; ``detail`` starts
    with the document's name."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class TooManyNodes(BadDocument):
    """A document expands to more nodes than allowed (alias expansion?)."""


def load_yaml(
    name: str,
    data: bytes | str,
    limits: Limits = DOCUMENT,
    budget: list[int] | None = None,
) -> Any:
    """The one YAML document of ``data``; ``budget`` (nodes left for a
    set of documents) is spent."""
    _check_size(name, data, limits)
    doc = _yaml(name, lambda: yaml.load(data, Loader=_Loader))  # nosec B506
    return _bounded(name, 'YAML', doc, limits, budget)


def load_yaml_all(
    name: str, data: bytes | str, limits: Limits = DOCUMENT
) -> list[Any]:
    """Every YAML document of ``data`` (a stream), ``None`` ones left out;
    the node limit holds for the whole stream."""
    _check_size(name, data, limits)
    docs = _yaml(
        name,
        lambda: list(yaml.load_all(data, Loader=_Loader)),  # nosec B506
    )
    budget = [limits.max_nodes]
    return [
        _bounded(name, 'YAML', d, limits, budget)
        for d in docs
        if d is not None
    ]


def load_json(name: str, data: bytes | str, limits: Limits = DOCUMENT) -> Any:
    """The JSON document of ``data``."""
    _check_size(name, data, limits)
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as e:
        raise BadDocument(f'{name}: not valid JSON: {e}') from None
    return _bounded(name, 'JSON', doc, limits, None)


def _check_size(name: str, data: bytes | str, limits: Limits) -> None:
    if len(data) > limits.max_bytes:
        raise BadDocument(
            f'{name}: {len(data)} bytes, larger than the limit of '
            f'{limits.max_bytes} bytes'
        )


def _yaml(name: str, parse: Callable[[], Any]) -> Any:
    """``parse()``, its errors as BadDocument naming line and column."""
    try:
        return parse()
    except yaml.MarkedYAMLError as e:
        if 'maximum nesting depth' in str(e.problem):
            # PyYAML >= 6.0.4 has a depth limit of its own (1000 levels).
            raise BadDocument(f'{name}: YAML nested too deeply') from None
        raise BadDocument(f'{name}: YAML error at {_where(e)}') from None
    except yaml.YAMLError as e:
        raise BadDocument(f'{name}: YAML error: {e}') from None
    except RecursionError:
        raise BadDocument(f'{name}: YAML nested too deeply') from None
    except ValueError as e:
        # Python's own limits, e.g. an integer of too many digits.
        reason = str(e).split(';')[0]
        raise BadDocument(
            f'{name}: a YAML value cannot be read: {reason}'
        ) from None


def _where(e: yaml.MarkedYAMLError) -> str:
    """``line L, column C: problem`` of a YAML syntax error."""
    mark = e.problem_mark or e.context_mark
    where = (
        f'line {mark.line + 1}, column {mark.column + 1}'
        if mark
        else 'unknown line'
    )
    problem = e.problem or e.context or 'syntax error'
    if e.problem and e.context and e.context_mark:
        problem += f' ({e.context} at line {e.context_mark.line + 1})'
    return f'{where}: {problem}'


def _bounded(
    name: str,
    kind: str,
    doc: Any,
    limits: Limits,
    budget: list[int] | None,
) -> Any:
    """A JSON-able copy of ``doc`` within ``limits``; ``budget`` spent."""
    left = limits.max_nodes if budget is None else budget[0]
    copier = _Copier(f'{name}: {kind}', limits, min(left, limits.max_nodes))
    out = copier.copy(doc, 0)
    if budget is not None:
        budget[0] -= copier.count
    return out


class _Copier:
    """Copies a parsed document, counting nodes as aliases expand."""

    def __init__(self, what: str, limits: Limits, max_nodes: int) -> None:
        self.what = what  # 'name: YAML', the start of every error
        self.limits = limits
        self.max_nodes = max_nodes
        self.count = 0

    def copy(self, node: Any, depth: int) -> Any:
        """``node`` with string keys, checked against the limits."""
        self.count += 1
        if self.count > self.max_nodes:
            raise TooManyNodes(
                f'{self.what} of more than {self.max_nodes} nodes '
                '(alias expansion?)'
            )
        if depth > self.limits.max_depth:
            raise BadDocument(
                f'{self.what} nested too deeply (over '
                f'{self.limits.max_depth} levels)'
            )
        if isinstance(node, dict):
            return {
                self.string(str(k)): self.copy(v, depth + 1)
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [self.copy(v, depth + 1) for v in node]
        if isinstance(node, (bytes, set)):
            raise BadDocument(
                f'{self.what} with binary or set values, which are not allowed'
            )
        if isinstance(node, str):
            return self.string(node)
        return node

    def string(self, value: str) -> str:
        """``value``, if it is not longer than a string may be."""
        if len(value) > self.limits.max_string:
            raise BadDocument(
                f'{self.what} with a string of {len(value)} characters, '
                f'longer than the limit of {self.limits.max_string} (starts '
                f'{value[:40]!r})'
            )
        return value
