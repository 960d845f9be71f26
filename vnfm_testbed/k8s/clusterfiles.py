"""Files a local cluster starts from: PKI, static token file, kubeconfigs."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from vnfm_testbed.k8s import certs

APISERVER_NAMES = [
    '127.0.0.1',
    'localhost',
    '10.96.0.1',
    'kubernetes',
    'kubernetes.default',
    'kubernetes.default.svc',
    'kubernetes.default.svc.cluster.local',
]


def write_pki(
    pki: Path, ca_name: str, extra_names: Sequence[str] = ()
) -> None:
    """Write a CA, the API server's serving cert (for ``APISERVER_NAMES``
    and ``extra_names``) and the SA key pair."""
    pki.mkdir(parents=True, exist_ok=True)
    ca = certs.make_ca(ca_name)
    names = list(dict.fromkeys([*APISERVER_NAMES, *extra_names]))
    serving = certs.make_serving_cert(ca, 'kube-apiserver', names)
    sa_key, sa_pub = certs.make_service_account_key()
    (pki / 'ca.crt').write_bytes(ca.cert_pem)
    certs.write_private(pki / 'ca.key', ca.key_pem)
    (pki / 'apiserver.crt').write_bytes(serving.cert_pem)
    certs.write_private(pki / 'apiserver.key', serving.key_pem)
    certs.write_private(pki / 'sa.key', sa_key)
    (pki / 'sa.pub').write_bytes(sa_pub)


def token_lines(
    users: Mapping[str, Sequence[str]], tokens: Mapping[str, str]
) -> list[str]:
    """Lines of a static token file: token,user,uid[,"group1,group2"]."""
    lines = []
    for user, groups in users.items():
        line = f'{tokens[user]},{user},{user}'
        lines.append(f'{line},"{",".join(groups)}"' if groups else line)
    return lines


def write_tokens(
    path: Path, users: Mapping[str, Sequence[str]]
) -> dict[str, str]:
    """Write a static token file with a fresh token per user; return them."""
    tokens = {user: secrets.token_hex(24) for user in users}
    text = '\n'.join(token_lines(users, tokens)) + '\n'
    certs.write_private(path, text.encode())
    return tokens


def write_kubeconfig(
    path: Path, name: str, server: str, ca_path: Path, user: str, token: str
) -> None:
    """Write a kubeconfig with one cluster, one token user and a context."""
    config = {
        'apiVersion': 'v1',
        'kind': 'Config',
        'clusters': [
            {
                'name': name,
                'cluster': {
                    'server': server,
                    'certificate-authority': str(ca_path),
                },
            }
        ],
        'users': [{'name': user, 'user': {'token': token}}],
        'contexts': [
            {'name': name, 'context': {'cluster': name, 'user': user}}
        ],
        'current-context': name,
    }
    text = yaml.safe_dump(config, sort_keys=False)
    certs.write_private(path, text.encode())
