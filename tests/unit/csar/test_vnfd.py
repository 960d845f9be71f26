"""Tests for the VNFD reader via read_csar.

That is vnfm.csar.vnfd, topology, hooks and templates.
"""

import hashlib
import json
import pathlib

import pytest

from vnfm.csar import InvalidPackage
from vnfm.csar import Vnfd
from vnfm.csar import read_csar

from .utils import make_zip
from .utils import replace

SOL001 = (
    pathlib.Path(__file__).resolve().parents[3] / 'vnfm' / 'csar' / 'sol001'
)
DF = 'Definitions/noop_df_simple.yaml'

# CSAR option 2: one self-contained root YAML, a manifest beside it.
ROOT_VNFD = """\
tosca_definitions_version: tosca_simple_yaml_1_3
description: Self-contained VNFD
imports:
  - etsi_nfv_sol001_common_types.yaml
  - etsi_nfv_sol001_vnfd_types.yaml
node_types:
  acme.Base:
    derived_from: tosca.nodes.nfv.VNF
  acme.Cnf:
    derived_from: acme.Base
    properties:
      flavour_id:
        type: string
        constraints: [ equal: small ]
topology_template:
  node_templates:
    VNF:
      type: acme.Cnf
      properties:
        descriptor_id: 11111111-2222-3333-4444-555555555555
        provider: ACME
        product_name: Root CNF
        software_version: 2.1
        descriptor_version: '3'
      interfaces:
        Vnflcm:
          type: tosca.interfaces.nfv.Vnflcm
          operations:
            modify_information_end:
              implementation: update
            instantiate: {}
      artifacts:
        update:
          type: vnfm.artifacts.BuiltinMgmtDriver
          file: container_update
    web:
      type: tosca.nodes.nfv.Vdu.OsContainerDeployableUnit
      properties:
        name: web-deployment
        vdu_profile: { min_number_of_instances: 2, max_number_of_instances: 5 }
"""


def _root_package(vnfd: str = ROOT_VNFD, **extra: bytes) -> dict[str, bytes]:
    return {'cnf.yaml': vnfd.encode(), **extra}


def test_option2_root_layout():
    script = b"print('{}')\n"
    mf = (
        f'Source: Scripts/x.py\nAlgorithm: SHA-256\n'
        f'Hash: {hashlib.sha256(script).hexdigest()}\n'
    )
    csar = read_csar(
        make_zip(
            _root_package(**{'cnf.mf': mf.encode(), 'Scripts/x.py': script})
        )
    )
    v = csar.vnfd
    assert csar.entry_definitions == 'cnf.yaml'
    assert (v.vnfd_id, v.provider, v.software_version, v.vnfd_version) == (
        '11111111-2222-3333-4444-555555555555',
        'ACME',
        '2.1',
        '3',
    )
    assert list(v.flavours) == ['small']
    web = v.flavours['small'].vdus['web']
    assert (web.vdu_name, web.type, web.min_instances, web.max_instances) == (
        'web-deployment',
        'tosca.nodes.nfv.Vdu.OsContainerDeployableUnit',
        2,
        5,
    )
    hook = v.interfaces['modify_information_end']
    assert (hook.builtin, hook.file) == ('container_update', None)
    assert [a.path for a in csar.artifacts] == ['Scripts/x.py']
    with pytest.raises(
        InvalidPackage, match="cnf.mf: hash mismatch for 'Scripts/x.py'"
    ):
        read_csar(
            make_zip(
                _root_package(**{'cnf.mf': mf.encode(), 'Scripts/x.py': b'x'})
            )
        )


def test_option2_needs_exactly_one_root_yaml():
    files = _root_package(
        **{'other.yaml': b'tosca_definitions_version: tosca_simple_yaml_1_3'}
    )
    with pytest.raises(
        InvalidPackage, match='exactly one YAML .* found cnf.yaml, other.yaml'
    ):
        read_csar(make_zip(files))


def test_yaml_error_reports_file_and_line():
    bad = ROOT_VNFD.replace(
        '        provider: ACME', '        provider: [ACME'
    )
    with pytest.raises(
        InvalidPackage, match=r'cnf.yaml: YAML error at line \d+'
    ) as e:
        read_csar(make_zip(_root_package(bad)))
    assert 'line 1,' not in e.value.detail


def test_yaml_error_line_number_is_exact(sample):
    files = replace(sample, DF, '    VDU1:\n', '    VDU1:\n   bad: [\n')
    with pytest.raises(InvalidPackage, match=f'{DF}: YAML error at line'):
        read_csar(make_zip(files))
    files = replace(sample, DF, 'description: Simple', 'description: : Simple')
    with pytest.raises(
        InvalidPackage, match=f'{DF}: YAML error at line 3, column'
    ):
        read_csar(make_zip(files))


@pytest.mark.parametrize(
    'prop',
    [
        'descriptor_id',
        'provider',
        'product_name',
        'software_version',
        'descriptor_version',
    ],
)
def test_missing_identity(prop):
    vnfd = '\n'.join(
        line
        for line in ROOT_VNFD.splitlines()
        if not line.strip().startswith(prop + ':')
    )
    with pytest.raises(
        InvalidPackage, match=f"VNFD: {prop} is missing.*'acme.Cnf'"
    ):
        read_csar(make_zip(_root_package(vnfd)))


def test_identity_from_node_type_defaults(sample):
    # The sample's top template also has literals; drop them to use
    # valid_values/defaults.
    files = replace(
        sample,
        'Definitions/noop_top.vnfd.yaml',
        'descriptor_id: b1bb0ce7-ebca-4fa7-95ed-4840d70a1177',
        '',
    )
    assert (
        read_csar(make_zip(files)).vnfd.vnfd_id
        == 'b1bb0ce7-ebca-4fa7-95ed-4840d70a1177'
    )


def test_missing_vnfd_id_everywhere(sample):
    files = replace(
        sample,
        'Definitions/noop_top.vnfd.yaml',
        'descriptor_id: b1bb0ce7-ebca-4fa7-95ed-4840d70a1177',
        '',
    )
    files = replace(
        files,
        'Definitions/noop_types.yaml',
        'constraints: [ valid_values: '
        '[ b1bb0ce7-ebca-4fa7-95ed-4840d70a1177 ] ]\n'
        '        default: b1bb0ce7-ebca-4fa7-95ed-4840d70a1177',
        '',
    )
    with pytest.raises(InvalidPackage, match='descriptor_id is missing'):
        read_csar(make_zip(files))


def test_hook_artifact_file_missing(sample):
    del sample['Scripts/record_hook.py']
    meta = 'TOSCA-Metadata/TOSCA.meta'
    # Drop the script's hash block.
    sample[meta] = sample[meta].split(b'\n\nName:')[0]
    with pytest.raises(
        InvalidPackage,
        match="artifact 'record-hook' of node VNF names file "
        "'Scripts/record_hook.py', which is not in",
    ):
        read_csar(make_zip(sample))


def test_hook_names_undeclared_artifact(sample):
    files = replace(
        sample,
        DF,
        'terminate_end:\n            implementation: record-hook',
        'terminate_end:\n            implementation: nope',
    )
    with pytest.raises(
        InvalidPackage, match="Vnflcm.terminate_end: implementation 'nope'"
    ):
        read_csar(make_zip(files))


@pytest.mark.parametrize(
    'name,msg',
    [
        ('instantiate_middle', 'unknown hook'),
        ('scale_to_level_start', 'not supported by vnfm'),
        ('scale_to_level_end', 'not supported by vnfm'),
        ('instantiate', 'not a hook'),
    ],
)
def test_bad_hook_names(sample, name, msg):
    files = replace(sample, DF, 'terminate_end:', f'{name}:')
    with pytest.raises(InvalidPackage, match=msg):
        read_csar(make_zip(files))


def test_hook_file_relative_to_definitions(sample):
    files = replace(
        sample,
        DF,
        'file: Scripts/record_hook.py',
        'file: ../Scripts/record_hook.py',
    )
    hooks = read_csar(make_zip(files)).vnfd.interfaces
    assert hooks['instantiate_end'].file == 'Scripts/record_hook.py'


def test_builtin_driver_name_must_be_a_name():
    bad = ROOT_VNFD.replace('file: container_update', 'file: ../x.py')
    with pytest.raises(InvalidPackage, match='needs a driver name'):
        read_csar(make_zip(_root_package(bad)))


def test_import_missing_from_package(sample):
    files = replace(
        sample,
        'Definitions/noop_top.vnfd.yaml',
        '- noop_types.yaml',
        '- noop_types.yaml\n  - other_types.yaml',
    )
    with pytest.raises(
        InvalidPackage,
        match="noop_top.vnfd.yaml: import 'other_types.yaml' "
        'is not in the package',
    ):
        read_csar(make_zip(files))


def test_import_by_url_of_non_etsi_file(sample):
    files = replace(
        sample,
        'Definitions/noop_top.vnfd.yaml',
        '- noop_types.yaml',
        '- noop_types.yaml\n  - https://example.com/x.yaml',
    )
    with pytest.raises(InvalidPackage, match='is a URL; vnfm does not fetch'):
        read_csar(make_zip(files))


def test_packaged_etsi_types_are_used_but_not_stored(sample):
    for name in (
        'etsi_nfv_sol001_common_types.yaml',
        'etsi_nfv_sol001_vnfd_types.yaml',
    ):
        sample[f'Definitions/{name}'] = (SOL001 / name).read_bytes()
        for f in (
            'noop_top.vnfd.yaml',
            'noop_types.yaml',
            'noop_df_simple.yaml',
        ):
            sample = replace(
                sample,
                f'Definitions/{f}',
                f'https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/{name}',
                name,
            )
    vnfd = read_csar(make_zip(sample)).vnfd
    assert sorted(vnfd.raw_templates) == [
        'Definitions/noop_df_simple.yaml',
        'Definitions/noop_top.vnfd.yaml',
        'Definitions/noop_types.yaml',
    ]


def test_two_flavours(sample):
    big = replace(
        {DF: sample[DF]}, DF, 'flavour_id: simple', 'flavour_id: big'
    )[DF]
    sample['Definitions/noop_df_big.yaml'] = big.replace(b'VDU1', b'VDU9')
    sample = replace(
        sample,
        'Definitions/noop_top.vnfd.yaml',
        '- noop_df_simple.yaml',
        '- noop_df_simple.yaml\n  - noop_df_big.yaml',
    )
    vnfd = read_csar(make_zip(sample)).vnfd
    assert sorted(vnfd.flavours) == ['big', 'simple']
    assert list(vnfd.flavours['big'].vdus) == ['VDU9']
    assert vnfd.flavours['big'].scaling_aspects['vdu1_aspect'].vdu_deltas == {
        'VDU9': {'delta_1': 1}
    }


def test_scaling_deltas_for_undeclared_aspect(sample):
    files = replace(sample, DF, 'aspect: vdu1_aspect', 'aspect: vdu2_aspect')
    with pytest.raises(
        InvalidPackage, match="aspect 'vdu2_aspect' is not declared"
    ):
        read_csar(make_zip(files))


def test_scaling_deltas_aspect_not_a_name(sample):
    # A list is no aspect name (nor hashable): refused like an unknown one.
    files = replace(sample, DF, 'aspect: vdu1_aspect', 'aspect: [vdu1_aspect]')
    with pytest.raises(InvalidPackage, match='is not declared'):
        read_csar(make_zip(files))


def test_policy_target_unknown(sample):
    files = replace(sample, DF, 'targets: [ VDU1 ]', 'targets: [ VDU7 ]')
    with pytest.raises(
        InvalidPackage, match="target 'VDU7' is not a node template"
    ):
        read_csar(make_zip(files))


def test_bad_max_scale_level(sample):
    files = replace(sample, DF, 'max_scale_level: 3', 'max_scale_level: many')
    with pytest.raises(
        InvalidPackage, match='vdu1_aspect max_scale_level: expected a non-'
    ):
        read_csar(make_zip(files))


def test_to_dict_round_trip(sample):
    vnfd = read_csar(make_zip(sample)).vnfd
    data = json.loads(json.dumps(vnfd.to_dict()))
    assert Vnfd.from_dict(data) == vnfd
    assert Vnfd.from_dict(data).to_dict() == data


def test_dates_stay_strings(sample):
    files = replace(
        sample, DF, 'description: Simple', 'description: 2024-01-02 Simple'
    )
    files = replace(files, DF, "version: '1.0'", 'version: 2024-01-02')
    csar = read_csar(make_zip(files))
    json.dumps(csar.vnfd.to_dict())
    assert csar.software_images[0]['version'] == '2024-01-02'


def test_yaml_alias_bomb_is_refused():
    lines = [
        'tosca_definitions_version: tosca_simple_yaml_1_3',
        'a0: &a0 [x, x, x, x, x, x]',
    ]
    lines += [
        f'a{i}: &a{i} '
        f'[*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]'
        for i in range(1, 12)
    ]
    with pytest.raises(InvalidPackage, match='bomb.yaml: too many YAML nodes'):
        read_csar(make_zip({'bomb.yaml': '\n'.join(lines)}))


def test_deeply_nested_yaml_is_refused():
    deep = 'tosca_definitions_version: x\na: ' + '[' * 5000 + ']' * 5000
    with pytest.raises(
        InvalidPackage, match='deep.yaml: YAML nested too deeply'
    ):
        read_csar(make_zip({'deep.yaml': deep}))


def test_software_image_from_virtual_storage_with_artifact():
    vnfd = (
        ROOT_VNFD
        + """\
    vm:
      type: tosca.nodes.nfv.Vdu.Compute
      properties: { name: vm }
      requirements:
        - virtual_storage: disk
    disk:
      type: tosca.nodes.nfv.Vdu.VirtualBlockStorage
      properties:
        sw_image_data:
          name: cirros
          version: '0.5'
          checksum: { algorithm: sha-512, hash: abc }
          container_format: bare
          disk_format: raw
          min_disk: 1.5 GiB
          min_ram: 512 MiB
          size: 12 kB
      artifacts:
        sw_image:
          type: tosca.artifacts.nfv.SwImage
          file: Files/images/cirros.img
"""
    )
    csar = read_csar(
        make_zip(_root_package(vnfd, **{'Files/images/cirros.img': b'img'}))
    )
    assert csar.software_images == [
        {
            'id': 'vm',
            'name': 'cirros',
            'provider': 'ACME',
            'version': '0.5',
            'checksum': {'algorithm': 'sha-512', 'hash': 'abc'},
            'containerFormat': 'BARE',
            'diskFormat': 'RAW',
            'minDisk': 2,
            'minRam': 537,
            'size': 12000,
            'imagePath': 'Files/images/cirros.img',
        }
    ]
