"""vnfm-demo --vim openstack: the pieces that need no cloud."""

import pytest
import yaml

from vnfm.csar import read_csar
from vnfm_testbed.demo import cli as demo
from vnfm_testbed.demo import vm as demo_vm
from vnfm_testbed.demo.runner import StepFailed
from vnfm_testbed.openstack import catalogue
from vnfm_testbed.openstack.cloud import LocalCloud

STACK_LIST = """\
+--------------------------------------+----------------+-----------------+
| ID                                   | Stack Name     | Stack Status    |
+--------------------------------------+----------------+-----------------+
| 5f0c...                              | vnf-abc        | CREATE_COMPLETE |
+--------------------------------------+----------------+-----------------+"""


def _cloud(tmp_path):
    cloud = LocalCloud(tmp_path, name='unit')
    cloud.ports = {'keystone': 5000, 'heat': 8004}
    cloud.passwords = {'demo': 'pw-demo'}
    return cloud


def test_the_vdus_boot_the_images_the_demo_logs_into(tmp_path):
    csar = demo_vm.build_package(tmp_path, demo._SAMPLES)
    flavour = yaml.safe_load(
        (
            demo._SAMPLES
            / 'vm_simple'
            / 'Definitions'
            / 'vm_simple_df_simple.yaml'
        ).read_text()
    )['topology_template']['node_templates']

    images = {
        vdu: flavour[vdu]['properties']['sw_image_data']['name']
        for vdu in demo_vm.VDU_IMAGES
    }

    assert images == demo_vm.VDU_IMAGES
    assert read_csar(csar.read_bytes()).vnfd.vnfd_id
    for image in images.values():  # SSH needs a password login
        assert catalogue.IMAGES[image]['password']


def test_the_vim_config_and_client_env_are_the_demo_users(tmp_path):
    cloud = _cloud(tmp_path)

    config = demo_vm.vim_config(cloud)
    env = cloud.client_env('demo')

    assert (
        config['auth_url'] == env['OS_AUTH_URL'] == 'http://127.0.0.1:5000/v3'
    )
    assert config['username'] == env['OS_USERNAME'] == 'demo'
    assert config['password'] == env['OS_PASSWORD'] == 'pw-demo'
    assert config['project_name'] == env['OS_PROJECT_NAME'] == 'demo'


def test_stack_status_reads_the_stack_list_table():
    assert demo_vm.stack_status(STACK_LIST, 'vnf-abc') == 'CREATE_COMPLETE'
    assert demo_vm.stack_status(STACK_LIST, 'vnf-other') == ''


def test_servers_are_the_nova_rows_of_the_resource_list():
    rows = [
        {'resource_type': 'OS::Nova::Server', 'physical_resource_id': 's1'},
        {'resource_type': 'OS::Neutron::Port', 'physical_resource_id': 'p1'},
    ]

    assert list(demo_vm.servers(rows)) == ['s1']


def test_cp_address_is_the_external_cps_or_the_step_fails():
    def cp(cpd_id, address):
        ip = {'addresses': [address], 'type': 'IPV4'}
        proto = {'ipOverEthernet': {'ipAddresses': [ip]}}
        return {'cpdId': cpd_id, 'cpProtocolInfo': [proto]}

    internal = cp('VDU2_CP2', '198.18.5.10')
    vnfc = {'id': 'c1', 'vnfcCpInfo': [internal, cp('VDU2_CP1', '198.18.4.9')]}

    assert demo_vm.cp_address(vnfc) == '198.18.4.9'
    with pytest.raises(StepFailed, match='c1 has no external CP address'):
        demo_vm.cp_address({'id': 'c1', 'vnfcCpInfo': [internal]})


class _Demo:
    """Runs no client; each op replaces the VNFCs with the next set."""

    def __init__(self, *vnfc_sets):
        self.sets = list(vnfc_sets)
        self.ops = []
        self.server = self

    def get(self, path):
        ids = self.sets[0]
        return {
            'instantiatedVnfInfo': {
                'vnfcResourceInfo': [{'id': i} for i in ids]
            }
        }

    def run_op(self, inst_id, operation, *args):
        self.ops.append(args)
        self.sets.pop(0)


def test_scale_fails_when_the_vnfc_count_does_not_follow(monkeypatch):
    monkeypatch.setattr(demo_vm, '_stack', lambda *a: {})
    ok = _Demo({'a', 'b'}, {'a', 'b', 'c'})
    demo_vm._scale(ok, None, 'i1', 'SCALE_OUT', 1)
    assert '--type' in ok.ops[0] and 'SCALE_OUT' in ok.ops[0]

    with pytest.raises(StepFailed, match='2 VNFCs became 2'):
        demo_vm._scale(_Demo({'a', 'b'}, {'a', 'b'}), None, 'i1', 'X', 1)
    with pytest.raises(StepFailed, match='changed their ids'):
        demo_vm._scale(_Demo({'a', 'b', 'c'}, {'x', 'y'}), None, 'i', 'X', -1)


def test_the_openstack_variant_loads_the_openstack_driver(tmp_path):
    args = demo._parse_args(['--vim', 'openstack'])

    assert demo.infra_drivers(args.vim) == 'noop,openstack,kubernetes'
    assert demo.infra_drivers('noop') == 'noop'
