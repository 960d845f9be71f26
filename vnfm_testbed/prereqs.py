"""What a test does when something it needs is missing.

On a developer's machine it skips, naming what is missing. In CI
(``CI=true``) and under tools/run-tests (``VNFM_REQUIRE_PREREQS=1``) it
fails: a suite that skips silently there passes without testing. An opt-out
variable (``VNFM_SKIP_K8S=1`` for the local Kubernetes) makes the skip
explicit on a machine that cannot provide the prerequisite; CI ignores it.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest

STRICT_ENV = 'VNFM_REQUIRE_PREREQS'


def _flag(name: str) -> bool:
    return os.environ.get(name, '').lower() not in ('', '0', 'false', 'no')


def in_ci() -> bool:
    """Whether the tests run in CI (``CI`` set, as CI systems do)."""
    return _flag('CI')


def strict() -> bool:
    """Whether a missing prerequisite fails tests instead of skipping."""
    return in_ci() or _flag(STRICT_ENV)


def missing(reason: str, opt_out: str | None = None) -> NoReturn:
    """Skip the current test for ``reason``, or fail it when strict; the
    ``opt_out`` variable, when set outside CI, skips it anyway."""
    if opt_out and _flag(opt_out):
        if not in_ci():
            pytest.skip(f'{reason} ({opt_out} is set)')
        pytest.fail(
            f'{reason}: {opt_out} is set, which CI does not allow',
            pytrace=False,
        )
    if strict():
        hint = f'; {opt_out}=1 skips these tests instead' if opt_out else ''
        pytest.fail(
            f'{reason} (a missing prerequisite fails in CI and '
            f'under tools/run-tests{hint})',
            pytrace=False,
        )
    pytest.skip(reason)
