"""Request bodies of /v1.0/vims (Tacker's NFVO API v1.0, as
python-tackerclient 2.x ``openstack vim register|set`` sends them): the JSON
Schemas, then ``validate_vim`` for what a schema cannot say (URL scheme,
which credentials a VIM type needs, PEM that parses)."""

from urllib import parse as urlparse

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from vnfm.common import exceptions
from vnfm.objects import vim as vim_obj
from vnfm.server.schemas import common

_SHORT = {'type': 'string', 'maxLength': 255}
_SECRET = {'type': 'string', 'maxLength': 16384}
# A PEM bundle: a CA chain or a client certificate or key.
_PEM = {'type': 'string', 'minLength': 1, 'maxLength': 65536}
# Tacker takes the strings 'True'/'False' (the client's check); YAML users
# also write booleans.
_FLAG = {'enum': ['True', 'False', 'true', 'false', True, False]}

AUTH_CRED = common.obj(
    {
        'username': _SHORT,
        'password': _SECRET,
        'user_domain_name': _SHORT,
        'cert_verify': _FLAG,
        'bearer_token': _SECRET,
        'ssl_ca_cert': _PEM,
        'client_cert': _PEM,
        'client_key': _PEM,
        'oidc_token_url': common.URI,
        'client_id': _SHORT,
        'client_secret': _SECRET,
    }
)

VIM_PROJECT = common.obj(
    {
        'name': _SHORT,
        'id': _SHORT,
        'project_domain_name': _SHORT,
    }
)

_VIM = {
    'name': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'description': {'type': ['string', 'null'], 'maxLength': 1024},
    'type': {'type': 'string', 'enum': ['kubernetes', 'openstack']},
    'tenant_id': {'type': ['string', 'null'], 'maxLength': 64},
    'auth_url': {'type': 'string', 'minLength': 1, 'maxLength': 1024},
    'auth_cred': AUTH_CRED,
    'vim_project': VIM_PROJECT,
    'is_default': common.BOOLEAN,
    'extra': common.KEY_VALUE_PAIRS,
}

# POST /v1.0/vims: {"vim": {...}}
CREATE = common.obj(
    {
        'vim': common.obj(_VIM, required=('name', 'auth_url', 'auth_cred')),
    },
    required=('vim',),
)

# PUT /v1.0/vims/{id}: {"vim": {...}}, every attribute optional
UPDATE = common.obj(
    {
        'vim': common.obj(_VIM, min_properties=1),
    },
    required=('vim',),
)

# Keys that would put a credential in ``extra``, which is stored in clear.
_SECRET_EXTRA_KEYS = frozenset(
    {
        'password',
        'bearer_token',
        'token',
        'secret',
        'client_secret',
        'client_key',
        'private_key',
        'ssh_private_key',
    }
)


def _check_auth_url(url: str, vim_type: str, extra: dict) -> None:
    parts = urlparse.urlsplit(url)
    if parts.scheme not in ('https', 'http') or not parts.netloc:
        raise exceptions.BadRequest(
            f'auth_url {url!r} is not an http(s) URL with a host.'
        )
    if (
        vim_type == vim_obj.KUBERNETES
        and parts.scheme == 'http'
        and not vim_obj.flag(extra.get(vim_obj.SKIP_TLS_VERIFY))
    ):
        raise exceptions.BadRequest(
            f'auth_url {url} is plain http: a Kubernetes VIM needs https, '
            f'or extra.{vim_obj.SKIP_TLS_VERIFY}: true to allow it.'
        )


def _check_pem(cred: dict) -> None:
    for key in ('ssl_ca_cert', 'client_cert'):
        if cred.get(key):
            try:
                x509.load_pem_x509_certificates(cred[key].encode())
            except ValueError:
                raise exceptions.BadRequest(
                    f'{key} is not a valid PEM certificate.'
                ) from None
    if cred.get('client_key'):
        try:
            serialization.load_pem_private_key(
                cred['client_key'].encode(), password=None
            )
        except (ValueError, TypeError):
            raise exceptions.BadRequest(
                'client_key is not a valid unencrypted PEM private key.'
            ) from None


def _check_kubernetes_cred(cred: dict) -> None:
    if cred.get('oidc_token_url'):
        missing = [
            k for k in ('username', 'password', 'client_id') if not cred.get(k)
        ]
        if missing:
            raise exceptions.BadRequest(
                f'auth_cred with oidc_token_url needs {", ".join(missing)}.'
            )
    elif not (
        cred.get('bearer_token')
        or (cred.get('username') and cred.get('password'))
        or (cred.get('client_cert') and cred.get('client_key'))
    ):
        raise exceptions.BadRequest(
            'auth_cred of a Kubernetes VIM needs bearer_token, username and '
            'password, or client_cert and client_key.'
        )


def _check_secret_free(value: object, path: str = 'extra') -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _SECRET_EXTRA_KEYS:
                raise exceptions.BadRequest(
                    f'{path}/{key}: extra is stored in clear and must not '
                    f'hold credentials; put them in auth_cred.'
                )
            _check_secret_free(item, f'{path}/{key}')
    elif isinstance(value, list):
        for item in value:
            _check_secret_free(item, path)


def validate_vim(vim: dict) -> None:
    """BadRequest unless ``vim`` (a complete VIM, after the JSON Schema)
    can be registered: a usable URL, credentials, PEM that parses."""
    cred, extra = vim['auth_cred'], vim.get('extra') or {}
    _check_auth_url(vim['auth_url'], vim['type'], extra)
    _check_secret_free(extra)
    _check_pem(cred)
    if vim['type'] == vim_obj.KUBERNETES:
        _check_kubernetes_cred(cred)
    else:
        if not (cred.get('username') and cred.get('password')):
            raise exceptions.BadRequest(
                'auth_cred of an OpenStack VIM needs username and password.'
            )
        if not (vim.get('vim_project') or {}).get('name'):
            raise exceptions.BadRequest(
                'vim_project/name (the OpenStack project) is required.'
            )
