"""[fault_management]: the receiver's credentials never reach the log, and
the bounds an operator sets are enforced when the value is set."""

from __future__ import annotations

import pytest

from vnfm.conf import CONF
from vnfm.conf import fault_management

from .logged import logged_with


@pytest.mark.parametrize('name', ['receiver_token', 'receiver_password'])
def test_the_receiver_secrets_never_reach_the_log(caplog, name):
    text = logged_with(caplog, name, 'S3CRET-AM', 'fault_management')

    assert f'fault_management.{name}' in text
    assert 'S3CRET-AM' not in text


def test_without_credentials_the_receiver_has_none():
    group = CONF.fault_management

    assert group.receiver_token is None
    assert group.receiver_username is None
    assert group.receiver_password is None


@pytest.mark.parametrize(
    ('name', 'value'),
    [('max_alerts_per_post', 0), ('autoheal_interval', 0.0)],
)
def test_a_value_below_the_minimum_is_refused(name, value):
    with pytest.raises(ValueError):
        CONF.set_override(name, value, 'fault_management')


def test_the_sample_generator_lists_the_group():
    [(group, opts)] = fault_management.list_opts()

    assert group.name == 'fault_management'
    assert {o.name for o in opts} >= {
        'receiver_token',
        'max_alerts_per_post',
        'autoheal_cooldown',
    }
