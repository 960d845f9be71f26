"""Safe CSAR zip reading: limits, zip-slip, symlinks, encryption, zip bombs."""

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
_DRIVE = re.compile(r"^[A-Za-z]:")


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
            f"package is {len(data)} bytes, larger than the limit of "
            f"{limits.max_size}")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError,
            OSError) as e:
        raise InvalidPackage(f"package is not a valid zip file: {e}") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_files:
            raise InvalidPackage(
                f"package has {len(infos)} entries, more than the limit of "
                f"{limits.max_files}")
        files = [i for i in infos if _check_entry(i)]
        _check_declared_sizes(files, len(data), limits)
        return _extract(zf, files, len(data), limits)


def _check_entry(info: zipfile.ZipInfo) -> bool:
    """Validate one entry; True for a regular file, False for a directory."""
    name = info.filename
    _check_name(name)
    if info.flag_bits & 0x1:
        raise InvalidPackage(
            f"{name}: encrypted zip entries are not supported")
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise InvalidPackage(
            f"{name}: symbolic links are not allowed in a package")
    if info.is_dir():
        return False
    if stat.S_IFMT(mode) and not stat.S_ISREG(mode):
        raise InvalidPackage(
            f"{name}: only regular files are allowed in a package")
    return True


def _check_name(name: str) -> None:
    """Refuse names that could escape the extraction directory."""
    if (not name or "\\" in name or "\x00" in name or name.startswith("/")
            or _DRIVE.match(name)):
        raise InvalidPackage(f"{name!r}: unsafe file name in package "
                             "(absolute path, backslash or drive letter)")
    parts = name.rstrip("/").split("/")
    if any(p in ("", ".", "..") for p in parts):
        raise InvalidPackage(f"{name!r}: unsafe file name in package ('.', "
                             "'..' or empty path component)")


def _check_declared_sizes(files: list[zipfile.ZipInfo], size: int,
                          limits: CsarLimits) -> None:
    """Refuse duplicates, and packages whose declared sizes exceed limits."""
    seen: set[str] = set()
    total = 0
    for info in files:
        if info.filename in seen:
            raise InvalidPackage(
                f"{info.filename}: the name appears twice in the package")
        seen.add(info.filename)
        _check_ratio(info.filename, info.file_size, info.compress_size,
                     limits)
        total += info.file_size
    _check_total(total, size, limits)


def _check_ratio(name: str, uncompressed: int, compressed: int,
                 limits: CsarLimits) -> None:
    """Refuse a file that expands more than ``max_ratio`` times."""
    if (uncompressed > RATIO_FLOOR
            and uncompressed > limits.max_ratio * max(compressed, 1)):
        raise InvalidPackage(
            f"{name}: compression ratio over {limits.max_ratio} "
            f"({uncompressed} bytes from {compressed}); the package looks "
            "like a zip bomb")


def _check_total(total: int, size: int, limits: CsarLimits) -> None:
    """Refuse a package whose files add up to more than the limits allow."""
    if total > limits.max_uncompressed:
        raise InvalidPackage(f"package expands to more than "
                             f"{limits.max_uncompressed} bytes")
    if total > RATIO_FLOOR and total > limits.max_ratio * max(size, 1):
        raise InvalidPackage(
            f"package compression ratio over {limits.max_ratio} ({total} "
            f"bytes from {size}); the package looks like a zip bomb")


def _extract(zf: zipfile.ZipFile, files: list[zipfile.ZipInfo], size: int,
             limits: CsarLimits) -> dict[str, bytes]:
    """Decompress every file, counting real bytes: declared sizes can lie."""
    out: dict[str, bytes] = {}
    total = 0
    for info in files:
        cap = min(info.file_size, limits.max_uncompressed - total)
        try:
            content = _read_capped(zf, info, cap)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError,
                NotImplementedError, RuntimeError) as e:
            raise InvalidPackage(
                f"{info.filename}: cannot be decompressed: {e}") from None
        if content is None:
            raise InvalidPackage(
                f"{info.filename}: decompresses to more bytes than declared "
                "or allowed; the package is corrupt or a zip bomb")
        _check_ratio(info.filename, len(content), info.compress_size, limits)
        total += len(content)
        _check_total(total, size, limits)
        out[info.filename] = content
    return out


def _read_capped(zf: zipfile.ZipFile, info: zipfile.ZipInfo,
                 cap: int) -> bytes | None:
    """Read one member; None as soon as it yields more than ``cap`` bytes."""
    buf = bytearray()
    with zf.open(info) as f:
        while chunk := f.read(min(_CHUNK, cap - len(buf) + 1)):
            buf += chunk
            if len(buf) > cap:
                return None
    return bytes(buf)
