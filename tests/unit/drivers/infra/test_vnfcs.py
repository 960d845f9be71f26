"""affectedVnfcs and vnfcInfo from vnfcResourceInfo entries."""

from vnfm.drivers.infra import vnfcs as vnfc_views
from vnfm.drivers.infra.kubernetes import vnfcs as k8s_vnfcs


def test_affected_and_vnfc_info():
    old = k8s_vnfcs.build('i', [], {'VDU1': ['a', 'b']}, {'VDU1': 'Pod'}, 'v')
    new = k8s_vnfcs.build('i', old, {'VDU1': ['a', 'z']}, {'VDU1': 'Pod'}, 'v')
    changes = vnfc_views.affected(old, new)['affectedVnfcs']
    assert [c['changeType'] for c in changes] == ['MODIFIED']
    gone = vnfc_views.affected(old, [])['affectedVnfcs']
    assert {c['changeType'] for c in gone} == {'REMOVED'}
    info = vnfc_views.vnfc_info(new)
    assert info[0] == {
        'id': f'VDU1-{new[0]["id"]}',
        'vduId': 'VDU1',
        'vnfcResourceInfoId': new[0]['id'],
        'vnfcState': 'STARTED',
    }
