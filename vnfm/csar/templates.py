"""Loading the VNFD's YAML definitions and following their imports.

Imports are followed inside the package only.
"""

import functools
import hashlib
import pathlib
import posixpath
from typing import Any

from vnfm.csar import bounded
from vnfm.csar.errors import InvalidPackage

# The ETSI SOL001 type files may be imported by URL or by a path absent from
# the package; vnfm then uses its own copies and never fetches anything from
# the network.
ETSI_TYPE_FILES = (
    'etsi_nfv_sol001_common_types.yaml',
    'etsi_nfv_sol001_vnfd_types.yaml',
)
_SOL001_DIR = pathlib.Path(__file__).parent / 'sol001'
# Bounds on what the definitions may cost to read beyond those of every
# document (bounded.DOCUMENT): nodes for the whole package, the length of
# an import chain.
_MAX_PACKAGE_NODES = 1_000_000
_MAX_IMPORT_DEPTH = 32
_ETSI_CACHE: dict[tuple[str, str], Any] = {}
_ETSI_CACHE_SIZE = 16


def parse_yaml(path: str, data: bytes, budget: list[int] | None = None) -> Any:
    """Parse one YAML document; errors name file, line and column.

    ``budget`` holds the nodes left for the package; it is spent.
    """
    try:
        return bounded.load_yaml(path, data, budget=budget)
    except bounded.TooManyNodes:
        if budget is None or budget[0] >= bounded.DOCUMENT.max_nodes:
            raise InvalidPackage(
                f'{path}: too many YAML nodes: more than '
                f'{bounded.DOCUMENT.max_nodes} in one file (alias expansion?)'
            ) from None
        raise InvalidPackage(
            f"{path}: too many YAML nodes: the package's definitions have "
            f'more than {_MAX_PACKAGE_NODES} in all (alias expansion?)'
        ) from None
    except bounded.BadDocument as e:
        raise InvalidPackage(e.detail) from None


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
