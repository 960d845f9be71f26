"""What a service writes to its log about its configuration at start."""

from __future__ import annotations

import logging

import pytest

from vnfm.conf import CONF


def logged_with(
    caplog: pytest.LogCaptureFixture, name: str, value: object, group: str
) -> str:
    """The configuration as logged (oslo.config's log_opt_values) with
    ``[group] name`` set to ``value``."""
    CONF.set_override(name, value, group)
    try:
        with caplog.at_level(logging.DEBUG):
            CONF.log_opt_values(logging.getLogger('vnfm.test'), logging.DEBUG)
    finally:
        CONF.clear_override(name, group)
    return caplog.text
