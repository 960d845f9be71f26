"""Loading the VNFD's YAML definitions and following their imports.

Imports are followed inside the package only.
"""

import functools
import pathlib
import posixpath
from typing import Any

import yaml

from vnfm.csar.errors import InvalidPackage

# The ETSI SOL001 type files may be imported by URL or by a path absent from
# the package; vnfm then uses its own copies and never fetches anything from
# the network.
ETSI_TYPE_FILES = ("etsi_nfv_sol001_common_types.yaml",
                   "etsi_nfv_sol001_vnfd_types.yaml")
_SOL001_DIR = pathlib.Path(__file__).parent / "sol001"
_MAX_NODES = 200_000
_MAX_DEPTH = 100
_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc, valid-type]
    """Safe loader keeping dates as strings, so documents stay JSON-able."""


_Loader.yaml_implicit_resolvers = {
    k: [r for r in v if r[0] != _TIMESTAMP]
    for k, v in _Base.yaml_implicit_resolvers.items()}


def parse_yaml(path: str, data: bytes) -> Any:
    """Parse one YAML document; syntax errors name file, line and column."""
    try:
        doc = yaml.load(data, Loader=_Loader)  # nosec B506
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = (f"line {mark.line + 1}, column {mark.column + 1}" if mark
                 else "unknown line")
        problem = e.problem or e.context or "syntax error"
        if e.problem and e.context and e.context_mark:
            problem += f" ({e.context} at line {e.context_mark.line + 1})"
        raise InvalidPackage(
            f"{path}: YAML error at {where}: {problem}") from None
    except yaml.YAMLError as e:
        raise InvalidPackage(f"{path}: YAML error: {e}") from None
    except RecursionError:
        raise InvalidPackage(f"{path}: YAML nested too deeply") from None
    return _jsonable(path, doc, [0], 0)


def _jsonable(path: str, node: Any, count: list[int], depth: int) -> Any:
    """Copy a document with string keys and no bytes; refuse alias bombs."""
    count[0] += 1
    if count[0] > _MAX_NODES:
        raise InvalidPackage(f"{path}: too many YAML nodes (alias expansion?)")
    if depth > _MAX_DEPTH:
        raise InvalidPackage(f"{path}: YAML nested too deeply")
    if isinstance(node, dict):
        return {str(k): _jsonable(path, v, count, depth + 1)
                for k, v in node.items()}
    if isinstance(node, list):
        return [_jsonable(path, v, count, depth + 1) for v in node]
    if isinstance(node, (bytes, set)):
        raise InvalidPackage(
            f"{path}: binary or set values are not allowed in a VNFD")
    return node


@functools.cache
def bundled_types(name: str) -> dict[str, Any]:
    """Return vnfm's parsed copy of an ETSI SOL001 type file (parsed once)."""
    return parse_yaml(name, (_SOL001_DIR / name).read_bytes())


@functools.lru_cache(maxsize=16)
def _parse_etsi(path: str, data: bytes) -> Any:
    """Parse an ETSI type file in the package; packages repeat these bytes."""
    return parse_yaml(path, data)


class Definitions:
    """The entry definitions and everything they import, in load order."""

    def __init__(self, files: dict[str, bytes], entry: str) -> None:
        self.files = files
        self.entry = entry
        self.docs: dict[str, dict[str, Any]] = {}
        self.bundled: dict[str, dict[str, Any]] = {}
        self._load(entry, None)

    def package_docs(self) -> dict[str, dict[str, Any]]:
        """The package's own definition files, without ETSI type files."""
        return {p: d for p, d in self.docs.items() if not _is_etsi(d)}

    def all_docs(self) -> list[tuple[str, dict[str, Any]]]:
        """Every loaded document, package files first."""
        return [*self.docs.items(), *self.bundled.items()]

    def _load(self, path: str, importer: str | None) -> None:
        """Load one file and, depth first, its imports."""
        if path in self.docs:
            return
        data = self.files[path]
        if posixpath.basename(path) in ETSI_TYPE_FILES:
            doc = _parse_etsi(path, data)
        else:
            doc = parse_yaml(path, data)
        if not isinstance(doc, dict) or "tosca_definitions_version" not in doc:
            raise InvalidPackage(f"{path}: not a TOSCA definitions file "
                                 "(tosca_definitions_version is missing)")
        self.docs[path] = doc
        imports = doc.get("imports") or []
        if not isinstance(imports, list):
            raise InvalidPackage(f"{path}: 'imports' must be a list")
        for item in imports:
            self._import(path, item)

    def _import(self, importer: str, item: Any) -> None:
        """Resolve an import in the package, then in the bundled ETSI types."""
        ref = _import_ref(importer, item)
        base = posixpath.basename(ref)
        if "://" not in ref:
            target = posixpath.normpath(
                posixpath.join(posixpath.dirname(importer), ref))
            if target in self.files:
                self._load(target, importer)
                return
            if ref in self.files:
                self._load(ref, importer)
                return
        if base in ETSI_TYPE_FILES:
            self.bundled.setdefault(base, bundled_types(base))
            return
        if "://" in ref:
            raise InvalidPackage(f"{importer}: import '{ref}' is a URL; vnfm "
                                 "does not fetch imports, put the file in the "
                                 "package")
        raise InvalidPackage(
            f"{importer}: import '{ref}' is not in the package")


def _import_ref(importer: str, item: Any) -> str:
    """Return the file named by an import entry.

    An entry is a string, {file: x} or {name: {file: x}}.
    """
    if isinstance(item, dict) and "file" not in item and len(item) == 1:
        item = next(iter(item.values()))
    if isinstance(item, dict):
        item = item.get("file")
    if not isinstance(item, str) or not item:
        raise InvalidPackage(
            f"{importer}: cannot understand import entry {item!r}")
    return item


def _is_etsi(doc: dict[str, Any]) -> bool:
    """True for ETSI's own type files: not worth storing per package."""
    meta = doc.get("metadata")
    return isinstance(meta, dict) and meta.get("template_author") == "ETSI_NFV"
