"""[openstack] defaults: a stack has far longer than one request, and a
GRACEFUL terminate deletes at once unless asked to wait."""

from __future__ import annotations

from vnfm.conf import CONF


def test_a_stack_has_longer_than_a_request():
    os_ = CONF.openstack

    assert os_.stack_timeout > 10 * os_.request_timeout
    assert os_.request_timeout > os_.connect_timeout


def test_polls_are_frequent_within_a_request():
    os_ = CONF.openstack

    assert os_.poll_max_interval < os_.request_timeout


def test_graceful_terminate_waits_only_when_asked():
    assert CONF.openstack.graceful_termination_timeout == 0
