"""The sample packages parse to what tests and the demo rely on."""

import json
import subprocess
import sys

import pytest

from vnfm.csar import CsarLimits
from vnfm.csar import read_csar
from vnfm.csar.build import build_csar

from .utils import NOOP_V2_VNFD_ID
from .utils import NOOP_VNFD_ID
from .utils import SAMPLES

HOOKS = [
    'instantiate_start',
    'instantiate_end',
    'terminate_start',
    'terminate_end',
    'modify_information_start',
    'modify_information_end',
]
SCRIPT = SAMPLES / 'noop_vnf' / 'Scripts' / 'record_hook.py'


@pytest.mark.parametrize(
    'name,vnfd_id,version',
    [
        ('noop_vnf', NOOP_VNFD_ID, '1.0'),
        ('noop_vnf_v2', NOOP_V2_VNFD_ID, '2.0'),
    ],
)
def test_noop_samples(name, vnfd_id, version):
    csar = read_csar(build_csar(str(SAMPLES / name)), CsarLimits())
    v = csar.vnfd
    assert (
        v.vnfd_id,
        v.provider,
        v.product_name,
        v.software_version,
        v.vnfd_version,
    ) == (vnfd_id, 'vnfm', 'Noop Sample VNF', version, '1.0')
    assert list(v.flavours) == ['simple']
    flavour = v.flavours['simple']
    vdu = flavour.vdus['VDU1']
    assert (
        vdu.vdu_name,
        vdu.type,
        vdu.min_instances,
        vdu.max_instances,
        vdu.initial_delta,
    ) == ('vdu1', 'tosca.nodes.nfv.Vdu.Compute', 1, 4, 1)
    aspect = flavour.scaling_aspects['vdu1_aspect']
    assert (aspect.max_scale_level, aspect.step_deltas, aspect.vdu_deltas) == (
        3,
        ['delta_1'],
        {'VDU1': {'delta_1': 1}},
    )
    assert flavour.default_instantiation_level == 'instantiation_level_1'
    level_2 = flavour.instantiation_levels['instantiation_level_2']
    assert level_2['vdu_levels'] == {'VDU1': 4}
    assert list(v.interfaces) == HOOKS == list(flavour.interfaces)
    for hook in v.interfaces.values():
        assert (hook.implementation, hook.file, hook.builtin) == (
            'record-hook',
            'Scripts/record_hook.py',
            None,
        )
        assert hook.artifact_type == 'tosca.artifacts.Implementation.Python'
    (image,) = csar.software_images
    assert (image['id'], image['name'], image['minDisk'], image['minRam']) == (
        'VDU1',
        f'noop-image-{version}',
        1,
        256,
    )
    assert csar.checksum['algorithm'] == 'SHA-256'


def _run_hook(tmp_path, hook, params=None, env_record=True):
    doc = {
        'hook': hook,
        'operation': 'INSTANTIATE',
        'vnf_instance': {'id': 'inst-1'},
        'vnf_lcm_op_occ': {'id': 'op-1'},
        'request': {'additionalParams': params or {}},
        'package_dir': str(tmp_path),
        'vim_connection_info': {},
    }
    env = {'PATH': '/usr/bin:/bin'}
    if env_record:
        env['VNFM_HOOK_RECORD'] = str(tmp_path / 'record.jsonl')
    return subprocess.run(
        [sys.executable, str(SCRIPT)],
        input=json.dumps(doc),
        text=True,
        capture_output=True,
        env=env,
        timeout=30,
        check=False,
    )


def test_record_hook_records_and_prints_empty_object(tmp_path):
    for hook in ('instantiate_start', 'instantiate_end'):
        result = _run_hook(
            tmp_path, hook, {'hook_sleep': {'instantiate_end': 0}}
        )
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout) == {}
    lines = [
        json.loads(x)
        for x in (tmp_path / 'record.jsonl').read_text().splitlines()
    ]
    assert [x['hook'] for x in lines] == [
        'instantiate_start',
        'instantiate_end',
    ]
    assert lines[0]['vnf_instance_id'] == 'inst-1'
    assert lines[0]['operation'] == 'INSTANTIATE'
    params = lines[0]['request']['additionalParams']
    assert params['hook_sleep'] == {'instantiate_end': 0}


def test_record_hook_fails_on_purpose(tmp_path):
    result = _run_hook(
        tmp_path, 'instantiate_end', {'fail_hook': 'instantiate_end'}
    )
    assert result.returncode == 1
    assert 'failed on purpose' in result.stderr
    assert (
        _run_hook(
            tmp_path, 'instantiate_start', {'fail_hook': 'instantiate_end'}
        ).returncode
        == 0
    )


def test_record_hook_without_record_file(tmp_path):
    result = _run_hook(tmp_path, 'terminate_end', env_record=False)
    assert (result.returncode, result.stdout.strip()) == (0, '{}')
    assert not (tmp_path / 'record.jsonl').exists()


def test_vm_sample_models_what_heat_input_needs():
    csar = read_csar(build_csar(str(SAMPLES / 'vm_simple')), CsarLimits())
    flavour = csar.vnfd.flavours['simple']
    vdu1, vdu2 = flavour.vdus['VDU1'], flavour.vdus['VDU2']
    assert (vdu1.compute_flavour, vdu1.sw_image['name'], vdu1.storages) == (
        'm1.tiny',
        'ubuntu-22.04',
        ['VirtualStorage'],
    )
    assert (vdu2.compute_flavour, vdu2.sw_image['name'], vdu2.storages) == (
        'm1.tiny',
        'cirros-0.6',
        [],
    )
    assert {n: (c.vdu, c.virtual_link) for n, c in flavour.cps.items()} == {
        'VDU1_CP1': ('VDU1', None),
        'VDU2_CP1': ('VDU2', None),
        'VDU2_CP2': ('VDU2', 'internalVL1'),
    }
    assert flavour.storages['VirtualStorage'].size_gb == 1
    assert flavour.virtual_links == ['internalVL1']
    assert flavour.scaling_aspects['VDU1_scale'].vdu_deltas == {
        'VDU1': {'delta_1': 1}
    }
    assert type(csar.vnfd).from_dict(csar.vnfd.to_dict()) == csar.vnfd
