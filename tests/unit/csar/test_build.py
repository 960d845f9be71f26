"""Tests for vnfm.csar.build."""

import hashlib
import io
import os
import shutil
import zipfile

from vnfm.csar import read_csar
from vnfm.csar.build import build_csar
from vnfm.csar.build import main

from .utils import SAMPLES

SRC = SAMPLES / 'noop_vnf'


def test_build_is_deterministic(tmp_path):
    first = build_csar(str(SRC))
    copy = tmp_path / 'pkg'
    shutil.copytree(SRC, copy)
    os.utime(copy / 'Scripts' / 'record_hook.py', (1, 1))
    (copy / 'Scripts' / '__pycache__').mkdir(exist_ok=True)
    (copy / 'Scripts' / '__pycache__' / 'x.pyc').write_bytes(b'junk')
    assert build_csar(str(copy)) == first == build_csar(str(SRC))


def test_meta_gets_script_hashes_replacing_stale_ones(tmp_path):
    copy = tmp_path / 'pkg'
    shutil.copytree(SRC, copy)
    meta = copy / 'TOSCA-Metadata' / 'TOSCA.meta'
    meta.write_text(
        meta.read_text()
        + '\nName: Scripts/record_hook.py\nAlgorithm: SHA-256\n'
        'Hash: 00\n\nName: Scripts/gone.py\nHash: 11\n'
    )
    (copy / 'Scripts' / 'extra.sh').write_text('echo hi\n')
    with zipfile.ZipFile(io.BytesIO(build_csar(str(copy)))) as zf:
        text = zf.read('TOSCA-Metadata/TOSCA.meta').decode()
        script = zf.read('Scripts/record_hook.py')
        names = zf.namelist()
    assert names == sorted(names)
    assert text.count('Name: Scripts/record_hook.py') == 1
    assert 'gone.py' not in text and 'Hash: 00' not in text
    assert f'Hash: {hashlib.sha256(script).hexdigest()}' in text
    assert 'Name: Scripts/extra.sh\nContent-Type: text/x-shellscript' in text
    assert len(read_csar(build_csar(str(copy))).artifacts) == 2


def test_cli(tmp_path):
    out = tmp_path / 'noop.zip'
    assert main([str(SRC), str(out)]) == 0
    assert out.read_bytes() == build_csar(str(SRC))
    assert main([]) == 2
