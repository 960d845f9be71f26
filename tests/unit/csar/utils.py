"""Helpers for the csar tests: zips built in memory and the sample packages."""

import io
import pathlib
import zipfile

from vnfm.csar.build import build_csar

SAMPLES = pathlib.Path(__file__).resolve().parents[3] / 'samples' / 'packages'
NOOP_VNFD_ID = 'b1bb0ce7-ebca-4fa7-95ed-4840d70a1177'
NOOP_V2_VNFD_ID = '5f5a0a9e-6d2b-4b4f-9a7c-4840d70a1278'


def make_zip(
    entries: dict[str, bytes | str], compress: int = zipfile.ZIP_DEFLATED
) -> bytes:
    """A zip with these files, in this order."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', compress) as zf:
        for name, data in entries.items():
            zf.writestr(name, data.encode() if isinstance(data, str) else data)
    return buf.getvalue()


def sample_files(name: str = 'noop_vnf') -> dict[str, bytes]:
    """The files of a built sample package, to be modified and zipped again."""
    with zipfile.ZipFile(io.BytesIO(build_csar(str(SAMPLES / name)))) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def replace(
    files: dict[str, bytes], path: str, old: str, new: str
) -> dict[str, bytes]:
    """A copy of ``files`` with one text substitution in ``path``.

    ``old`` must be in the file.
    """
    text = files[path].decode()
    assert old in text, f'{old!r} not in {path}'
    return {**files, path: text.replace(old, new).encode()}
