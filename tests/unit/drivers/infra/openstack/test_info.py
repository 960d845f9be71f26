"""vnfm.drivers.infra.openstack.info: Heat resources -> SOL views."""

from __future__ import annotations

from vnfm.drivers.infra.openstack import info
from vnfm.drivers.infra.openstack.driver import OpenStackInfraDriver

from .fakeheat import FakeHeat
from .fakeheat import resource
from .fakeheat import vm_simple
from .utils import context

TOP = ('vnf-inst-1', 'sid')


def test_ports_without_device_id_belong_to_the_server_they_are_named_for():
    resources = [
        resource('VDU2', 'OS::Nova::Server', 'srv-2', TOP),
        resource('VDU3', 'OS::Nova::Server', 'srv-3', TOP),
        resource('VDU3_CP1', 'OS::Neutron::Port', 'p-31', TOP),
        resource('Other', 'OS::Nova::Server', 'srv-x', TOP),
    ]
    builder = info.Builder('inst-1', 'vim1', resources, {'VDU2', 'VDU3'})

    vnfcs = {v['vduId']: v for v in builder.vnfc_resource_info()}

    assert set(vnfcs) == {'VDU2', 'VDU3'}  # 'Other' is no VDU
    assert [c['cpdId'] for c in vnfcs['VDU3']['vnfcCpInfo']] == ['VDU3_CP1']
    assert vnfcs['VDU2']['vnfcCpInfo'] == []


def test_networks_of_the_stack_are_virtual_links_with_their_ports():
    resources = [
        *vm_simple(TOP),
        resource('internalVL1', 'OS::Neutron::Net', 'net-ext', TOP),
    ]
    builder = info.Builder('inst-1', 'vim1', resources, {'VDU1', 'VDU2'})

    [vl] = builder.vnf_virtual_link_resource_info()

    assert vl['vnfVirtualLinkDescId'] == 'internalVL1'
    assert vl['networkResource']['resourceId'] == 'net-ext'
    assert sorted(
        p['resourceHandle']['resourceId'] for p in vl['vnfLinkPorts']
    ) == [
        'p-10',
        'p-21',
        'p-22',
    ]
    assert {p['cpInstanceType'] for p in vl['vnfLinkPorts']} == {'VNFC_CP'}


def test_a_new_group_member_gets_a_new_vnfc_id_the_others_keep_theirs():
    one = info.Builder('inst-1', 'vim1', vm_simple(TOP, 1), {'VDU1', 'VDU2'})
    two = info.Builder('inst-1', 'vim1', vm_simple(TOP, 2), {'VDU1', 'VDU2'})

    before = {v['id'] for v in one.vnfc_resource_info()}
    after = {v['id'] for v in two.vnfc_resource_info()}

    assert before < after and len(after - before) == 1


def test_a_volume_records_the_device_each_server_has_it_as():
    resources = [
        resource('storage_server', 'OS::Nova::Server', 'srv-s', TOP),
        resource(
            'storage_server_volume',
            'OS::Cinder::Volume',
            'vol-s',
            TOP,
            attachments_list=[
                {'server_id': 'srv-s', 'device': '/dev/vdc', 'id': 'vol-s'}
            ],
        ),
        resource('unattached', 'OS::Cinder::Volume', 'vol-u', TOP),
    ]
    builder = info.Builder('inst-1', 'vim1', resources, {'storage_server'})

    storages = {
        s['virtualStorageDescId']: s
        for s in builder.virtual_storage_resource_info()
    }

    assert storages['storage_server_volume']['metadata'] == {
        'attachments': [{'serverId': 'srv-s', 'device': '/dev/vdc'}]
    }
    assert 'metadata' not in storages['unattached']
    [vnfc] = builder.vnfc_resource_info()
    assert (
        storages['storage_server_volume']['id'] in vnfc['storageResourceIds']
    )


def test_cps_on_an_external_link_are_external_cps_of_the_instance(
    heat: FakeHeat,
) -> None:
    heat.resource_list = vm_simple(TOP, 2)

    result = OpenStackInfraDriver().instantiate(context())

    new = result.instantiated_vnf_info
    ext_cps = {e['id']: e for e in new['extCpInfo']}
    cps = [cp for v in new['vnfcResourceInfo'] for cp in v['vnfcCpInfo']]
    on_ext = {c['cpdId'] for c in cps if 'vnfExtCpId' in c}
    assert on_ext == {'VDU1_CP1', 'VDU2_CP1'}
    for cp in cps:
        if 'vnfExtCpId' in cp:
            ext = ext_cps[cp['vnfExtCpId']]
            assert ext['associatedVnfcCpId'] == cp['id']
            assert ext['cpConfigId'] == 'a'
    [link] = new['extVirtualLinkInfo']
    assert {p['cpInstanceId'] for p in link['extLinkPorts']} == set(ext_cps)
    assert {p['cpInstanceType'] for p in link['extLinkPorts']} == {'EXT_CP'}


def test_an_ext_managed_link_is_reported_with_its_ports(
    heat: FakeHeat,
) -> None:
    heat.resource_list = vm_simple(TOP)

    new = OpenStackInfraDriver().instantiate(context()).instantiated_vnf_info

    [link] = new['extManagedVirtualLinkInfo']
    assert link['id'] == 'int1'
    assert link['vnfVirtualLinkDescId'] == 'internalVL1'
    assert link['networkResource']['resourceId'] == 'data-net-1'
    assert {
        p['resourceHandle']['resourceId'] for p in link['vnfLinkPorts']
    } == {'p-22'}
