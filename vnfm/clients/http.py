"""HTTP to addresses API users give: downloads (package upload from URI)
and LCM notifications. Every connection obeys the outbound policy
(``outbound.Policy``); scheme checks, timeouts, TLS verified.

Errors carry two texts. ``detail`` goes to the API user: it says "refused
by policy", "unreachable" or "did not answer as required", never what the
peer answered nor how a connection failed, so that vnfm cannot be used to
map the hosts and ports it reaches. ``reason`` goes to the operator's log
with the HTTP status or the kind of failure. Neither holds credentials or
a URL's query.
"""

from __future__ import annotations

import base64
import hashlib
import json
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable
from typing import TypeVar

import requests
from urllib3.util import Timeout as UrlTimeout

from vnfm.clients import bounded
from vnfm.clients import deadlines
from vnfm.clients import outbound

_CHUNK = 64 * 1024


class DownloadError(Exception):
    """A download failed; ``detail`` says why in words a user can act on,
    ``reason`` adds what the operator may need (status, kind of failure).
    """

    def __init__(self, detail: str, reason: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.reason = reason or detail


_MAX_REDIRECTS = 5


def download(
    url: str,
    *,
    timeout: float,
    max_size: int,
    allowed_schemes: Iterable[str],
    policy: outbound.Policy,
    auth: tuple[str, str] | None = None,
) -> bytes:
    """The body of GET ``url``, within ``timeout`` seconds in total and at
    most ``max_size`` bytes.

    Neither ``url`` nor any redirect may use a scheme outside
    ``allowed_schemes``; every connection obeys ``policy``, so a user cannot
    make vnfm fetch from its own loopback services or a cloud's metadata
    address.
    """
    allowed = {s.lower() for s in allowed_schemes}
    deadline = time.monotonic() + timeout
    first = url
    try:
        with (
            deadlines.scope(timeout, f'GET {_safe(url)}'),
            bounded.bound(outbound.session(policy), timeout, 'GET') as http,
        ):
            for _hop in range(_MAX_REDIRECTS + 1):
                _check_target(url, allowed)
                target = _get(http, url, auth, deadline, max_size, timeout)
                if isinstance(target, bytes):
                    return target
                if _host(target) != _host(url):
                    auth = None  # credentials stay with their host
                url = target
    except deadlines.CallFailed:
        raise DownloadError(_too_slow(first, timeout)) from None
    raise DownloadError(
        f'GET {_safe(url)}: more than {_MAX_REDIRECTS} redirects.'
    )


def _get(
    http: requests.Session,
    url: str,
    auth: tuple[str, str] | None,
    deadline: float,
    max_size: int,
    timeout: float,
) -> bytes | str:
    """One GET: the body, or the URL a redirect leads to."""
    remaining = max(0.1, deadline - time.monotonic())
    try:
        # UTF-8 credentials (IETF RFC 7617); requests would use latin-1.
        utf8 = (
            requests.auth.HTTPBasicAuth(auth[0].encode(), auth[1].encode())
            if auth
            else None
        )
        with http.get(
            url,
            stream=True,
            auth=utf8,
            allow_redirects=False,
            timeout=(min(remaining, 10), remaining),
        ) as resp:
            if resp.is_redirect:
                return urllib.parse.urljoin(url, resp.headers['Location'])
            if resp.status_code != 200:
                raise DownloadError(
                    f'GET {_safe(url)} did not answer with the package '
                    '(200 OK).',
                    f'GET {_safe(url)} answered HTTP {resp.status_code}.',
                )
            declared = int(resp.headers.get('Content-Length') or 0)
            if declared > max_size:
                raise DownloadError(_too_large(url, max_size))
            return _read(resp, url, deadline, max_size, timeout)
    except (requests.RequestException, outbound.Refused) as e:
        raise DownloadError(*no_answer('GET', url, e, timeout)) from None


def _host(url: str) -> tuple[str, int | None]:
    parts = urllib.parse.urlsplit(url)
    return (parts.hostname or '').lower(), parts.port


def _check_target(url: str, allowed: set[str]) -> None:
    """Refuse ``url`` if its scheme is not allowed or it names no host."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in allowed:
        raise DownloadError(
            f'URI scheme {scheme or "(none)"!r} is not allowed; use one of '
            f'{", ".join(sorted(allowed))}.'
        )
    if not parts.hostname:
        raise DownloadError(f'{_safe(url)} names no host.')


def _read(
    resp: requests.Response,
    url: str,
    deadline: float,
    max_size: int,
    timeout: float,
) -> bytes:
    body = bytearray()
    for chunk in resp.iter_content(_CHUNK):
        body += chunk
        if len(body) > max_size:
            raise DownloadError(_too_large(url, max_size))
        if time.monotonic() > deadline:
            raise DownloadError(_too_slow(url, timeout))
    return bytes(body)


def _too_slow(url: str, timeout: float) -> str:
    return f'GET {_safe(url)} took longer than {timeout:g} s.'


def _too_large(url: str, max_size: int) -> str:
    return f'{_safe(url)} is larger than the limit of {max_size} bytes.'


# The URL without credentials or query, for messages.
_safe = bounded.safe_url


def no_answer(
    method: str,
    url: str,
    error: requests.RequestException | outbound.Refused | Exception,
    timeout: float | None = None,
    purpose: str = '',
) -> tuple[str, str]:
    """(detail, reason) of a request that got no answer: refused by the
    policy, or unreachable for whatever cause (the cause only in
    ``reason``: telling refused, silent and TLS-speaking ports apart would
    make vnfm a port scanner). ``purpose`` names the request's role."""
    what = f'{method} {_safe(url)}' + (f' ({purpose})' if purpose else '')
    if isinstance(error, outbound.Refused):
        return (
            f'{what} refused by policy: {error.host} resolves to an '
            'address vnfm does not connect to.',
            f'{what} refused by policy: {error}.',
        )
    within = '' if timeout is None else f' within {timeout:g} s'
    return (
        f'{what} failed: unreachable (no connection, no answer'
        f'{within}, or no TLS session).',
        f'{what} failed: {_failure(error, timeout)}.',
    )


# -- LCM notifications (SOL013 clause 8.3.4) ---------------------------------

BASIC, OAUTH2, TLS_CERT = 'BASIC', 'OAUTH2_CLIENT_CREDENTIALS', 'TLS_CERT'
_NOTIFY_SCHEMES = frozenset({'http', 'https'})

#: The client certificate vnfm presents for TLS_CERT: one PEM file holding
#: certificate and key, or (certificate file, key file).
ClientCert = str | tuple[str, str]
#: Seconds to connect and, separately, to wait for the answer; or a
#: urllib3 Timeout (``total`` bounds both together).
Timeout = float | UrlTimeout

_E = TypeVar('_E', bound=BaseException)


class DeliveryError(Exception):
    """A notification was not delivered, or a callbackUri failed its test;
    ``detail`` says why for the subscriber, ``reason`` for the operator's
    log; ``permanent``: retrying cannot help."""

    def __init__(
        self, detail: str, permanent: bool = False, reason: str | None = None
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.permanent = permanent
        self.reason = reason or detail


class TokenCache:
    """OAuth 2.0 client-credentials access tokens (RFC 6749 4.4), reused
    until shortly before they expire."""

    # Without expires_in, a token is reused this long.
    DEFAULT_LIFETIME = 60.0

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._tokens: dict[tuple, tuple[str, float]] = {}

    @staticmethod
    def _key(params: dict) -> tuple:
        secret = hashlib.sha256(
            str(params.get('clientPassword')).encode()
        ).hexdigest()
        return params.get('tokenEndpoint'), params.get('clientId'), secret

    def get(
        self,
        params: dict,
        *,
        timeout: Timeout,
        verify: bool | str,
        policy: outbound.Policy,
    ) -> str:
        """A valid access token for paramsOauth2ClientCredentials."""
        key = self._key(params)
        with self._lock:
            token, expires = self._tokens.get(key, ('', 0.0))
        if token and self._clock() < expires:
            return token
        token, lifetime = _fetch_token(params, timeout, verify, policy)
        # Renew a little early: the token must still be valid on arrival.
        margin = min(30.0, lifetime / 10)
        with self._lock:
            self._tokens[key] = (token, self._clock() + lifetime - margin)
        return token

    def forget(self, params: dict) -> None:
        """Drop the cached token (the receiver refused it)."""
        with self._lock:
            self._tokens.pop(self._key(params), None)


def _fetch_token(
    params: dict, timeout: Timeout, verify: bool | str, policy: outbound.Policy
) -> tuple[str, float]:
    endpoint = str(params.get('tokenEndpoint') or '')
    _check_scheme(endpoint)
    no_token = f'Token endpoint {_safe(endpoint)} gave no access token.'
    try:
        with bounded.bound(
            outbound.session(policy), _total(timeout), 'token'
        ) as http:
            resp = http.post(
                endpoint,
                data={'grant_type': 'client_credentials'},
                # UTF-8 (IETF RFC 7617); requests would use latin-1 for str.
                auth=requests.auth.HTTPBasicAuth(
                    str(params.get('clientId')).encode(),
                    str(params.get('clientPassword')).encode(),
                ),
                headers={'Accept': 'application/json'},
                # requests takes a urllib3 Timeout; its stubs say otherwise.
                timeout=timeout,  # type: ignore[arg-type]
                verify=verify,
                allow_redirects=False,
            )
    except (
        requests.RequestException,
        outbound.Refused,
        deadlines.CallTimedOut,
    ) as e:
        detail, reason = no_answer('POST', endpoint, e, purpose='token')
        raise DeliveryError(detail, reason=reason) from None
    except OSError as e:
        raise _tls_files_error(e) from None
    if resp.status_code != 200:
        raise DeliveryError(
            no_token,
            reason=(
                f'Token endpoint {_safe(endpoint)} answered HTTP '
                f'{resp.status_code}.'
            ),
        )
    try:
        body = resp.json()
        token = body['access_token']
        lifetime = float(body.get('expires_in') or TokenCache.DEFAULT_LIFETIME)
    except (ValueError, KeyError, TypeError):
        raise DeliveryError(
            no_token,
            reason=(
                f'Token endpoint {_safe(endpoint)} answered without a usable '
                'access_token.'
            ),
        ) from None
    return str(token), max(lifetime, 1.0)


def _total(timeout: Timeout) -> float:
    """The seconds ``timeout`` allows a request in all."""
    if not isinstance(timeout, UrlTimeout):
        return timeout
    if isinstance(timeout.total, (int, float)):
        return float(timeout.total)
    parts = (timeout.connect_timeout, timeout.read_timeout)
    return float(sum(p for p in parts if isinstance(p, (int, float))))


def _check_scheme(url: str) -> None:
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in _NOTIFY_SCHEMES:
        raise DeliveryError(
            f'URI scheme {scheme or "(none)"!r} cannot be '
            'used for notifications; use http or https.',
            permanent=True,
        )


def _tls_files_error(e: OSError) -> DeliveryError:
    """requests raises a bare OSError when a configured CA or client
    certificate file cannot be read: that is for the operator to fix (the
    file's name and the error only in their log)."""
    detail = (
        'vnfm cannot use its TLS files; the operator must correct '
        '[notifications] ca_file, client_cert_file or '
        'client_key_file.'
    )
    return DeliveryError(detail, reason=f'{detail} ({e})')


def _credentials(
    authentication: dict | None,
    cert: ClientCert | None,
    tokens: TokenCache,
    timeout: Timeout,
    verify: bool | str,
    policy: outbound.Policy,
) -> tuple[dict, ClientCert | None]:
    """The Authorization header and the client certificate that
    SubscriptionAuthentication asks for.

    authType lists what the consumer accepts: a header is sent for the
    first of OAUTH2_CLIENT_CREDENTIALS and BASIC that has its parameters,
    and vnfm's client certificate (``cert``) when TLS_CERT is listed.
    """
    if not authentication:
        return {}, None
    types = authentication.get('authType') or []
    client_cert = cert if TLS_CERT in types else None
    oauth2 = authentication.get('paramsOauth2ClientCredentials')
    basic = authentication.get('paramsBasic')
    if OAUTH2 in types and oauth2:
        return {
            'Authorization': 'Bearer '
            + tokens.get(oauth2, timeout=timeout, verify=verify, policy=policy)
        }, client_cert
    if BASIC in types and basic:
        user = f'{basic.get("userName", "")}:{basic.get("password", "")}'
        return {
            'Authorization': 'Basic '
            + base64.b64encode(user.encode()).decode('ascii')
        }, client_cert
    if client_cert:
        return {}, client_cert
    if TLS_CERT in types:
        # The operator may still configure one: not permanent.
        raise DeliveryError(
            'authType TLS_CERT needs the client certificate vnfm presents, '
            'and none is configured: the operator must set [notifications] '
            'client_cert_file.'
        )
    raise DeliveryError(
        f'authType {", ".join(types) or "(none)"} cannot be used: BASIC '
        'needs paramsBasic and OAUTH2_CLIENT_CREDENTIALS needs '
        'paramsOauth2ClientCredentials.',
        permanent=True,
    )


def _forget_refused_token(
    status: int, authentication: dict | None, tokens: TokenCache
) -> None:
    """After a 401 the next request gets a new token, not the refused one."""
    if (
        status == 401
        and authentication
        and authentication.get('paramsOauth2ClientCredentials')
    ):
        tokens.forget(authentication['paramsOauth2ClientCredentials'])


def post_notification(
    url: str,
    payload: dict,
    *,
    version: str,
    authentication: dict | None,
    timeout: float,
    policy: outbound.Policy,
    verify: bool | str = True,
    cert: ClientCert | None = None,
    tokens: TokenCache | None = None,
) -> None:
    """POST one notification to a callbackUri; DeliveryError unless the
    receiver answers 2xx (SOL013: 204). ``cert`` is presented when
    authType includes TLS_CERT."""
    tokens = tokens or TOKENS
    _check_scheme(url)
    header, client_cert = _credentials(
        authentication, cert, tokens, timeout, verify, policy
    )
    headers = {
        'Content-Type': 'application/json',
        'Accept': 'application/json',
        'Version': version,
        **header,
    }
    try:
        with bounded.bound(
            outbound.session(policy), timeout, 'notification'
        ) as http:
            resp = http.post(
                url,
                data=json.dumps(payload),
                headers=headers,
                timeout=timeout,
                verify=verify,
                cert=client_cert,
                allow_redirects=False,
            )
    except (
        requests.RequestException,
        outbound.Refused,
        deadlines.CallTimedOut,
    ) as e:
        detail, reason = no_answer('POST', url, e)
        raise DeliveryError(detail, reason=reason) from None
    except OSError as e:
        raise _tls_files_error(e) from None
    if 200 <= resp.status_code < 300:
        return
    _forget_refused_token(resp.status_code, authentication, tokens)
    raise DeliveryError(
        f'POST {_safe(url)} was not accepted (no 2xx answer).',
        reason=f'POST {_safe(url)} answered HTTP {resp.status_code}.',
    )


def test_notification_endpoint(
    url: str,
    *,
    version: str,
    authentication: dict | None,
    timeout: float,
    policy: outbound.Policy,
    verify: bool | str = True,
    cert: ClientCert | None = None,
    tokens: TokenCache | None = None,
) -> None:
    """Test a callbackUri before its subscription is created (SOL003
    5.4.20.3.2): GET with the subscription's authentication must answer
    204 No Content within ``timeout`` seconds in all (a token request
    included). DeliveryError otherwise, naming the URI.
    """
    tokens = tokens or TOKENS
    _check_scheme(url)
    deadline = time.monotonic() + timeout
    header, client_cert = _credentials(
        authentication, cert, tokens, UrlTimeout(total=timeout), verify, policy
    )
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeliveryError(
            f'GET {_safe(url)} not sent: the token request '
            f'took all of the {timeout:g} s allowed.'
        )
    headers = {'Accept': 'application/json', 'Version': version, **header}
    limit = UrlTimeout(total=left)
    try:
        with (
            bounded.bound(
                outbound.session(policy), left, 'callback test'
            ) as http,
            http.get(
                url,
                headers=headers,
                # requests takes a urllib3 Timeout; its stubs say otherwise.
                timeout=limit,  # type: ignore[arg-type]
                verify=verify,
                cert=client_cert,
                allow_redirects=False,
                stream=True,
            ) as resp,
        ):
            status = resp.status_code
    except (
        requests.RequestException,
        outbound.Refused,
        deadlines.CallTimedOut,
    ) as e:
        detail, reason = no_answer('GET', url, e, timeout)
        raise DeliveryError(detail, reason=reason) from None
    except OSError as e:
        raise _tls_files_error(e) from None
    _forget_refused_token(status, authentication, tokens)
    if status != 204:
        raise DeliveryError(
            f'GET {_safe(url)} did not answer 204 No Content, as a '
            'notification endpoint must.',
            reason=f'GET {_safe(url)} answered HTTP {status}.',
        )


def _failure(e: Exception, timeout: float | None = None) -> str:
    """What went wrong, in words (``timeout``: the seconds allowed, when
    one number says it); never ``str(e)``, which shows the URL with its
    query."""
    name = type(e).__name__
    within = 'in time' if timeout is None else f'within {timeout:g} s'
    if isinstance(e, deadlines.CallTimedOut):
        return f'no complete answer {within} ({name})'
    if isinstance(e, requests.ConnectTimeout):
        return f'no connection {within} ({name})'
    if isinstance(e, requests.Timeout):
        return f'no answer {within} ({name})'
    tls = _cause(e, ssl.SSLError)
    if isinstance(tls, ssl.SSLCertVerificationError):
        return f'TLS: {tls.verify_message} ({name})'
    if tls is not None:
        return f'TLS: {tls.reason or "handshake failed"} ({name})'
    if _cause(e, ConnectionRefusedError) is not None:
        return f'connection refused ({name})'
    if _cause(e, socket.gaierror) is not None:
        return f'the host name does not resolve ({name})'
    return name


def _cause(error: BaseException, kind: type[_E]) -> _E | None:
    """The first ``kind`` among the errors ``error`` wraps (requests and
    urllib3 nest them in args, ``reason``, ``__cause__``, ``__context__``).
    """
    seen: set[int] = set()
    todo: list[object] = [error]
    while todo:
        item = todo.pop(0)
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, kind):
            return item
        todo += [
            *item.args,
            getattr(item, 'reason', None),
            item.__cause__,
            item.__context__,
        ]
    return None


#: The tokens of the process's notification deliveries.
TOKENS = TokenCache()
