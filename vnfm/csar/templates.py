"""Loading the VNFD's YAML definitions and following their imports.

Imports are followed inside the package only.
"""

import functools
import hashlib
import pathlib
import posixpath
from typing import Any

import yaml

from vnfm.csar.errors import InvalidPackage

# The ETSI SOL001 type files may be imported by URL or by a path absent from
# the package; vnfm then uses its own copies and never fetches anything from
# the network.
ETSI_TYPE_FILES = (
    'etsi_nfv_sol001_common_types.yaml',
    'etsi_nfv_sol001_vnfd_types.yaml',
)
_SOL001_DIR = pathlib.Path(__file__).parent / 'sol001'
# Bounds on what the definitions may cost to read: nodes per document
# (alias expansion included) and for the whole package, nesting, file and
# string sizes, and the length of an import chain.
_MAX_NODES = 200_000
_MAX_PACKAGE_NODES = 1_000_000
_MAX_DEPTH = 100
MAX_YAML_BYTES = 8 * 1024 * 1024
_MAX_STRING = 1024 * 1024
_MAX_IMPORT_DEPTH = 32
_TIMESTAMP = 'tag:yaml.org,2002:timestamp'
_ETSI_CACHE: dict[tuple[str, str], Any] = {}
_ETSI_CACHE_SIZE = 16
_Base: Any = getattr(yaml, 'CSafeLoader', yaml.SafeLoader)


class _Loader(_Base):
    """Safe loader keeping dates as strings, so documents stay JSON-able."""


_Loader.yaml_implicit_resolvers = {
    k: [r for r in v if r[0] != _TIMESTAMP]
    for k, v in _Base.yaml_implicit_resolvers.items()
}


def parse_yaml(path: str, data: bytes, budget: list[int] | None = None) -> Any:
    """Parse one YAML document; syntax errors name file, line and column.

    ``budget`` holds the nodes left for the package; it is spent.
    """
    if len(data) > MAX_YAML_BYTES:
        raise InvalidPackage(
            f'{path}: {len(data)} bytes, larger than the limit of '
            f'{MAX_YAML_BYTES} bytes for a definitions file'
        )
    try:
        doc = yaml.load(data, Loader=_Loader)  # nosec B506
    except yaml.MarkedYAMLError as e:
        if 'maximum nesting depth' in str(e.problem):
            # PyYAML >= 6.0.4 has a depth limit of its own (1000 levels).
            raise InvalidPackage(f'{path}: YAML nested too deeply') from None
        mark = e.problem_mark or e.context_mark
        where = (
            f'line {mark.line + 1}, column {mark.column + 1}'
            if mark
            else 'unknown line'
        )
        problem = e.problem or e.context or 'syntax error'
        if e.problem and e.context and e.context_mark:
            problem += f' ({e.context} at line {e.context_mark.line + 1})'
        raise InvalidPackage(
            f'{path}: YAML error at {where}: {problem}'
        ) from None
    except yaml.YAMLError as e:
        raise InvalidPackage(f'{path}: YAML error: {e}') from None
    except RecursionError:
        raise InvalidPackage(f'{path}: YAML nested too deeply') from None
    except ValueError as e:
        # Python's own limits, e.g. an integer of too many digits.
        reason = str(e).split(';')[0]
        raise InvalidPackage(
            f'{path}: a YAML value cannot be read: {reason}'
        ) from None
    left = _MAX_NODES if budget is None else min(_MAX_NODES, budget[0])
    count = [0]
    try:
        out = _jsonable(path, doc, count, 0, left)
    except _TooManyNodes:
        why = (
            f'more than {_MAX_NODES} in one file'
            if left == _MAX_NODES
            else "the package's definitions have more than "
            f'{_MAX_PACKAGE_NODES} in all'
        )
        raise InvalidPackage(
            f'{path}: too many YAML nodes: {why} (alias expansion?)'
        ) from None
    if budget is not None:
        budget[0] -= count[0]
    return out


class _TooManyNodes(Exception):
    """A document expands to more nodes than allowed."""


def _jsonable(
    path: str, node: Any, count: list[int], depth: int, limit: int
) -> Any:
    """Copy a document with string keys and no bytes; refuse alias bombs."""
    count[0] += 1
    if count[0] > limit:
        raise _TooManyNodes()
    if depth > _MAX_DEPTH:
        raise InvalidPackage(
            f'{path}: YAML nested too deeply (over {_MAX_DEPTH} levels)'
        )
    if isinstance(node, dict):
        return {
            _string(path, str(k)): _jsonable(path, v, count, depth + 1, limit)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_jsonable(path, v, count, depth + 1, limit) for v in node]
    if isinstance(node, (bytes, set)):
        raise InvalidPackage(
            f'{path}: binary or set values are not allowed in a VNFD'
        )
    if isinstance(node, str):
        return _string(path, node)
    return node


def _string(path: str, value: str) -> str:
    """``value``, if it is not longer than a VNFD string may be."""
    if len(value) > _MAX_STRING:
        raise InvalidPackage(
            f'{path}: a string of {len(value)} characters, longer than the '
            f'limit of {_MAX_STRING} (starts {value[:40]!r})'
        )
    return value


@functools.cache
def bundled_types(name: str) -> dict[str, Any]:
    """Return vnfm's parsed copy of an ETSI SOL001 type file (parsed once)."""
    return parse_yaml(name, (_SOL001_DIR / name).read_bytes())


def _parse_etsi(path: str, data: bytes) -> Any:
    """Parse an ETSI type file in the package; packages repeat these bytes.

    Kept by digest, so the cache does not hold on to the bytes.
    """
    key = (path, hashlib.sha256(data).hexdigest())
    if key not in _ETSI_CACHE:
        doc = parse_yaml(path, data)
        if len(_ETSI_CACHE) >= _ETSI_CACHE_SIZE:
            _ETSI_CACHE.pop(next(iter(_ETSI_CACHE)))
        _ETSI_CACHE[key] = doc
    return _ETSI_CACHE[key]


class Definitions:
    """The entry definitions and everything they import, in load order."""

    def __init__(self, files: dict[str, bytes], entry: str) -> None:
        self.files = files
        self.entry = entry
        self.docs: dict[str, dict[str, Any]] = {}
        self.bundled: dict[str, dict[str, Any]] = {}
        self._budget = [_MAX_PACKAGE_NODES]
        self._load(entry, ())

    def package_docs(self) -> dict[str, dict[str, Any]]:
        """The package's own definition files, without ETSI type files."""
        return {p: d for p, d in self.docs.items() if not _is_etsi(d)}

    def all_docs(self) -> list[tuple[str, dict[str, Any]]]:
        """Every loaded document, package files first."""
        return [*self.docs.items(), *self.bundled.items()]

    def _load(self, path: str, chain: tuple[str, ...]) -> None:
        """Load one file and, depth first, its imports.

        ``chain``: the files whose imports led here, entry first.
        """
        if path in chain:
            raise InvalidPackage(
                'import cycle: '
                + ' -> '.join((*chain[chain.index(path) :], path))
            )
        if path in self.docs:
            return
        if len(chain) >= _MAX_IMPORT_DEPTH:
            raise InvalidPackage(
                f'{chain[-1]}: imports nested more than {_MAX_IMPORT_DEPTH} '
                f'deep (from {chain[0]} through {len(chain)} files)'
            )
        data = self.files[path]
        if posixpath.basename(path) in ETSI_TYPE_FILES:
            doc = _parse_etsi(path, data)
        else:
            doc = parse_yaml(path, data, self._budget)
        if not isinstance(doc, dict) or 'tosca_definitions_version' not in doc:
            raise InvalidPackage(
                f'{path}: not a TOSCA definitions file '
                '(tosca_definitions_version is missing)'
            )
        self.docs[path] = doc
        imports = doc.get('imports') or []
        if not isinstance(imports, list):
            raise InvalidPackage(f"{path}: 'imports' must be a list")
        for item in imports:
            self._import((*chain, path), item)

    def _import(self, chain: tuple[str, ...], item: Any) -> None:
        """Resolve an import in the package, then in the bundled ETSI types."""
        importer = chain[-1]
        ref = _import_ref(importer, item)
        base = posixpath.basename(ref)
        if '://' not in ref:
            target = posixpath.normpath(
                posixpath.join(posixpath.dirname(importer), ref)
            )
            if target in self.files:
                self._load(target, chain)
                return
            if ref in self.files:
                self._load(ref, chain)
                return
        if base in ETSI_TYPE_FILES:
            self.bundled.setdefault(base, bundled_types(base))
            return
        if '://' in ref:
            raise InvalidPackage(
                f"{importer}: import '{ref}' is a URL; vnfm "
                'does not fetch imports, put the file in the '
                'package'
            )
        raise InvalidPackage(
            f"{importer}: import '{ref}' is not in the package"
        )


def _import_ref(importer: str, item: Any) -> str:
    """Return the file named by an import entry.

    An entry is a string, {file: x} or {name: {file: x}}.
    """
    if isinstance(item, dict) and 'file' not in item and len(item) == 1:
        item = next(iter(item.values()))
    if isinstance(item, dict):
        item = item.get('file')
    if not isinstance(item, str) or not item:
        raise InvalidPackage(
            f'{importer}: cannot understand import entry {item!r}'
        )
    return item


def _is_etsi(doc: dict[str, Any]) -> bool:
    """True for ETSI's own type files: not worth storing per package."""
    meta = doc.get('metadata')
    return isinstance(meta, dict) and meta.get('template_author') == 'ETSI_NFV'
