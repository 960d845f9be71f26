"""Delivery of the notification outbox by the conductors.

Each pass claims the rows due (a lease, as for ops: two conductors never
send one row at the same time, and a dead conductor's rows are sent by
another once its lease runs out), POSTs them in a small thread pool, and
records each outcome: DELIVERED, a retry after an exponential backoff, or
FAILED once ``[notifications] max_attempts`` attempts failed. A conductor
that dies after the POST but before recording it sends the row again
later: delivery is at least once, and copies keep the same ``id``.

Before vnfm-api creates a subscription, a conductor tests its callbackUri
(``test_notification_endpoint``, an RPC call): the test leaves from where
deliveries will leave, with the same CA file and client certificate.

Both obey the ``[outbound]`` policy. The subscriber learns only that an
endpoint was refused by it, unreachable or answered wrongly; what exactly
happened (status, kind of failure, address) goes to the conductor's log and
the outbox row's ``last_error``, which only operators see.
"""

from __future__ import annotations

import datetime
import logging
import threading
from concurrent import futures

from vnfm.clients import http
from vnfm.clients import outbound
from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.common import timeutils
from vnfm.conf import CONF
from vnfm.db import outbox
from vnfm.db import registry
from vnfm.objects import notifications

LOG = logging.getLogger(__name__)


def backoff(attempts: int) -> float:
    """Seconds to wait after the ``attempts``-th failed attempt."""
    conf = CONF.notifications
    return min(conf.backoff_cap, conf.backoff_base * 2 ** (attempts - 1))


def _verify() -> bool | str:
    return CONF.notifications.ca_file or True


def _client_cert() -> http.ClientCert | None:
    """vnfm's TLS client certificate, presented for authType TLS_CERT."""
    conf = CONF.notifications
    if not conf.client_cert_file:
        return None
    if conf.client_key_file:
        return conf.client_cert_file, conf.client_key_file
    return conf.client_cert_file


def test_notification_endpoint(
    callback_uri: str,
    authentication: str | None,
    api_version: str,
    interface: str = registry.VNFLCM,
) -> str | None:
    """Test a callbackUri for a subscription of ``interface`` about to be
    created (``authentication`` as stored: encrypted); None if it answered
    204, else why not, in words the subscriber can act on."""
    try:
        http.test_notification_endpoint(
            callback_uri,
            version=notifications.version_of(interface, api_version),
            authentication=(
                crypto.decrypt(authentication) if authentication else None
            ),
            timeout=CONF.notifications.callback_test_timeout,
            policy=outbound.configured(),
            verify=_verify(),
            cert=_client_cert(),
        )
    except http.DeliveryError as e:
        LOG.info('Notification endpoint test failed: %s', e.reason)
        return e.detail
    except exceptions.VnfmError as e:  # e.g. undecryptable credentials
        return e.detail
    return None


class Notifier:
    """Sends the outbox's due notifications on behalf of conductor
    ``host``."""

    def __init__(
        self, host: str, tokens: http.TokenCache | None = None
    ) -> None:
        self.host = host
        self.tokens = tokens or http.TOKENS
        outbound.configured()  # a CIDR typo stops the conductor at start
        self._pool = futures.ThreadPoolExecutor(
            CONF.notifications.workers, thread_name_prefix='vnfm-notify'
        )
        conf = CONF.notifications
        if conf.lease_seconds <= 4 * conf.timeout:
            # A send may then outlive its claim and be sent twice at once.
            LOG.warning(
                '[notifications] lease_seconds (%d) should exceed '
                '4 x timeout (%.0f s)',
                conf.lease_seconds,
                4 * conf.timeout,
            )

    def run_once(self) -> int:
        """Claim the rows due now and send them; how many were claimed."""
        now = timeutils.utcnow()
        until = now + datetime.timedelta(
            seconds=CONF.notifications.lease_seconds
        )
        rows = outbox.claim_due(
            self.host, now, until, CONF.notifications.workers
        )
        for done in futures.as_completed(
            [self._pool.submit(self.send, row) for row in rows]
        ):
            done.result()
        return len(rows)

    def drain(
        self, stopping: threading.Event | None = None, max_passes: int = 100
    ) -> int:
        """Passes until nothing is due, ``stopping`` is set or
        ``max_passes`` ran; how many rows were claimed."""
        total = 0
        for _ in range(max_passes):
            if stopping is not None and stopping.is_set():
                break
            claimed = self.run_once()
            total += claimed
            if not claimed:
                break
        return total

    def send(self, row: dict) -> str:
        """Deliver one claimed row and record the outcome; the new state."""
        failure = self._attempt(row)
        if failure is not None:
            return self._failed(row, *failure)
        self._finish(
            row,
            {
                'state': outbox.DELIVERED,
                'finished_at': timeutils.utcnow(),
                'attempts': row['attempts'] + 1,
                'last_error': None,
            },
        )
        LOG.debug(
            'Notification %s (%s) delivered to subscription %s',
            row['id'],
            row['notification_type'],
            row['subscription_id'],
        )
        return outbox.DELIVERED

    def _attempt(self, row: dict) -> tuple[str, bool] | None:
        """POST the row; None on success, else (why, permanent)."""
        try:
            self._post(row)
        except http.DeliveryError as e:
            return e.reason, e.permanent
        except exceptions.VnfmError as e:  # e.g. undecryptable credentials
            return e.detail, False
        except Exception as e:  # thread boundary: log, record, retry later
            LOG.exception('Notification %s: unexpected error', row['id'])
            return f'Internal error ({type(e).__name__}).', False
        return None

    def _post(self, row: dict) -> None:
        auth = (
            crypto.decrypt(row['authentication'])
            if row['authentication']
            else None
        )
        http.post_notification(
            row['callback_uri'],
            row['payload'],
            version=notifications.version_of(
                row['interface'], row['api_version']
            ),
            authentication=auth,
            timeout=CONF.notifications.timeout,
            policy=outbound.configured(),
            verify=_verify(),
            cert=_client_cert(),
            tokens=self.tokens,
        )

    def _failed(self, row: dict, detail: str, permanent: bool) -> str:
        attempts = row['attempts'] + 1
        now = timeutils.utcnow()
        if permanent or attempts >= CONF.notifications.max_attempts:
            self._finish(
                row,
                {
                    'state': outbox.FAILED,
                    'finished_at': now,
                    'attempts': attempts,
                    'last_error': detail,
                },
            )
            LOG.error(
                'Gave up notification %s (%s) to subscription %s '
                'after %d attempts: %s',
                row['id'],
                row['notification_type'],
                row['subscription_id'],
                attempts,
                detail,
            )
            return outbox.FAILED
        delay = backoff(attempts)
        self._finish(
            row,
            {
                'attempts': attempts,
                'last_error': detail,
                'next_attempt_at': now + datetime.timedelta(seconds=delay),
            },
        )
        LOG.warning(
            'Notification %s to subscription %s failed (attempt '
            '%d, next in %.1fs): %s',
            row['id'],
            row['subscription_id'],
            attempts,
            delay,
            detail,
        )
        return outbox.PENDING

    def _finish(self, row: dict, values: dict) -> None:
        if not outbox.finish(row['seq'], self.host, values):
            LOG.warning(
                'Notification %s: claim lost or subscription %s '
                'deleted before its outcome was recorded',
                row['id'],
                row['subscription_id'],
            )

    def purge(self, now: datetime.datetime) -> int:
        """Delete notifications finished more than ``keep_seconds`` ago."""
        return outbox.purge(
            now - datetime.timedelta(seconds=CONF.notifications.keep_seconds)
        )

    def stop(self) -> None:
        """Let the sends under way finish; no new ones."""
        self._pool.shutdown(wait=True)
