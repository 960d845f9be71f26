"""VNFC ids stay stable while Pods come and go."""

from vnfm.drivers.infra.kubernetes import vnfcs

RES = {'vimConnectionId': 'v', 'kind': 'Deployment'}


def _names(entries):
    return [e['computeResource']['resourceId'] for e in entries]


def test_new_pods_get_deterministic_ids():
    first = vnfcs.match_vdu('i', 'VDU1', [], ['a', 'b'], RES)
    assert [e['id'] for e in first] == [
        vnfcs.vnfc_id('i', 'VDU1', 0),
        vnfcs.vnfc_id('i', 'VDU1', 1),
    ]
    assert first[0]['computeResource'] == {
        'vimConnectionId': 'v',
        'resourceId': 'a',
        'vimLevelResourceType': 'Deployment',
    }


def test_a_replaced_pod_keeps_the_vnfc_id():
    old = vnfcs.match_vdu('i', 'VDU1', [], ['a', 'b'], RES)
    new = vnfcs.match_vdu('i', 'VDU1', old, ['b', 'c'], RES)
    assert [e['id'] for e in new] == [e['id'] for e in old]
    assert _names(new) == ['c', 'b']


def test_scale_out_and_in():
    old = vnfcs.match_vdu('i', 'VDU1', [], ['a'], RES)
    out = vnfcs.match_vdu('i', 'VDU1', old, ['a', 'b', 'c'], RES)
    assert out[0]['id'] == old[0]['id'] and len({e['id'] for e in out}) == 3
    back = vnfcs.match_vdu('i', 'VDU1', out, ['c'], RES)
    assert [e['id'] for e in back] == [out[2]['id']]
    again = vnfcs.match_vdu('i', 'VDU1', back, ['c', 'd'], RES)
    # The freed ordinal 0 is reused, never a clash.
    assert again[1]['id'] == vnfcs.vnfc_id('i', 'VDU1', 0)
