"""Build a CSAR zip from a package source directory (tests, demo, samples).

Usage: ``python -m vnfm.csar.build SRC_DIR OUT.zip``. The zip is
deterministic: sorted names, fixed timestamps and modes. When
``TOSCA-Metadata/TOSCA.meta`` exists, its blocks for ``Scripts/*`` are
replaced by blocks with freshly computed SHA-256 hashes of those files.
"""

import hashlib
import io
import os
import sys
import zipfile

from vnfm.csar.meta import TOSCA_META

_EPOCH = (1980, 1, 1, 0, 0, 0)
_CONTENT_TYPES = {
    '.py': 'text/x-python',
    '.sh': 'text/x-shellscript',
    '.yaml': 'application/yaml',
    '.yml': 'application/yaml',
}


def build_csar(src_dir: str) -> bytes:
    """Zip a package source directory into CSAR bytes.

    Hashes of Scripts/ files are filled in TOSCA.meta.
    """
    files = _collect(src_dir)
    if TOSCA_META in files:
        files[TOSCA_META] = _with_script_hashes(
            files[TOSCA_META].decode('utf-8'), files
        )
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(name, _EPOCH)
            info.external_attr = 0o100644 << 16
            info.create_system = 3
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, files[name])
    return buf.getvalue()


def _collect(src_dir: str) -> dict[str, bytes]:
    """Regular files of the directory by package path, but not caches.

    Dot-files and dot-directories are skipped too.
    """
    out: dict[str, bytes] = {}
    for root, dirs, names in os.walk(src_dir):
        dirs[:] = [
            d for d in dirs if not d.startswith('.') and d != '__pycache__'
        ]
        for name in names:
            if name.startswith('.') or name.endswith('.pyc'):
                continue
            full = os.path.join(root, name)
            rel = os.path.relpath(full, src_dir).replace(os.sep, '/')
            with open(full, 'rb') as f:
                out[rel] = f.read()
    return out


def _with_script_hashes(text: str, files: dict[str, bytes]) -> bytes:
    """TOSCA.meta without its Scripts/ blocks, followed by computed ones."""
    kept: list[str] = []
    skipping = False
    for line in text.splitlines():
        key = line.split(':', 1)[0].strip()
        if key == 'Name':
            skipping = line.split(':', 1)[1].strip().startswith('Scripts/')
        elif not line.strip():
            skipping = False
        if not skipping:
            kept.append(line)
    out = '\n'.join(kept).rstrip('\n') + '\n'
    for name in sorted(f for f in files if f.startswith('Scripts/')):
        ctype = _CONTENT_TYPES.get(
            os.path.splitext(name)[1], 'application/octet-stream'
        )
        out += (
            f'\nName: {name}\nContent-Type: {ctype}\nAlgorithm: SHA-256\n'
            f'Hash: {hashlib.sha256(files[name]).hexdigest()}\n'
        )
    return out.encode('utf-8')


def main(argv: list[str] | None = None) -> int:
    """CLI entry point: build SRC_DIR into OUT.zip."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(
            'usage: python -m vnfm.csar.build SRC_DIR OUT.zip', file=sys.stderr
        )
        return 2
    data = build_csar(args[0])
    with open(args[1], 'wb') as f:
        f.write(data)
    return 0


if __name__ == '__main__':
    sys.exit(main())
