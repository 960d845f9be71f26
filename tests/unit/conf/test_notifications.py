"""[notifications] defaults: retries back off up to a cap, a delivery's
claim outlasts its HTTP deadline, a callbackUri is tested before a
subscription is created."""

from __future__ import annotations

from vnfm.conf import CONF


def test_retries_back_off_up_to_a_cap():
    n = CONF.notifications

    assert n.backoff_cap > n.backoff_base > 0
    assert n.max_attempts > 1


def test_a_delivery_claim_outlasts_its_http_deadline():
    n = CONF.notifications

    assert n.lease_seconds > n.timeout


def test_callback_uris_are_tested_by_default():
    assert CONF.notifications.test_callback_uri is True
