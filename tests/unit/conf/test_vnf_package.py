"""[vnf_package] defaults: a package may unpack to more than its zip, and
is fetched only over http(s) (no file:// or other schemes)."""

from __future__ import annotations

from vnfm.conf import CONF


def test_the_unpacked_limit_exceeds_the_zip_limit():
    pkg = CONF.vnf_package

    assert pkg.max_uncompressed >= pkg.max_size
    assert pkg.max_ratio > 1


def test_packages_are_fetched_over_http_only():
    assert sorted(CONF.vnf_package.allowed_uri_schemes) == ['http', 'https']
