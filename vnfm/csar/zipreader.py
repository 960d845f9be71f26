"""Safe CSAR zip reading: limits, zip-slip, symlinks, encryption, zip bombs.

Every name in the package must follow ``PATH_RULE``: hook scripts and other
files are handed to programs by path, and a name such as ``-cimport os``
would be read as an option, a control character or a non-ASCII look-alike
would hide what a file is.
"""

import dataclasses
import io
import re
import stat
import zipfile
import zlib

from vnfm.csar.errors import InvalidPackage

MiB = 1024 * 1024
# Below this size a file (or the whole package) is not checked for its
# compression ratio: small text files of repeated characters compress very well
# and are harmless.
RATIO_FLOOR = 64 * 1024
_CHUNK = 64 * 1024
_DRIVE = re.compile(r'^[A-Za-z]:')
MAX_PATH = 1024
MAX_COMPONENT = 255
# Anything but the characters PATH_RULE allows.
_BAD_CHAR = re.compile(r'[^A-Za-z0-9._+@=,~-]')
PATH_RULE = (
    "a package path is a relative path of '/'-separated names made "
    'of ASCII letters, digits and . _ - + @ = , ~ (no spaces or '
    "control characters), none of them starting with '-' or being "
    "'.' or '..'"
)


@dataclasses.dataclass(frozen=True)
class CsarLimits:
    """Upper bounds applied to an uploaded package."""

    max_size: int = 200 * MiB
    max_uncompressed: int = 1024 * MiB
    max_ratio: int = 100
    max_files: int = 10000


def read_zip(data: bytes, limits: CsarLimits) -> dict[str, bytes]:
    """Return the regular files of a zip archive, refusing anything unsafe."""
    if len(data) > limits.max_size:
        raise InvalidPackage(
            f'package is {len(data)} bytes, larger than the limit of '
            f'{limits.max_size}'
        )
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except UnicodeDecodeError:
        raise InvalidPackage(
            'package has a file name marked as UTF-8 that is not valid '
            f'UTF-8; {PATH_RULE}'
        ) from None
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        ValueError,
        OSError,
    ) as e:
        raise InvalidPackage(f'package is not a valid zip file: {e}') from None
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_files:
            raise InvalidPackage(
                f'package has {len(infos)} entries, more than the limit of '
                f'{limits.max_files}'
            )
        files = [i for i in infos if _check_entry(i)]
        _check_tree(files, [i for i in infos if i.is_dir()])
        _check_declared_sizes(files, len(data), limits)
        return _extract(zf, files, len(data), limits)


def _check_entry(info: zipfile.ZipInfo) -> bool:
    """Validate one entry; True for a regular file, False for a directory."""
    name = info.filename
    _check_name(name)
    if info.flag_bits & 0x1:
        raise InvalidPackage(
            f'{name}: encrypted zip entries are not supported'
        )
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise InvalidPackage(
            f'{name}: symbolic links are not allowed in a package'
        )
    if info.is_dir():
        return False
    if stat.S_IFMT(mode) and not stat.S_ISREG(mode):
        raise InvalidPackage(
            f'{name}: only regular files are allowed in a package'
        )
    return True


def _check_name(name: str) -> None:
    """Refuse a name that is not a plain relative path (``PATH_RULE``)."""
    reason = _name_problem(name)
    if reason:
        raise InvalidPackage(
            f'{_shown(name)}: unsafe file name in package '
            f'({reason}); {PATH_RULE}'
        )


def _name_problem(name: str) -> str | None:
    """Why ``name`` breaks ``PATH_RULE``, or None."""
    if not name:
        return 'empty name'
    if len(name) > MAX_PATH:
        return f'longer than {MAX_PATH} characters'
    if name.startswith('/') or _DRIVE.match(name):
        return 'absolute path'
    if '\\' in name:
        return 'backslash'
    for part in name.removesuffix('/').split('/'):
        if part in ('', '.', '..'):
            return "'.', '..' or empty path component"
        if part.startswith('-'):
            return f"component {_shown(part)} starts with '-'"
        if len(part) > MAX_COMPONENT:
            return f'a component is longer than {MAX_COMPONENT} characters'
        bad = _BAD_CHAR.search(part)
        if bad:
            return f'character {bad.group()!r} is not allowed'
    return None


def _shown(name: str) -> str:
    """A name as it may appear in a detail: escaped and not too long."""
    shown = repr(name)
    return shown if len(shown) <= 120 else shown[:100] + "...'"


def _check_tree(
    files: list[zipfile.ZipInfo], dirs: list[zipfile.ZipInfo]
) -> None:
    """Refuse a path that is a file and also the directory of another."""
    names = {i.filename for i in files}
    parents = {i.filename.removesuffix('/') for i in dirs}
    for name in names:
        parts = name.split('/')
        parents.update('/'.join(parts[:n]) for n in range(1, len(parts)))
    clash = sorted(names & parents)
    if clash:
        raise InvalidPackage(
            f'{_shown(clash[0])}: the name is both a file and a directory '
            'in the package'
        )


def _check_declared_sizes(
    files: list[zipfile.ZipInfo], size: int, limits: CsarLimits
) -> None:
    """Refuse duplicates, and packages whose declared sizes exceed limits."""
    seen: set[str] = set()
    total = 0
    for info in files:
        if info.filename in seen:
            raise InvalidPackage(
                f'{info.filename}: the name appears twice in the package'
            )
        seen.add(info.filename)
        _check_ratio(info.filename, info.file_size, info.compress_size, limits)
        total += info.file_size
    _check_total(total, size, limits)


def _check_ratio(
    name: str, uncompressed: int, compressed: int, limits: CsarLimits
) -> None:
    """Refuse a file that expands more than ``max_ratio`` times."""
    if uncompressed > RATIO_FLOOR and uncompressed > limits.max_ratio * max(
        compressed, 1
    ):
        raise InvalidPackage(
            f'{name}: compression ratio over {limits.max_ratio} '
            f'({uncompressed} bytes from {compressed}); the package looks '
            'like a zip bomb'
        )


def _check_total(total: int, size: int, limits: CsarLimits) -> None:
    """Refuse a package whose files add up to more than the limits allow."""
    if total > limits.max_uncompressed:
        raise InvalidPackage(
            f'package expands to more than {limits.max_uncompressed} bytes'
        )
    if total > RATIO_FLOOR and total > limits.max_ratio * max(size, 1):
        raise InvalidPackage(
            f'package compression ratio over {limits.max_ratio} ({total} '
            f'bytes from {size}); the package looks like a zip bomb'
        )


def _extract(
    zf: zipfile.ZipFile,
    files: list[zipfile.ZipInfo],
    size: int,
    limits: CsarLimits,
) -> dict[str, bytes]:
    """Decompress every file, counting real bytes: declared sizes can lie."""
    out: dict[str, bytes] = {}
    total = 0
    for info in files:
        cap = min(info.file_size, limits.max_uncompressed - total)
        try:
            content = _read_capped(zf, info, cap)
        except (
            zipfile.BadZipFile,
            zlib.error,
            EOFError,
            OSError,
            NotImplementedError,
            RuntimeError,
        ) as e:
            raise InvalidPackage(
                f'{info.filename}: cannot be decompressed ({e}); the package '
                'is corrupt, build it again'
            ) from None
        if content is None:
            raise InvalidPackage(
                f'{info.filename}: decompresses to more bytes than declared '
                'or allowed; the package is corrupt or a zip bomb'
            )
        _check_ratio(info.filename, len(content), info.compress_size, limits)
        total += len(content)
        _check_total(total, size, limits)
        out[info.filename] = content
    return out


def _read_capped(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, cap: int
) -> bytes | None:
    """Read one member; None as soon as it yields more than ``cap`` bytes."""
    buf = bytearray()
    with zf.open(info) as f:
        while chunk := f.read(min(_CHUNK, cap - len(buf) + 1)):
            buf += chunk
            if len(buf) > cap:
                return None
    return bytes(buf)
