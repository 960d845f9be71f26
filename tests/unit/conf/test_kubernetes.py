"""[kubernetes] defaults: waiting for a workload outlasts one API request,
and a Pod's graceful termination fits in the delete deadline."""

from __future__ import annotations

from vnfm.conf import CONF


def test_waits_outlast_one_request():
    k8s = CONF.kubernetes

    for name in ('ready_timeout', 'delete_timeout', 'eviction_timeout'):
        assert k8s[name] > k8s.request_timeout, name
    assert k8s.request_timeout > k8s.connect_timeout


def test_graceful_termination_fits_in_the_delete_deadline():
    k8s = CONF.kubernetes

    assert k8s.graceful_termination_timeout < k8s.delete_timeout
