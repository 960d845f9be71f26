"""Package content: upload (PUT, or from a URI), download, the VNFD and
artifacts (SOL005 v2.6.1 clauses 9.4.4 to 9.4.7)."""

from __future__ import annotations

import io
import posixpath
import urllib.parse
import zipfile

import webob

from vnfm import csar
from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.db import api as db
from vnfm.db import rows
from vnfm.objects import states
from vnfm.server import http
from vnfm.server.controllers import common
from vnfm.server.controllers import vnf_packages
from vnfm.server.request import ApiRequest

_O = states.OnboardingState
ZIP_MAGIC = b'PK\x03\x04'
_META_DIR = 'TOSCA-Metadata/'


def _start_upload(
    req: ApiRequest, values: dict | None = None
) -> rows.PackageRow:
    """CAS CREATED → UPLOADING: only one upload ever starts."""
    row = vnf_packages.get_package(req)
    package_id = row['id']
    if row['onboarding_state'] != _O.CREATED.value:
        raise exceptions.PackageStateConflict(
            f'VNF package {package_id} is {row["onboarding_state"]}; content '
            f'can only be uploaded to a package in CREATED state.'
        )
    return db.package_update(
        package_id,
        dict(values or {}, onboarding_state=_O.UPLOADING.value),
        {'onboarding_state': _O.CREATED.value},
    )


def upload(req: ApiRequest) -> webob.Response:
    """PUT package_content: store the zip, then onboard it asynchronously."""
    data = req.raw_body
    if not data:
        raise exceptions.BadRequest('The package content is empty.')
    if not data.startswith(ZIP_MAGIC):
        raise exceptions.BadRequest('The package content is not a zip file.')
    row = _start_upload(req)
    try:
        db.package_content_put(row['id'], data)
    except BaseException:
        # Put the package back so the client can upload again, then let
        # the error reach the pipeline.
        db.package_update(
            row['id'],
            {'onboarding_state': _O.CREATED.value},
            {'onboarding_state': _O.UPLOADING.value},
        )
        raise
    db.package_update(
        row['id'],
        {'onboarding_state': _O.PROCESSING.value, 'package_size': len(data)},
        {'onboarding_state': _O.UPLOADING.value},
    )
    common.cast(req, 'onboard_package', row['id'])
    return http.empty_response(202)


def _split_credentials(address: str) -> tuple[str, str | None, str | None]:
    """The URI without user info, and the user and password it held."""
    parts = urllib.parse.urlsplit(address)
    if parts.username is None and parts.password is None:
        return address, None, None
    host = parts.hostname or ''
    if ':' in host:
        host = f'[{host}]'
    netloc = host + (f':{parts.port}' if parts.port else '')
    clean = urllib.parse.urlunsplit(parts._replace(netloc=netloc))
    return (
        clean,
        urllib.parse.unquote(parts.username or ''),
        urllib.parse.unquote(parts.password or ''),
    )


def _upload_source(
    address: str, user: str | None, password: str | None
) -> dict:
    """The package's upload_source: the password, and the URI when its
    query (or fragment) may hold a token, sealed; the rest readable."""
    parts = urllib.parse.urlsplit(address)
    source = {
        'addressInformation': urllib.parse.urlunsplit(
            parts._replace(query='', fragment='')
        )
    }
    sealed = {}
    if parts.query or parts.fragment:
        sealed['addressInformation'] = address
    if user:
        source['userName'] = user
        if password:
            sealed['password'] = password
    if sealed:
        source[crypto.SEALED] = crypto.encrypt(sealed)
    return source


def upload_from_uri(req: ApiRequest) -> webob.Response:
    """POST upload_from_uri: a conductor fetches the package and onboards
    it. The password is stored sealed (encrypted) with the package until
    the download ends; the cast carries the package id only."""
    body = req.json
    try:
        address, uri_user, uri_password = _split_credentials(
            body['addressInformation']
        )
        scheme = urllib.parse.urlsplit(address).scheme.lower()
    except ValueError as e:
        raise exceptions.BadRequest(
            f'addressInformation: not a valid URI ({e}).'
        ) from None
    allowed = [s.lower() for s in CONF.vnf_package.allowed_uri_schemes]
    if scheme not in allowed:
        raise exceptions.BadRequest(
            f'addressInformation: scheme {scheme or "(none)"!r} is not '
            f'allowed; use {" or ".join(allowed)}.'
        )
    user = body.get('userName', uri_user)
    password = body.get('password', uri_password)
    row = _start_upload(
        req, {'upload_source': _upload_source(address, user, password)}
    )
    common.cast(req, 'fetch_package', row['id'])
    return http.empty_response(202)


def _onboarded(req: ApiRequest) -> rows.PackageRow:
    row = vnf_packages.get_package(req)
    if row['onboarding_state'] != _O.ONBOARDED.value:
        raise exceptions.PackageStateConflict(
            f'VNF package {row["id"]} is {row["onboarding_state"]}; its '
            f'content is available once it is ONBOARDED.'
        )
    return row


def download(req: ApiRequest) -> webob.Response:
    """GET package_content: the zip (206 for a Range request)."""
    row = _onboarded(req)
    return http.file_response(db.package_content_get(row['id']), http.ZIP)


def _read(row: rows.PackageRow) -> csar.Csar:
    limits = csar.CsarLimits(
        max_size=CONF.vnf_package.max_size,
        max_uncompressed=CONF.vnf_package.max_uncompressed,
        max_ratio=CONF.vnf_package.max_ratio,
        max_files=CONF.vnf_package.max_files,
    )
    try:
        return csar.read_csar(db.package_content_get(row['id']), limits)
    except csar.InvalidPackage as e:
        # Onboarded content that no longer reads: a server-side fault.
        raise exceptions.VnfmError(
            f'The stored content of VNF package {row["id"]} cannot be '
            f'read: {e}'
        ) from None


def _vnfd_files(pkg: csar.Csar) -> dict[str, bytes]:
    """The VNFD: the YAML files of the entry definitions' directory (all
    of the package root for a root-level VNFD) and TOSCA-Metadata."""
    folder = posixpath.dirname(pkg.entry_definitions)
    prefix = folder + '/' if folder else ''
    out = {}
    for name, data in pkg.files.items():
        in_folder = name.startswith(prefix) if folder else '/' not in name
        if name.startswith(_META_DIR) or (
            in_folder and name.lower().endswith(('.yaml', '.yml'))
        ):
            out[name] = data
    return out


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            zf.writestr(name, files[name])
    return buf.getvalue()


def vnfd(req: ApiRequest) -> webob.Response:
    """GET vnfd: text/plain for a one-file VNFD, else (or when the client
    accepts both) a zip of the VNFD files."""
    offers = [http.ZIP, http.TEXT]
    accepted = (
        req.accept.acceptable_offers(offers)
        if 'Accept' in req.headers
        else [(o, 1) for o in offers]
    )
    kinds = {o for o, _ in accepted}
    if not kinds:
        raise exceptions.NotAcceptable(
            'The VNFD is available as application/zip or text/plain.'
        )
    files = _vnfd_files(_read(_onboarded(req)))
    if http.ZIP in kinds:
        return http.file_response(_zip(files), http.ZIP)
    yamls = [n for n in files if not n.startswith(_META_DIR)]
    if len(yamls) != 1:
        raise exceptions.NotAcceptable(
            f'The VNFD has {len(yamls)} files; ask for application/zip.'
        )
    return http.file_response(files[yamls[0]], http.TEXT)


def artifact(req: ApiRequest) -> webob.Response:
    """GET artifacts/{path}: one artifact file of the package."""
    row = _onboarded(req)
    path = req.path_args['path']
    declared = {
        a.get('artifactPath')
        for a in row.get('additional_artifacts') or []
        if isinstance(a, dict)
    }
    declared |= {
        i.get('imagePath')
        for i in row.get('software_images') or []
        if isinstance(i, dict)
    }
    pkg = _read(row)
    declared |= {a.path for a in pkg.artifacts}
    if path not in declared or path not in pkg.files:
        raise exceptions.NotFound(
            f'VNF package {row["id"]} has no artifact {path[:255]!r}.'
        )
    return http.file_response(pkg.files[path], http.OCTET_STREAM)
