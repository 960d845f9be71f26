"""A corpus of hostile VNF packages, generated (no binary fixtures).

Each case is a zip built from a valid package (the files of a sample) with
one thing made hostile, and a fragment the onboardingFailureDetails must
contain. Names that try to escape the package contain ``MARK`` (unique per
run), so a test can look for them around the package afterwards.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import hashlib
import io
import os
import random
import struct
import uuid
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

MARK = f'hostile-escape-{uuid.uuid4().hex[:12]}'
TOP = 'Definitions/noop_top.vnfd.yaml'
FLAVOUR = 'Definitions/noop_df_simple.yaml'
META = 'TOSCA-Metadata/TOSCA.meta'
SCRIPT = 'Scripts/record_hook.py'
_HEADER = 'tosca_definitions_version: tosca_simple_yaml_1_2\n'
_REGULAR = 0o100644


@dataclasses.dataclass(frozen=True)
class Hostile:
    """One hostile package and what its failure detail must say."""

    name: str
    data: bytes
    detail: str | tuple[str, ...]

    def fragments(self) -> tuple[str, ...]:
        """The texts the failure detail must contain."""
        return (self.detail,) if isinstance(self.detail, str) else self.detail


@dataclasses.dataclass(frozen=True)
class Entry:
    """One zip entry with full control of its mode and flags."""

    name: str
    data: bytes = b'x'
    mode: int = _REGULAR
    flags: int = 0


def zip_entries(
    entries: list[Entry], compress: int = zipfile.ZIP_DEFLATED
) -> bytes:
    """A zip of ``entries`` in order (duplicates kept), flags patched in."""
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, 'w', compress) as zf:
        warnings.simplefilter('ignore')  # duplicate names are the point
        for entry in entries:
            info = zipfile.ZipInfo(entry.name, (1980, 1, 1, 0, 0, 0))
            info.external_attr = entry.mode << 16
            info.create_system = 3
            info.compress_type = compress
            zf.writestr(info, entry.data)
    data = bytearray(buf.getvalue())
    for index, entry in enumerate(entries):
        if entry.flags:
            _patch_flags(data, index, entry.flags)
    return bytes(data)


def _patch_flags(data: bytearray, index: int, flags: int) -> None:
    """OR ``flags`` into the general purpose flags of entry ``index``."""
    for sig, off in ((b'PK\x03\x04', 6), (b'PK\x01\x02', 8)):
        pos = -1
        for _ in range(index + 1):
            pos = data.find(sig, pos + 1)
        old = struct.unpack_from('<H', data, pos + off)[0]
        struct.pack_into('<H', data, pos + off, old | flags)


def package(
    files: dict[str, bytes],
    extra: list[Entry] | None = None,
    compress: int = zipfile.ZIP_DEFLATED,
) -> bytes:
    """The zip of ``files`` (regular entries) plus ``extra`` entries."""
    return zip_entries(
        [Entry(n, d) for n, d in files.items()] + (extra or []), compress
    )


def _text(
    files: dict[str, bytes], path: str, old: str, new: str
) -> dict[str, bytes]:
    text = files[path].decode()
    assert old in text, f'{old!r} not in {path}: the sample changed'
    return {**files, path: text.replace(old, new).encode()}


def _imports(files: dict[str, bytes], *names: str) -> dict[str, bytes]:
    """``files`` whose top VNFD also imports ``names``."""
    extra = ''.join(f'  - {n}\n' for n in names)
    return _text(
        files,
        TOP,
        '  - noop_df_simple.yaml\n',
        '  - noop_df_simple.yaml\n' + extra,
    )


@functools.cache
def _random_text(size: int) -> str:
    """``size`` characters that do not compress (no zip-bomb ratio)."""
    rng = random.Random(size)
    return base64.b64encode(rng.randbytes(size * 3 // 4 + 3)).decode()[:size]


def _replace_bytes(data: bytes, old: bytes, new: bytes) -> bytes:
    assert len(old) == len(new) and data.count(old) == 2
    return data.replace(old, new)


# -- the zip itself ---------------------------------------------------------


def _names(base: dict[str, bytes]) -> list[Hostile]:
    dots = "('.', '..' or empty path component)"
    cases = [
        ('zip-slip-parent', f'../{MARK}', dots),
        ('zip-slip-nested', f'Definitions/../../{MARK}', dots),
        ('zip-slip-deep', 'a/' * 20 + '../' * 40 + MARK, dots),
        ('absolute-path', f'/tmp/{MARK}', '(absolute path)'),
        ('drive-letter', f'C:/{MARK}', '(absolute path)'),
        ('backslash', f'..\\..\\{MARK}', '(backslash)'),
        (
            'option-like-name',
            f'-cimport os;open("{MARK}","w")',
            "starts with '-')",
        ),
        ('option-like-dir', f'Scripts/--{MARK}/hook.py', "starts with '-')"),
        (
            'control-character',
            f'Scripts/{MARK}\n.py',
            "(character '\\n' is not allowed)",
        ),
        (
            'escape-sequence',
            f'Scripts/\x1b[8m{MARK}.py',
            "(character '\\x1b' is not allowed)",
        ),
        (
            'long-component',
            'Files/' + 'a' * 300,
            '(a component is longer than 255 characters)',
        ),
    ]
    return [
        Hostile(
            name,
            package(base, [Entry(path)]),
            f'unsafe file name in package {reason}'
            if reason.startswith('(')
            else reason,
        )
        for name, path, reason in cases
    ]


def _special_files(base: dict[str, bytes]) -> list[Hostile]:
    kinds = [
        ('symlink', 0o120777, 'symbolic links are not allowed'),
        ('char-device', 0o020644, 'only regular files are allowed'),
        ('block-device', 0o060644, 'only regular files are allowed'),
        ('fifo', 0o010644, 'only regular files are allowed'),
        ('socket', 0o140644, 'only regular files are allowed'),
    ]
    return [
        Hostile(
            name,
            package(base, [Entry(f'Files/{MARK}', b'/etc/passwd', mode=mode)]),
            detail,
        )
        for name, mode, detail in kinds
    ] + [
        Hostile(
            'symlinked-definitions',
            package(
                {k: v for k, v in base.items() if k != FLAVOUR},
                [Entry(FLAVOUR, b'/etc/passwd', mode=0o120777)],
            ),
            'symbolic links are not allowed',
        ),
        Hostile(
            'encrypted-entry',
            package(base, [Entry('Files/secret', b'x', flags=0x1)]),
            'encrypted zip entries are not supported',
        ),
    ]


def _non_utf8_names(base: dict[str, bytes]) -> list[Hostile]:
    plain = package(base, [Entry('Files/XXX.txt')])
    latin1 = _replace_bytes(plain, b'Files/XXX.txt', b'Files/\xe9t\xe9.txt')
    flagged = package(base, [Entry('Files/XXX.txt', flags=0x800)])
    flagged = _replace_bytes(
        flagged, b'Files/XXX.txt', b'Files/\xff\xfe\xfd.txt'
    )
    return [
        Hostile('non-utf8-name', latin1, 'is not allowed'),
        Hostile(
            'invalid-utf8-name',
            flagged,
            'a file name marked as UTF-8 that is not valid UTF-8',
        ),
    ]


def _duplicates(base: dict[str, bytes]) -> list[Hostile]:
    evil = b"raise SystemExit('second copy')\n"
    return [
        Hostile(
            'duplicate-entry',
            package(base, [Entry(SCRIPT, evil)]),
            f'{SCRIPT}: the name appears twice in the package',
        ),
        Hostile(
            'file-and-directory',
            package(base, [Entry('Scripts/record_hook.py/x.py')]),
            f"'{SCRIPT}': the name is both a file and a directory",
        ),
    ]


def _bombs(base: dict[str, bytes]) -> list[Hostile]:
    lying = bytearray(package(base, [Entry('Files/big', b'\0' * 300000)]))
    # Declare 1000 bytes for the last entry; its stream holds 300000.
    for sig, off in ((b'PK\x03\x04', 22), (b'PK\x01\x02', 24)):
        pos = lying.rfind(sig)
        struct.pack_into('<I', lying, pos + off, 1000)
    many = zip_entries([Entry(f'Files/f{i}', b'') for i in range(10001)])
    return [
        Hostile(
            'zip-bomb-ratio',
            package(base, [Entry('Files/zeros', b'\0' * (8 << 20))]),
            'Files/zeros: compression ratio over 100',
        ),
        Hostile(
            'zip-bomb-total',
            package(
                base, [Entry(f'Files/z{i}', b'\0' * 60000) for i in range(200)]
            ),
            'package compression ratio over 100',
        ),
        Hostile(
            'zip-bomb-lying-size',
            bytes(lying),
            ('Files/big: cannot be decompressed', 'the package is corrupt'),
        ),
        Hostile('zip-bomb-overlapping-entries', _overlapping(base), 'Files/'),
        Hostile(
            'too-many-entries',
            many,
            '10001 entries, more than the limit of 10000',
        ),
        Hostile(
            'not-a-zip',
            b'PK\x03\x04' + b'\0' * 100,
            'package is not a valid zip file',
        ),
        Hostile(
            'truncated-zip',
            package(base)[:-200],
            'package is not a valid zip file',
        ),
    ]


def _overlapping(base: dict[str, bytes]) -> bytes:
    """A zip whose central directory names 50 entries that all point at the
    same compressed kernel (a non-recursive zip bomb)."""
    kernel = b'\0' * (1 << 20)
    data = zip_entries(
        [Entry(n, d) for n, d in base.items()]
        + [
            Entry(f'Files/k{i:02d}', kernel if i == 0 else b'')
            for i in range(50)
        ]
    )
    buf = bytearray(data)
    first = buf.find(b'Files/k00') - 30  # its local header
    assert buf[first : first + 4] == b'PK\x03\x04'
    sizes = buf[first + 14 : first + 26]  # crc, compressed and file size
    pos = buf.find(b'PK\x01\x02')
    while pos != -1:
        name_len = struct.unpack_from('<H', buf, pos + 28)[0]
        name = bytes(buf[pos + 46 : pos + 46 + name_len])
        if name.startswith(b'Files/k'):
            buf[pos + 16 : pos + 28] = sizes
            struct.pack_into('<I', buf, pos + 42, first)
        pos = buf.find(b'PK\x01\x02', pos + 4)
    return bytes(buf)


# -- what is in it ----------------------------------------------------------


def _yaml_bombs(base: dict[str, bytes]) -> list[Hostile]:
    laughs = _HEADER + 'a: &a ["lol","lol","lol","lol","lol","lol","lol"]\n'
    for level in range(1, 10):
        prev = chr(ord('a') + level - 1)
        cur = chr(ord('a') + level)
        laughs += f'{cur}: &{cur} [' + ','.join([f'*{prev}'] * 9) + ']\n'
    # Ten files of ~150,000 nodes each: under the per-file limit, over the
    # package's.
    medium = (
        _HEADER + 'a: &a [' + ','.join(['1'] * 50) + ']\n'
        'b: &b [' + ','.join(['*a'] * 50) + ']\n'
        'c: [' + ','.join(['*b'] * 58) + ']\n'
    )
    medium_files = {
        f'Definitions/m{i}.yaml': medium.encode() for i in range(10)
    }
    deep = _HEADER + 'x: ' + '[' * 5000 + ']' * 5000 + '\n'
    return [
        Hostile(
            'billion-laughs',
            package(
                {
                    **_imports(base, 'laughs.yaml'),
                    'Definitions/laughs.yaml': laughs.encode(),
                }
            ),
            'Definitions/laughs.yaml: too many YAML nodes: more than '
            '200000 in one file (alias expansion?)',
        ),
        Hostile(
            'laughs-across-files',
            package(
                {
                    **_imports(base, *(f'm{i}.yaml' for i in range(10))),
                    **medium_files,
                }
            ),
            "too many YAML nodes: the package's definitions have more "
            'than 1000000 in all',
        ),
        Hostile(
            'deep-nesting',
            package(
                {
                    **_imports(base, 'deep.yaml'),
                    'Definitions/deep.yaml': deep.encode(),
                }
            ),
            'Definitions/deep.yaml: YAML nested too deeply',
        ),
    ]


def _huge_values(base: dict[str, bytes]) -> list[Hostile]:
    scalar = _random_text(2 << 20)
    huge_file = _HEADER + '# ' + _random_text(9 << 20) + '\n'
    digits = ''.join(random.Random(7).choices('123456789', k=100000))
    return [
        Hostile(
            'huge-scalar',
            package(
                _text(
                    base,
                    TOP,
                    'description: Sample VNF',
                    f'description: {scalar}',
                )
            ),
            (
                f'{TOP}: YAML with a string of ',
                ' characters, longer than the limit of 1048576',
            ),
        ),
        Hostile(
            'huge-definitions-file',
            package(
                {
                    **_imports(base, 'huge.yaml'),
                    'Definitions/huge.yaml': huge_file.encode(),
                },
                compress=zipfile.ZIP_STORED,
            ),
            (
                'Definitions/huge.yaml: ',
                ' bytes, larger than the limit of 8388608 bytes',
            ),
        ),
        Hostile(
            'huge-integer',
            package(
                _text(
                    base,
                    TOP,
                    "descriptor_version: '1.0'",
                    f'descriptor_version: {digits}',
                )
            ),
            f'{TOP}: a YAML value cannot be read: Exceeds the limit',
        ),
        Hostile(
            'huge-tosca-meta',
            package(
                {
                    **base,
                    META: base[META]
                    + b'# '
                    + _random_text(9 << 20).encode()
                    + b'\n',
                },
                compress=zipfile.ZIP_STORED,
            ),
            (f'{META}: ', ' bytes, larger than the limit of 8388608 bytes'),
        ),
    ]


def _encodings(base: dict[str, bytes]) -> list[Hostile]:
    latin1 = base[TOP].replace(
        b'Sample VNF', 'Sample VNF \xe9t\xe9'.encode('latin-1')
    )
    return [
        Hostile(
            'non-utf8-yaml',
            package({**base, TOP: latin1}),
            f'{TOP}: YAML error',
        ),
        Hostile(
            'non-utf8-tosca-meta',
            package({**base, META: base[META] + b'X-Note: \xe9\xff\n'}),
            f'{META}: not valid UTF-8 text',
        ),
    ]


def _imports_cases(base: dict[str, bytes]) -> list[Hostile]:
    chain = {
        f'Definitions/c{i}.yaml': (
            _HEADER + f'imports:\n  - c{i + 1}.yaml\n'
        ).encode()
        for i in range(40)
    }
    chain['Definitions/c40.yaml'] = _HEADER.encode()
    loop = {
        'Definitions/r1.yaml': (_HEADER + 'imports: [r2.yaml]\n').encode(),
        'Definitions/r2.yaml': (_HEADER + 'imports: [r1.yaml]\n').encode(),
    }
    return [
        Hostile(
            'deeply-nested-imports',
            package({**_imports(base, 'c0.yaml'), **chain}),
            'imports nested more than 32 deep',
        ),
        Hostile(
            'recursive-imports',
            package({**_imports(base, 'r1.yaml'), **loop}),
            'import cycle: Definitions/r1.yaml -> Definitions/r2.yaml -> '
            'Definitions/r1.yaml',
        ),
        Hostile(
            'self-import',
            package(_imports(base, 'noop_top.vnfd.yaml')),
            f'import cycle: {TOP} -> {TOP}',
        ),
        Hostile(
            'import-outside-package',
            package(_imports(base, f'../../../../tmp/{MARK}.yaml')),
            f"import '../../../../tmp/{MARK}.yaml' is not in the package",
        ),
        Hostile(
            'import-by-url',
            package(_imports(base, 'http://198.18.0.1/x.yaml')),
            'is a URL; vnfm does not fetch imports',
        ),
        Hostile(
            'entry-definitions-outside',
            package(
                {
                    **base,
                    META: base[META].replace(
                        b'Entry-Definitions: Definitions/noop_top.vnfd.yaml',
                        b'Entry-Definitions: ../../../etc/passwd',
                    ),
                }
            ),
            "Entry-Definitions '../../../etc/passwd' is not in the package",
        ),
        Hostile(
            'hook-outside-package',
            package(
                _text(
                    base,
                    FLAVOUR,
                    'file: Scripts/record_hook.py',
                    'file: ../../../../usr/bin/python3',
                )
            ),
            "names file '../../../../usr/bin/python3', which is not in "
            'the package',
        ),
    ]


def _lies(base: dict[str, bytes]) -> list[Hostile]:
    meta = base[META].decode()
    good = hashlib.sha256(base[SCRIPT]).hexdigest()
    assert good in meta, "the sample's TOSCA.meta has no script hash"
    bad = hashlib.sha256(b'something else').hexdigest()
    manifest = (
        f'metadata:\n  vnf_product_name: x\nSource: {SCRIPT}\n'
        f'Algorithm: SHA-256\nHash: {bad}\n'
    )
    with_manifest = {
        **base,
        'noop.mf': manifest.encode(),
        META: (meta + 'ETSI-Entry-Manifest: noop.mf\n').encode(),
    }
    # The manifest key belongs to the first block of TOSCA.meta.
    first, rest = meta.split('\n\n', 1)
    with_manifest[META] = (
        first + '\nETSI-Entry-Manifest: noop.mf\n\n' + rest
    ).encode()
    return [
        Hostile(
            'tosca-meta-lies-about-hash',
            package({**base, META: meta.replace(good, bad).encode()}),
            f"{META}: hash mismatch for '{SCRIPT}'",
        ),
        Hostile(
            'script-swapped-after-hashing',
            package({**base, SCRIPT: base[SCRIPT] + b'\nimport os\n'}),
            f"{META}: hash mismatch for '{SCRIPT}'",
        ),
        Hostile(
            'manifest-lies-about-hash',
            package(with_manifest),
            f"noop.mf: hash mismatch for '{SCRIPT}'",
        ),
        Hostile(
            'tosca-meta-declares-missing-file',
            package(
                {
                    **base,
                    META: (
                        meta + f'\nName: Files/{MARK}\n'
                        'Algorithm: SHA-256\n'
                        f'Hash: {bad}\n'
                    ).encode(),
                }
            ),
            f"artifact 'Files/{MARK}' is not in the package",
        ),
    ]


GROUPS: list[Callable[[dict[str, bytes]], list[Hostile]]] = [
    _names,
    _special_files,
    _non_utf8_names,
    _duplicates,
    _bombs,
    _yaml_bombs,
    _huge_values,
    _encodings,
    _imports_cases,
    _lies,
]


def corpus(base: dict[str, bytes]) -> list[Hostile]:
    """Every hostile package built from the files of a valid one."""
    cases = [case for group in GROUPS for case in group(base)]
    assert len({c.name for c in cases}) == len(cases)
    return cases


def escaped(*roots: Path) -> list[str]:
    """Files named after MARK in or just below ``roots``."""
    found = []
    for root in roots:
        for entry in _entries(root):
            if entry.name.startswith(MARK):
                found.append(entry.path)
            elif entry.is_dir(follow_symlinks=False):
                found += [
                    e.path
                    for e in _entries(Path(entry.path))
                    if e.name.startswith(MARK)
                ]
    return found


def _entries(directory: Path) -> list[os.DirEntry]:
    """The entries of ``directory``; none when it went away or is closed
    to us (other processes create and remove directories in /tmp)."""
    try:
        with os.scandir(directory) as it:
            return list(it)
    except OSError:
        return []
