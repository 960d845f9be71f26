"""kubernetes_cluster.vim: from the script's output to the VIM and the
vimConnectionInfo entry."""

from __future__ import annotations

import base64

import pytest

from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.drivers.mgmt.kubernetes_cluster import vim
from vnfm.server.schemas import vims as vim_schema
from vnfm_testbed.k8s import certs


def results(**changes: str) -> dict[str, str]:
    out = {
        'SERVER': 'https://198.18.0.100:6443',
        'CA_CERT': base64.b64encode(certs.make_ca().cert_pem).decode(),
        'TOKEN': 'eyJhbGciOi.sa-token',
    }
    out.update(changes)
    return {k: v for k, v in out.items() if v}


def test_the_registered_vim_passes_the_registry_checks() -> None:
    access = vim.access_from(results(), 'master VNFC m1')
    body = vim.registration(access, 'kubernetes_vim', 'inst-1')
    vim_schema.validate_vim(body)  # what POST /v1.0/vims accepts
    assert body['auth_cred']['ssl_ca_cert'].startswith('-----BEGIN')
    assert 'sa-token' not in repr(access)


def test_connection_info_is_sealed_like_any_other() -> None:
    access = vim.access_from(results(), 'm1')
    entry = vim.connection_info(access, 'vim-9')
    sealed = crypto.seal_vim_connection_info({vim.CONNECTION_KEY: entry})
    assert 'sa-token' not in str(sealed)
    assert crypto.unseal_vim_connection_info(sealed)[vim.CONNECTION_KEY] == (
        entry
    )


@pytest.mark.parametrize(
    ('changes', 'said'),
    [
        ({'TOKEN': ''}, 'printed no TOKEN'),
        ({'SERVER': 'http://198.18.0.100:6443'}, 'not an https:// URL'),
        ({'CA_CERT': 'bm90IGEgY2VydA=='}, 'not a base64 PEM'),
        ({'CA_CERT': '!!!'}, 'not a base64 PEM'),
    ],
)
def test_bad_output_names_the_vm_and_what_is_wrong(
    changes: dict, said: str
) -> None:
    with pytest.raises(exceptions.OperationFailed) as caught:
        vim.access_from(results(**changes), 'master VNFC m1')
    assert caught.value.detail.startswith('master VNFC m1:')
    assert said in caught.value.detail
