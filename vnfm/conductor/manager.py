"""The conductor's RPC endpoints: the casts hand their job to the worker
pool and return at once; the calls, ``test_notification_endpoint`` and
``check_vim``, answer when their test is done (they run in the RPC
server's thread).

Only the RPC methods are public here: oslo.messaging exposes every public
method of an endpoint.
"""

from __future__ import annotations

from typing import Any

import oslo_messaging

from vnfm.conductor import notifier
from vnfm.conductor import packages
from vnfm.conductor import vims
from vnfm.conductor.workers import WorkPool
from vnfm.db import registry
from vnfm.lcm.driver import LcmDriver


class ConductorManager:
    """RPC endpoint of vnfm-conductor (API version 1.4)."""

    # Kept equal to ConductorAPI.RPC_API_VERSION (a test checks it).
    RPC_API_VERSION = '1.4'
    target = oslo_messaging.Target(version=RPC_API_VERSION)

    def __init__(self, lcm: LcmDriver, pool: WorkPool) -> None:
        self._lcm = lcm
        self._pool = pool

    def start_lcm_op(self, ctx: Any, op_id: str) -> None:
        """Run an op occurrence (the API committed it before casting)."""
        submit_op(self._pool, self._lcm, op_id)

    def onboard_package(self, ctx: Any, package_id: str) -> None:
        """Onboard an uploaded package."""
        self._pool.submit(
            ('package', package_id), packages.onboard, package_id
        )

    def fetch_package(
        self,
        ctx: Any,
        package_id: str,
        user_name: str | None = None,
        password: str | None = None,
    ) -> None:
        """Download a package from its URI, then onboard it. (A vnfm-api
        older than RPC API 1.2 sends the credentials in the cast.)"""
        self._pool.submit(
            ('package', package_id),
            packages.fetch,
            package_id,
            user_name,
            password,
        )

    def test_notification_endpoint(
        self,
        ctx: Any,
        callback_uri: str,
        authentication: str | None,
        api_version: str,
        interface: str = registry.VNFLCM,
    ) -> str | None:
        """Test a callbackUri before the API creates its subscription (of
        ``interface``, since 1.4); None if it answered 204, else why not."""
        return notifier.test_notification_endpoint(
            callback_uri, authentication, api_version, interface
        )

    def check_vim(self, ctx: Any, vim: dict[str, Any]) -> str | None:
        """Authenticate with a VIM before the API registers it; None if it
        accepted the credentials, else why not."""
        return vims.check(vim)


def submit_op(pool: WorkPool, lcm: LcmDriver, op_id: str) -> bool:
    """Queue an op run; an unexpected crash is recorded on the op."""
    return pool.submit(
        ('op', op_id),
        lcm.start,
        op_id,
        on_crash=lambda e: lcm.record_crash(op_id, e),
    )
