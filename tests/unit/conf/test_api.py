"""[api] defaults: vnfm-api listens on loopback only until told otherwise,
list pages are bounded by the list limit, request bodies by a size."""

from __future__ import annotations

from vnfm.conf import CONF
from vnfm.conf import api


def test_it_listens_on_loopback_by_default():
    assert CONF.api.host_ip == '127.0.0.1'
    assert CONF.api.port == 9890


def test_pages_fit_in_the_list_limit():
    for name in (
        'vnf_instance_page_size',
        'lcm_op_occ_page_size',
        'vnf_package_page_size',
        'subscription_page_size',
    ):
        assert 0 < CONF.api[name] <= CONF.api.max_list_items, name


def test_keystone_is_one_of_the_auth_strategies():
    [strategy] = [o for o in api.opts if o.name == 'auth_strategy']

    assert 'keystone' in strategy.type.choices
    assert 'noauth' in strategy.type.choices


def test_request_bodies_are_bounded():
    assert 1024 <= CONF.api.max_request_body_size <= 16 * 1024 * 1024
