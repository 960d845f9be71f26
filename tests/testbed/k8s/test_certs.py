"""Unit tests for vnfm_testbed.k8s.certs."""

from __future__ import annotations

import ipaddress
import os
import stat
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from vnfm_testbed.k8s import certs


def test_serving_cert_is_signed_by_ca_with_sans() -> None:
    ca = certs.make_ca('test-ca')
    pair = certs.make_serving_cert(ca, 'apiserver', ['127.0.0.1', 'localhost'])
    cert = x509.load_pem_x509_certificate(pair.cert_pem)
    ca_cert = x509.load_pem_x509_certificate(ca.cert_pem)
    cert.verify_directly_issued_by(ca_cert)
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    assert san.value.get_values_for_type(x509.IPAddress) == [
        ipaddress.ip_address('127.0.0.1')
    ]
    assert san.value.get_values_for_type(x509.DNSName) == ['localhost']
    ca_bc = ca_cert.extensions.get_extension_for_class(x509.BasicConstraints)
    assert ca_bc.value.ca
    key = serialization.load_pem_private_key(pair.key_pem, password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    assert key.public_key().public_numbers() == (
        cert.public_key().public_numbers()  # type: ignore[union-attr]
    )


def test_service_account_key_pair_matches() -> None:
    private, public = certs.make_service_account_key()
    key = serialization.load_pem_private_key(private, password=None)
    pub = serialization.load_pem_public_key(public)
    assert key.public_key().public_numbers() == pub.public_numbers()  # type: ignore[union-attr]


def test_write_private_is_owner_only(tmp_path: Path) -> None:
    path = tmp_path / 'k.pem'
    certs.write_private(path, b'secret')
    assert path.read_bytes() == b'secret'
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
