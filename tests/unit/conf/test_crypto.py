"""[crypto] keys encrypt the secrets vnfm stores: never written to the log
when a service logs its configuration at start."""

from __future__ import annotations

from vnfm.conf import crypto

from .logged import logged_with


def test_the_keys_option_is_secret():
    [keys] = [o for o in crypto.opts if o.name == 'keys']

    assert keys.secret


def test_the_keys_never_reach_the_log(caplog):
    text = logged_with(
        caplog, 'keys', ['S3CRET-KEY-1', 'S3CRET-KEY-0'], 'crypto'
    )

    assert 'crypto.keys' in text
    assert 'S3CRET-KEY' not in text
