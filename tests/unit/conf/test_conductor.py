"""[conductor] defaults that keep a live conductor's ops its own: the
lease is renewed several times before it could expire, and a new op gets
time to be claimed before the sweep takes it as lost."""

from __future__ import annotations

from vnfm.conf import CONF


def test_a_lease_outlives_several_heartbeats():
    conductor = CONF.conductor

    assert conductor.lease_seconds >= 3 * conductor.heartbeat_interval


def test_a_new_op_is_not_swept_before_a_conductor_could_claim_it():
    conductor = CONF.conductor

    assert conductor.unclaimed_grace_seconds > conductor.sweep_interval


def test_a_stopping_conductor_waits_for_its_ops_longer_than_a_lease():
    conductor = CONF.conductor

    assert conductor.graceful_shutdown_timeout > conductor.lease_seconds
