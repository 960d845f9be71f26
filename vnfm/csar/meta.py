"""TOSCA.meta and manifest parsing; declared artifacts, checksums (SOL004)."""

import dataclasses
import hashlib
import posixpath
from typing import Any

from vnfm.csar.errors import InvalidPackage

TOSCA_META = 'TOSCA-Metadata/TOSCA.meta'
# TOSCA.meta and manifests are a few lines per file of the package.
MAX_TEXT_BYTES = 8 * 1024 * 1024
_ALGORITHMS = {
    'SHA224': 'sha224',
    'SHA256': 'sha256',
    'SHA384': 'sha384',
    'SHA512': 'sha512',
}


@dataclasses.dataclass
class Artifact:
    """A file declared in TOSCA.meta or the manifest, and its checksum."""

    path: str
    checksum_algorithm: str | None = None
    checksum_hash: str | None = None
    metadata: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class PackageMeta:
    """What TOSCA.meta (or the option-2 root layout) says about the package."""

    entry_definitions: str
    manifest: str | None = None
    keys: dict[str, str] = dataclasses.field(default_factory=dict)
    artifacts: list[Artifact] = dataclasses.field(default_factory=list)


def read_package_meta(files: dict[str, bytes]) -> PackageMeta:
    """Find the entry definitions and manifest: TOSCA.meta or the root YAML."""
    if TOSCA_META in files:
        return _read_tosca_meta(files)
    return _root_layout(files)


def _read_tosca_meta(files: dict[str, bytes]) -> PackageMeta:
    """Parse TOSCA.meta: a first block of keys, then ``Name:`` artifacts."""
    keys, blocks = _parse_blocks(
        TOSCA_META, _text(TOSCA_META, files[TOSCA_META]), 'Name'
    )
    entry = keys.get('Entry-Definitions')
    if not entry:
        raise InvalidPackage(
            f'{TOSCA_META}: the Entry-Definitions key is missing'
        )
    if entry not in files:
        raise InvalidPackage(
            f"{TOSCA_META}: Entry-Definitions '{entry}' is not in the package"
        )
    for key in (
        'ETSI-Entry-Manifest',
        'ETSI-Entry-Change-Log',
        'ETSI-Entry-Licenses',
    ):
        path = keys.get(key)
        if (
            path
            and path not in files
            and not any(f.startswith(path.rstrip('/') + '/') for f in files)
        ):
            raise InvalidPackage(
                f"{TOSCA_META}: {key} '{path}' is not in the package"
            )
    artifacts = [_artifact(TOSCA_META, b, 'Name') for b in blocks]
    return PackageMeta(entry, keys.get('ETSI-Entry-Manifest'), keys, artifacts)


def _root_layout(files: dict[str, bytes]) -> PackageMeta:
    """CSAR option 2: exactly one root YAML with tosca_definitions_version."""
    roots = sorted(
        f
        for f in files
        if '/' not in f
        and f.endswith(('.yaml', '.yml'))
        and b'tosca_definitions_version' in files[f]
    )
    if len(roots) != 1:
        found = f'found {", ".join(roots)}' if roots else 'found none'
        hint = _single_dir_hint(files)
        raise InvalidPackage(
            f'package has no {TOSCA_META}, so it needs exactly one YAML file '
            f'with tosca_definitions_version at its root; {found}{hint}'
        )
    entry = roots[0]
    stem = entry.rsplit('.', 1)[0]
    manifests = sorted(f for f in files if '/' not in f and f.endswith('.mf'))
    manifest = (
        stem + '.mf'
        if stem + '.mf' in files
        else (manifests[0] if len(manifests) == 1 else None)
    )
    return PackageMeta(entry, manifest)


def _single_dir_hint(files: dict[str, bytes]) -> str:
    """Explain a common mistake: zipping the directory, not its contents."""
    tops = {f.split('/', 1)[0] for f in files}
    if len(tops) == 1 and all('/' in f for f in files):
        return (
            f" (every file is under '{tops.pop()}/': zip the contents of "
            'the package directory, not the directory itself)'
        )
    return ''


def read_manifest(
    path: str, files: dict[str, bytes]
) -> tuple[dict[str, Any], list[Artifact]]:
    """Parse a SOL004 manifest: ``metadata:`` and ``Source:`` blocks.

    Other sections are skipped.
    """
    metadata: dict[str, Any] = {}
    lines: list[str] = []
    section = None
    for line in _text(path, files[path]).splitlines():
        stripped = line.strip()
        if section == 'cms':
            section = None if stripped.startswith('-----END') else 'cms'
            continue
        if stripped.startswith('-----BEGIN'):
            section = 'cms'
        elif line[:1] in (' ', '\t') and section is not None:
            if section == 'metadata' and ':' in stripped:
                k, v = stripped.split(':', 1)
                metadata[k.strip()] = v.strip()
        elif stripped.endswith(':') and not stripped.startswith(
            ('Source:', 'Algorithm:', 'Hash:', 'URI:')
        ):
            section = 'metadata' if stripped == 'metadata:' else 'other'
        else:
            section = None
            lines.append(line)
    _, blocks = _parse_blocks(path, '\n'.join(lines), 'Source')
    return metadata, [_artifact(path, b, 'Source') for b in blocks]


def _parse_blocks(
    path: str, text: str, start_key: str
) -> tuple[dict[str, str], list[tuple[int, dict[str, str]]]]:
    """Split ``Key: value`` lines into leading keys and blocks.

    Each block starts with a ``start_key`` line.
    """
    keys: dict[str, str] = {}
    blocks: list[tuple[int, dict[str, str]]] = []
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith('#'):
            continue
        if ':' not in stripped:
            raise InvalidPackage(
                f"{path}: line {n}: expected 'Key: value', got {stripped!r}"
            )
        k, v = (s.strip() for s in stripped.split(':', 1))
        if k == start_key:
            blocks.append((n, {k: v}))
        elif blocks:
            blocks[-1][1][k] = v
        else:
            keys[k] = v
    return keys, blocks


def _artifact(
    path: str, block: tuple[int, dict[str, str]], name_key: str
) -> Artifact:
    """Build an Artifact from one block; a hash needs an algorithm."""
    line, values = block
    name = values.get(name_key, '')
    if not name:
        raise InvalidPackage(f'{path}: line {line}: {name_key} has no value')
    algorithm, digest = values.get('Algorithm'), values.get('Hash')
    if bool(algorithm) != bool(digest):
        raise InvalidPackage(
            f"{path}: line {line}: '{name}' needs both Algorithm and Hash"
        )
    if algorithm and _hash_name(algorithm) is None:
        raise InvalidPackage(
            f"{path}: line {line}: '{name}': unsupported "
            f"Algorithm '{algorithm}' (use SHA-224, SHA-256, "
            'SHA-384 or SHA-512)'
        )
    extra = {
        k: v
        for k, v in values.items()
        if k not in (name_key, 'Algorithm', 'Hash')
    }
    extra['declared_in'] = path
    return Artifact(name, algorithm, digest, extra)


def _hash_name(algorithm: str) -> str | None:
    """Map SOL004 spellings (SHA-256, sha256, SHA_256) to a hashlib name."""
    return _ALGORITHMS.get(algorithm.upper().replace('-', '').replace('_', ''))


def verify_artifacts(
    artifacts: list[Artifact], files: dict[str, bytes]
) -> None:
    """Check that every declared artifact exists and matches its hash."""
    for a in artifacts:
        if '://' in a.path:
            continue
        where = a.metadata.get('declared_in', 'package')
        path = posixpath.normpath(a.path)
        if path not in files:
            raise InvalidPackage(
                f"{where}: artifact '{a.path}' is not in the package"
            )
        if a.checksum_algorithm and a.checksum_hash:
            name = _hash_name(a.checksum_algorithm)
            actual = hashlib.new(name or 'sha256', files[path]).hexdigest()
            if actual.lower() != a.checksum_hash.strip().lower():
                raise InvalidPackage(
                    f"{where}: hash mismatch for '{a.path}': declared "
                    f'{a.checksum_algorithm} {a.checksum_hash}, '
                    f'actual {actual}'
                )


def merge_artifacts(*groups: list[Artifact]) -> list[Artifact]:
    """Merge artifact lists by path; a later declaration only fills gaps."""
    merged: dict[str, Artifact] = {}
    for group in groups:
        for a in group:
            old = merged.get(a.path)
            if old is None:
                merged[a.path] = Artifact(
                    a.path,
                    a.checksum_algorithm,
                    a.checksum_hash,
                    dict(a.metadata),
                )
                continue
            if not old.checksum_hash:
                (old.checksum_algorithm, old.checksum_hash) = (
                    a.checksum_algorithm,
                    a.checksum_hash,
                )
            for k, v in a.metadata.items():
                old.metadata.setdefault(k, v)
    return list(merged.values())


def _text(path: str, data: bytes) -> str:
    """Decode a UTF-8 text file of the package."""
    if len(data) > MAX_TEXT_BYTES:
        raise InvalidPackage(
            f'{path}: {len(data)} bytes, larger than the '
            f'limit of {MAX_TEXT_BYTES} bytes'
        )
    try:
        return data.decode('utf-8-sig')
    except UnicodeDecodeError as e:
        raise InvalidPackage(f'{path}: not valid UTF-8 text ({e})') from None
