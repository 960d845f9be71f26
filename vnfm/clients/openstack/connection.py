"""A Keystone session built from an OpenStack VIM's vimConnectionInfo.

vimConnectionInfo (vimType ``ETSINFV.OPENSTACK_KEYSTONE.V_3``, or Tacker's
v1 name ``openstack``) fields used:

* ``interfaceInfo.endpoint``: Keystone's URL (``.../v3`` skips version
  discovery; any other URL is discovered).
* ``interfaceInfo.skipCertificateVerification`` (or
  ``skipCertificateHostnameCheck``): the only way to turn TLS verification
  off. ``interfaceInfo.ssl_ca_cert`` (PEM) or ``trustedCertificates`` (a
  list of PEM): the CAs to trust instead of the system store.
* ``accessInfo``: ``username``, ``password``, ``userDomain``, ``project``
  or ``projectId``, ``projectDomain``, ``region``.

One ``Connection`` serves one operation: the token Keystone gives on the
first request is reused by every later one. ``counts`` tells how many
requests went to Keystone and to the other services, for benchmarks.
"""

from __future__ import annotations

import collections
import hashlib
import logging
import os
import tempfile
import threading
from typing import Any
from urllib import parse

import requests
from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import generic
from keystoneauth1.identity import v3

from vnfm.clients import bounded
from vnfm.clients import deadlines
from vnfm.clients import http
from vnfm.clients import outbound
from vnfm.clients.openstack.errors import BadVimConnection
from vnfm.clients.openstack.errors import OpenStackError
from vnfm.conf import CONF

LOG = logging.getLogger(__name__)
VIM_TYPES = ('ETSINFV.OPENSTACK_KEYSTONE.V_3', 'openstack')

_ca_dir_lock = threading.Lock()
_ca_dir: str | None = None


def _flag(value: Any) -> bool:
    return value is True or (
        isinstance(value, str) and value.strip().lower() == 'true'
    )


def ca_file(pem: str) -> str:
    """A file holding the CA bundle ``pem`` (requests verifies with paths);
    one per bundle, in a directory only this user can write."""
    global _ca_dir
    with _ca_dir_lock:
        if _ca_dir is None:
            _ca_dir = tempfile.mkdtemp(prefix='vnfm-os-ca-')
        path = os.path.join(
            _ca_dir, hashlib.sha256(pem.encode()).hexdigest()[:32] + '.pem'
        )
        if not os.path.exists(path):
            fd, tmp = tempfile.mkstemp(dir=_ca_dir)
            with os.fdopen(fd, 'w') as f:
                f.write(pem)
            os.replace(tmp, path)
    return path


def _verify(iface: dict[str, Any]) -> bool | str:
    """requests' ``verify`` for interfaceInfo."""
    if _flag(iface.get('skipCertificateVerification')) or _flag(
        iface.get('skipCertificateHostnameCheck')
    ):
        return False
    pems = [str(p) for p in iface.get('trustedCertificates') or []]
    if iface.get('ssl_ca_cert'):
        pems.append(str(iface['ssl_ca_cert']))
    return ca_file('\n'.join(pems)) if pems else True


def _auth(endpoint: str, access: dict[str, Any]) -> Any:
    """A keystoneauth1 password plugin for accessInfo."""
    if not access.get('username') or access.get('password') is None:
        raise BadVimConnection(
            'vimConnectionInfo.accessInfo needs username and password for '
            'an OpenStack VIM.'
        )
    if not (access.get('project') or access.get('projectId')):
        raise BadVimConnection(
            'vimConnectionInfo.accessInfo needs project (or projectId) for '
            'an OpenStack VIM.'
        )
    kwargs = {
        'auth_url': endpoint,
        'username': access['username'],
        'password': access['password'],
        'user_domain_name': access.get('userDomain') or 'Default',
    }
    if access.get('projectId'):
        kwargs['project_id'] = access['projectId']
    else:
        kwargs['project_name'] = access['project']
        kwargs['project_domain_name'] = (
            access.get('projectDomain') or 'Default'
        )
    if parse.urlsplit(endpoint).path.rstrip('/').endswith('/v3'):
        return v3.Password(**kwargs)
    return generic.Password(**kwargs)


def _identity_root(endpoint: str) -> str:
    """Keystone's root URL: the endpoint without its version."""
    root = endpoint.rstrip('/')
    return root[: -len('/v3')] if root.endswith('/v3') else root


class Counter:
    """Counts the HTTP requests a requests Session sends, per service."""

    def __init__(self, identity_root: str) -> None:
        self._identity_root = identity_root
        self.counts: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()

    def __call__(self, response: requests.Response, **kwargs: Any) -> None:
        """requests response hook: count the request (redirects too)."""
        url = str(response.request.url or '')
        root = self._identity_root
        keystone = url == root or url.startswith(root + '/')
        service = 'keystone' if keystone else 'heat'
        with self._lock:
            self.counts[service] += 1


class Connection:
    """The authenticated session of one OpenStack VIM for one operation."""

    def __init__(
        self, vim: dict[str, Any], policy: outbound.Policy | None = None
    ) -> None:
        iface = vim.get('interfaceInfo') or {}
        access = vim.get('accessInfo') or {}
        self.endpoint = str(iface.get('endpoint') or '').rstrip('/')
        if not self.endpoint.startswith(('https://', 'http://')):
            raise BadVimConnection(
                'vimConnectionInfo.interfaceInfo.endpoint must be the '
                f'http(s):// URL of Keystone (got {self.endpoint!r}).'
            )
        self.region = access.get('region') or None
        self._policy = policy
        http = bounded.bound(
            outbound.session(policy) if policy else requests.Session(),
            CONF.openstack.request_timeout,
            'OpenStack',
        )
        self._counter = Counter(_identity_root(self.endpoint))
        http.hooks['response'].append(self._counter)
        self.session = ks_session.Session(
            auth=_auth(self.endpoint, access),
            verify=_verify(iface),
            session=http,
        )
        # (connect, read): keystoneauth hands its timeout to requests as is;
        # ``bounded`` limits each request to request_timeout in all.
        self.session.timeout = (  # type: ignore[assignment]
            CONF.openstack.connect_timeout,
            CONF.openstack.request_timeout,
        )
        self._http = http
        self._others: list[requests.Session] = []

    def long_session(self, total: float, name: str) -> ks_session.Session:
        """A session with this one's token and TLS whose requests may each
        take ``total`` seconds (image uploads); closed with this one."""
        http = bounded.bound(
            outbound.session(self._policy)
            if self._policy
            else requests.Session(),
            total,
            name,
        )
        self._others.append(http)
        sess = ks_session.Session(
            auth=self.session.auth, verify=self.session.verify, session=http
        )
        sess.timeout = (  # type: ignore[assignment]
            CONF.openstack.connect_timeout,
            total,
        )
        return sess

    @property
    def counts(self) -> dict[str, int]:
        """Requests made so far: {'keystone': n, 'heat': m}."""
        return {'keystone': 0, 'heat': 0, **self._counter.counts}

    def authenticate(self) -> str:
        """Get a token (the check made when a VIM is registered); the
        project id. OpenStackError saying what went wrong."""
        try:
            return str(self.session.get_project_id())
        except ks_exc.Unauthorized:
            raise OpenStackError(
                f'Keystone at {self.endpoint} refused the credentials: check '
                'the username, password, project and domains.'
            ) from None
        except (outbound.Refused, ks_exc.ConnectionError) as e:
            raise self._no_answer(e) from None
        except ks_exc.ClientException as e:
            # What Keystone (or whatever answers there) said is for the
            # operator's log: echoed, it would show a user inside pages.
            LOG.info('Keystone at %s cannot be used: %s', self.endpoint, e)
            status = getattr(e, 'http_status', None)
            said = f'answered HTTP {status}' if status else type(e).__name__
            raise OpenStackError(
                f'Keystone at {self.endpoint} {said}: it cannot be used as '
                "the VIM's identity service."
            ) from None
        except deadlines.CallFailed as e:
            raise OpenStackError(
                f'Keystone at {self.endpoint} cannot be used: {e.detail}'
            ) from None

    def _no_answer(
        self, e: outbound.Refused | ks_exc.ConnectionError
    ) -> OpenStackError:
        """The error of a Keystone refused by the outbound policy or that
        gave no answer, in the words of every outbound request."""
        cause = e if isinstance(e, outbound.Refused) else e.__context__
        if not isinstance(
            cause, (outbound.Refused, requests.RequestException)
        ):
            cause = requests.ConnectionError()
        # One wording for every outbound request (http's, shared).
        detail, reason = http.no_answer(
            'POST', self.endpoint, cause, purpose='Keystone'
        )
        LOG.info('VIM check: %s', reason)
        return OpenStackError(detail)

    def close(self) -> None:
        """Close the connection pools."""
        for pool in [self._http, *self._others]:
            pool.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
