"""The conductor's RPC client: the only conductor module vnfm-api imports.

The methods that start work are casts carrying ids only: the database
holds the truth and the cast is a doorbell (a lost one is found by the
conductors' sweep). ``test_notification_endpoint`` is the one call: the API
waits for its answer before it creates anything.

Versions: 1.0 - start_lcm_op, onboard_package, fetch_package.
          1.1 - test_notification_endpoint.
          1.2 - fetch_package without credentials: the conductor reads them
                sealed from the database (a cast waits on a durable queue).
          1.3 - check_vim (a call): authenticate with a VIM's credentials
                (sealed) before the API registers it.
          1.4 - test_notification_endpoint of a VNF package management
                subscription (interface 'vnfpkgm').
"""

from __future__ import annotations

from typing import Any

import oslo_messaging

from vnfm.common import rpc
from vnfm.conf import CONF
from vnfm.db import registry


class ConductorAPI:
    """Casts and calls to the conductors' topic (competing consumers)."""

    # Kept equal to ConductorManager.RPC_API_VERSION (a test checks it).
    RPC_API_VERSION = '1.4'

    # Seconds the API waits for a conductor beyond the test's own deadline.
    CALL_MARGIN = 10.0

    def __init__(
        self,
        transport: oslo_messaging.Transport | None = None,
        topic: str | None = None,
    ) -> None:
        target = oslo_messaging.Target(
            topic=topic or CONF.conductor.topic, version=self.RPC_API_VERSION
        )
        self._client = rpc.get_client(
            target, transport=transport, version_cap=self.RPC_API_VERSION
        )

    def _cast(
        self, ctx: Any, method: str, version: str = '1.0', **kwargs: Any
    ) -> None:
        # A bounded number of reconnection attempts: with the broker down
        # the API answers (the op is committed; the sweep finds it) instead
        # of blocking the request for ever.
        self._client.prepare(
            version=version, retry=CONF.conductor.cast_retries
        ).cast(ctx, method, **kwargs)

    def start_lcm_op(self, ctx: Any, op_id: str) -> None:
        """Ask a conductor to run the op occurrence ``op_id``."""
        self._cast(ctx, 'start_lcm_op', op_id=op_id)

    def onboard_package(self, ctx: Any, package_id: str) -> None:
        """Ask a conductor to onboard the uploaded package ``package_id``."""
        self._cast(ctx, 'onboard_package', package_id=package_id)

    def fetch_package(self, ctx: Any, package_id: str) -> None:
        """Ask a conductor to download the package from its URI (with the
        credentials stored sealed with it), then onboard it."""
        self._cast(ctx, 'fetch_package', version='1.2', package_id=package_id)

    def test_notification_endpoint(
        self,
        ctx: Any,
        callback_uri: str,
        authentication: str | None,
        api_version: str,
        interface: str = registry.VNFLCM,
    ) -> str | None:
        """Have a conductor test ``callback_uri`` (SOL003 5.4.20.3.2,
        SOL005 9.4.10.3.2) for a subscription of ``interface`` with
        ``authentication`` (encrypted, as stored); None if it answered 204,
        else why not. MessagingTimeout if no conductor answered."""
        timeout = CONF.notifications.callback_test_timeout + self.CALL_MARGIN
        kwargs = {
            'callback_uri': callback_uri,
            'authentication': authentication,
            'api_version': api_version,
        }
        version = '1.1'  # what conductors before 1.4 take: LCM only
        if interface != registry.VNFLCM:
            kwargs['interface'] = interface
            version = '1.4'
        return self._client.prepare(
            version=version,
            timeout=timeout,
            retry=CONF.conductor.cast_retries,
        ).call(ctx, 'test_notification_endpoint', **kwargs)

    def check_vim(self, ctx: Any, vim: dict[str, Any]) -> str | None:
        """Have a conductor authenticate with a VIM about to be registered
        (``vim``: the VIM row, ``auth_cred`` sealed); None if the VIM
        accepted the credentials, else why not. MessagingTimeout if no
        conductor answered."""
        timeout = (
            2
            * (CONF.openstack.connect_timeout + CONF.openstack.request_timeout)
            + self.CALL_MARGIN
        )
        return self._client.prepare(
            version='1.3', timeout=timeout, retry=CONF.conductor.cast_retries
        ).call(ctx, 'check_vim', vim=vim)
