"""Tests for vnfm.csar.zipreader."""

import io
import struct
import warnings
import zipfile

import pytest

from vnfm.csar import CsarLimits
from vnfm.csar import InvalidPackage
from vnfm.csar.zipreader import read_zip

from .utils import make_zip

LIMITS = CsarLimits()


def _raw_zip(
    name: str, data: bytes, attr: int = 0o100644 << 16, flags: int = 0
) -> bytes:
    """A one-entry zip with full control of the entry's attributes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        info = zipfile.ZipInfo(name)
        info.external_attr = attr
        info.create_system = 3
        zf.writestr(info, data)
    raw = bytearray(buf.getvalue())
    if flags:
        for sig, off in ((b'PK\x03\x04', 6), (b'PK\x01\x02', 8)):
            pos = raw.find(sig)
            raw[pos + off : pos + off + 2] = struct.pack('<H', flags)
    return bytes(raw)


def test_regular_files_are_returned_and_directories_skipped():
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        zf.mkdir('Definitions')
        zf.writestr('Definitions/a.yaml', 'x: 1')
    assert read_zip(buf.getvalue(), LIMITS) == {'Definitions/a.yaml': b'x: 1'}


def test_not_a_zip():
    with pytest.raises(InvalidPackage, match='not a valid zip'):
        read_zip(b'this is not a zip file', LIMITS)


def test_over_max_size():
    data = make_zip({'a': 'x' * 100})
    with pytest.raises(InvalidPackage, match='larger than the limit'):
        read_zip(data, CsarLimits(max_size=len(data) - 1))


def test_over_max_files():
    data = make_zip({f'f{i}': 'x' for i in range(5)})
    with pytest.raises(
        InvalidPackage, match='5 entries, more than the limit of 4'
    ):
        read_zip(data, CsarLimits(max_files=4))


@pytest.mark.parametrize(
    'name',
    [
        '../evil',
        '/etc/passwd',
        'a/../../b',
        'a\\..\\b',
        'C:/windows',
        'a/./b',
        'a//b',
    ],
)
def test_zip_slip_names_are_refused(name):
    with pytest.raises(InvalidPackage, match='unsafe file name'):
        read_zip(_raw_zip(name, b'x'), LIMITS)


@pytest.mark.parametrize(
    ('name', 'reason'),
    [
        (
            '-cimport os;os.system(1)',
            "component '-cimport os;os.system(1)' starts with '-'",
        ),
        ('Scripts/--help', "component '--help' starts with '-'"),
        ('Scripts/a\nb.py', "character '\\n' is not allowed"),
        ('Scripts/a\x1b[2Jb.py', "character '\\x1b' is not allowed"),
        ('Scripts/hook .py', "character ' ' is not allowed"),
        ('Scripts/h\u043eok.py', "character '\u043e' is not allowed"),
        ('Scripts/$(id).py', "character '$' is not allowed"),
        ('a' * 256, 'a component is longer than 255 characters'),
        ('a/' * 600 + 'b', 'longer than 1024 characters'),
    ],
)
def test_names_that_are_not_plain_paths_are_refused(name, reason):
    with pytest.raises(InvalidPackage) as e:
        read_zip(_raw_zip(name, b'x'), LIMITS)
    assert e.value.detail.startswith(repr(name)[:100])
    assert (
        f'unsafe file name in package ({reason}); a package path is a '
        "relative path of '/'-separated names made of ASCII letters, "
        'digits and . _ - + @ = , ~' in e.value.detail
    )


def test_plain_names_are_accepted():
    names = [
        'Files/kubernetes/.helmignore',
        'Scripts/a-b_c.1+2@x=y,z~.py',
        'Definitions/v-1.yaml',
    ]
    data = make_zip(dict.fromkeys(names, 'x'))
    assert sorted(read_zip(data, LIMITS)) == sorted(names)


def test_a_name_that_is_a_file_and_a_directory_is_refused():
    with pytest.raises(
        InvalidPackage,
        match="'Scripts': the name is both a file and a directory",
    ):
        read_zip(make_zip({'Scripts': 'x', 'Scripts/hook.py': 'y'}), LIMITS)


def test_symlink_is_refused():
    with pytest.raises(InvalidPackage, match='symbolic links'):
        read_zip(
            _raw_zip('Scripts/link', b'/etc/passwd', attr=0o120777 << 16),
            LIMITS,
        )


def test_device_file_is_refused():
    with pytest.raises(InvalidPackage, match='only regular files'):
        read_zip(_raw_zip('dev', b'', attr=0o020644 << 16), LIMITS)


def test_encrypted_entry_is_refused():
    with pytest.raises(InvalidPackage, match='encrypted'):
        read_zip(_raw_zip('secret', b'x', flags=0x1), LIMITS)


def test_duplicate_names_are_refused():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        data = _dup_zip()
    with pytest.raises(InvalidPackage, match='a.txt: the name appears twice'):
        read_zip(data, LIMITS)


def _dup_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w') as zf:
        zf.writestr('a.txt', '1')
        zf.writestr('a.txt', '2')
    return buf.getvalue()


def test_zip_bomb_by_file_ratio():
    data = make_zip({'zeros': b'\0' * (2 * 1024 * 1024)})
    with pytest.raises(
        InvalidPackage, match='zeros: compression ratio over 100'
    ):
        read_zip(data, LIMITS)


def test_zip_bomb_by_overall_ratio():
    # Each file stays under the per-file floor; together they expand too much.
    data = make_zip({f'z{i}': b'\0' * 60000 for i in range(40)})
    with pytest.raises(
        InvalidPackage, match='package compression ratio over 100'
    ):
        read_zip(data, LIMITS)


def test_small_compressible_files_are_fine():
    assert read_zip(make_zip({'a': 'a' * 10000}), LIMITS) == {
        'a': b'a' * 10000
    }


def test_over_max_uncompressed_by_declared_size():
    data = make_zip({'a': 'x' * 5000}, compress=zipfile.ZIP_STORED)
    with pytest.raises(
        InvalidPackage, match='expands to more than 4000 bytes'
    ):
        read_zip(data, CsarLimits(max_uncompressed=4000))


def test_declared_size_that_lies_is_caught_while_reading():
    payload = b'\0' * 300000
    data = bytearray(make_zip({'big': payload}))
    # Declare 1000 bytes in both headers; the stream really holds 300000.
    for sig, off in ((b'PK\x03\x04', 22), (b'PK\x01\x02', 24)):
        pos = data.find(sig)
        data[pos + off : pos + off + 4] = struct.pack('<I', 1000)
    with pytest.raises(InvalidPackage, match='big: '):
        read_zip(bytes(data), CsarLimits(max_ratio=1000))


def test_unsupported_compression_is_refused():
    data = bytearray(make_zip({'a': 'hello'}, compress=zipfile.ZIP_STORED))
    for sig, off in ((b'PK\x03\x04', 8), (b'PK\x01\x02', 10)):
        pos = data.find(sig)
        data[pos + off : pos + off + 2] = struct.pack('<H', 99)
    with pytest.raises(InvalidPackage, match='a: cannot be decompressed'):
        read_zip(bytes(data), LIMITS)
