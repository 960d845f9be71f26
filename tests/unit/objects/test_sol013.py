"""SOL013 filtering, attribute selectors and paging."""

from __future__ import annotations

import pytest

from vnfm.common import exceptions
from vnfm.objects import sol013
from vnfm.objects import vnf_instance

ITEMS = [
    {
        'id': 'a',
        'vnfInstanceName': 'alpha',
        'instantiationState': 'INSTANTIATED',
        'count': 3,
        'flag': True,
        'metadata': {'tier': 'gold', 'zone': 'z1'},
        'instantiatedVnfInfo': {
            'vnfcResourceInfo': [{'vduId': 'VDU1'}, {'vduId': 'VDU2'}]
        },
    },
    {
        'id': 'b',
        'vnfInstanceName': "it's,b",
        'instantiationState': 'NOT_INSTANTIATED',
        'count': 10,
        'flag': False,
        'metadata': {'tier': 'silver'},
    },
    {'id': 'c', 'instantiationState': 'NOT_INSTANTIATED', 'count': 7},
]


def ids(flt: str) -> list[str]:
    parsed = sol013.parse_filter(flt)
    return [i['id'] for i in ITEMS if parsed.matches(i)]


@pytest.mark.parametrize(
    'flt,expected',
    [
        ('(eq,instantiationState,INSTANTIATED)', ['a']),
        ('(neq,instantiationState,INSTANTIATED)', ['b', 'c']),
        ('(in,id,a,c)', ['a', 'c']),
        ('(nin,id,a,c)', ['b']),
        ('(gt,count,5)', ['b', 'c']),
        ('(gte,count,7)', ['b', 'c']),
        ('(lt,count,7)', ['a']),
        ('(lte,count,7)', ['a', 'c']),
        ('(cont,vnfInstanceName,lph)', ['a']),
        ('(ncont,vnfInstanceName,lph)', ['b', 'c']),
        ('(eq,metadata/tier,gold)', ['a']),
        ('(eq,flag,false)', ['b']),
        ("(eq,vnfInstanceName,'it''s,b')", ['b']),
        ('(eq,instantiatedVnfInfo/vnfcResourceInfo/vduId,VDU2)', ['a']),
        ('(eq,metadata/@key,zone)', ['a']),
        ('(eq,instantiationState,NOT_INSTANTIATED);(gt,count,8)', ['b']),
        ('(eq,count,notanumber)', []),
    ],
)
def test_filter(flt, expected):
    assert ids(flt) == expected


@pytest.mark.parametrize(
    'flt,words',
    [
        ('', 'empty'),
        ('eq,id,a', 'expected'),
        ('(foo,id,a)', 'unknown operator'),
        ('(eq,id,a,b)', 'one value'),
        ('(eq,id)', 'needs a value'),
        ('(eq,id,a)x', 'expected ";"'),
        ("(eq,id,'a)", 'unterminated'),
        ('(eq,id//x,a)', 'empty part'),
    ],
)
def test_bad_filter_is_400_naming_it(flt, words):
    with pytest.raises(exceptions.BadRequest) as e:
        sol013.parse_filter(flt)
    assert words in e.value.detail


def test_unknown_attribute_is_rejected():
    with pytest.raises(exceptions.BadRequest) as e:
        sol013.parse_filter('(eq,vnfdid,x)', {'vnfdId'})
    assert "'vnfdid'" in e.value.detail


RES = vnf_instance.SOL013
FULL = {
    'id': 'x',
    'vnfdId': 'd',
    'vnfProvider': 'p',
    'vnfProductName': 'n',
    'vnfSoftwareVersion': '1',
    'vnfdVersion': '1',
    'instantiationState': 'INSTANTIATED',
    'vnfInstanceName': 'name',
    'metadata': {'a': 1, 'b': 2},
    'instantiatedVnfInfo': {'flavourId': 'f', 'vnfState': 'STARTED'},
    '_links': {'self': {'href': 'h'}},
}


def select(params: dict) -> dict:
    page, _ = sol013.select([FULL], params, RES)
    return page[0]


def test_default_excludes_complex_attributes():
    out = select({})
    assert 'metadata' not in out and 'instantiatedVnfInfo' not in out
    assert out['vnfInstanceName'] == 'name'


def test_all_fields_keeps_everything():
    assert select({'all_fields': ''}) == FULL


def test_fields_alone_keeps_mandatory_and_named():
    out = select({'fields': 'metadata/a'})
    assert out['metadata'] == {'a': 1}
    assert 'vnfInstanceName' not in out
    assert out['vnfdId'] == 'd'


def test_fields_with_exclude_default():
    out = select(
        {'fields': 'instantiatedVnfInfo/flavourId', 'exclude_default': ''}
    )
    assert out['instantiatedVnfInfo'] == {'flavourId': 'f'}
    assert out['vnfInstanceName'] == 'name'
    assert 'metadata' not in out


@pytest.mark.parametrize('name', ['exclude_fields', 'exclude-fields'])
def test_exclude_fields(name):
    out = select({name: 'metadata/b,vnfInstanceName,vnfdId'})
    assert out['metadata'] == {'a': 1}
    assert 'vnfInstanceName' not in out
    assert out['vnfdId'] == 'd'  # mandatory stays
    assert FULL['metadata'] == {'a': 1, 'b': 2}  # input untouched


@pytest.mark.parametrize(
    'params',
    [
        {'all_fields': '', 'fields': 'a'},
        {'fields': 'a', 'exclude_fields': 'b'},
        {'exclude_fields': 'a', 'exclude_default': ''},
        {'fields': ''},
    ],
)
def test_bad_selector_mix_is_400(params):
    with pytest.raises(exceptions.BadRequest):
        sol013.select([FULL], params, RES)


def test_paging_with_link():
    items = [{'id': str(i)} for i in range(5)]
    params = {'filter': '(neq,id,9)'}
    res = sol013.Resource(frozenset({'id'}), frozenset({'id'}), ())
    page, link = sol013.select(
        items, params, res, page_size=2, url='http://h/x'
    )
    assert [i['id'] for i in page] == ['0', '1']
    assert link == (
        '<http://h/x?filter=%28neq%2Cid%2C9%29&'
        'nextpage_opaque_marker=1>; rel="next"'
    )
    page, link = sol013.select(items[4:], params, res, page_size=2)
    assert [i['id'] for i in page] == ['4'] and link is None


def test_select_reads_only_what_the_page_needs():
    read = []

    def items():
        for i in range(1000):
            read.append(i)
            yield {'id': str(i), 'n': i}

    res = sol013.Resource(frozenset({'id', 'n'}), frozenset({'id'}), ())
    page, link = sol013.select(
        items(), {'filter': '(gte,n,10)'}, res, page_size=3, url='http://h/x'
    )
    assert [i['n'] for i in page] == [10, 11, 12] and link
    assert len(read) == 14  # the page, one more to know there is more


def test_no_paging_over_the_limit_is_400_too_big():
    items = [{'id': str(i)} for i in range(5)]
    res = sol013.Resource(frozenset({'id'}), frozenset({'id'}), ())
    page, link = sol013.select(items, {}, res, max_items=5)
    assert len(page) == 5 and link is None
    with pytest.raises(exceptions.BadRequest, match='too big'):
        sol013.select(items, {}, res, max_items=4)
    assert len(sol013.select(items, {}, res)[0]) == 5  # 0: no limit


@pytest.mark.parametrize(
    'params,name',
    [
        ({'fields': 'vnfdId,nope'}, 'nope'),
        ({'fields': 'metadata/a,bogus/x'}, 'bogus'),
        ({'exclude_fields': 'typo'}, 'typo'),
        ({'exclude-fields': 'typo2'}, 'typo2'),
        ({'fields': 'nope', 'exclude_default': ''}, 'nope'),
    ],
)
def test_unknown_attribute_in_selector_is_400_naming_it(params, name):
    with pytest.raises(
        exceptions.BadRequest, match=f'unknown attribute {name}'
    ):
        sol013.select([FULL], params, RES)
