"""Package onboarding and upload from URI, run by the conductor.

Both are idempotent: every change is a compare-and-set on the onboarding
state, so a doorbell rung twice (or a sweep after a lost cast) is harmless.

The credentials of an upload from URI (its password, and the URI itself
when it has a query, which may hold a token) wait sealed in the package's
``upload_source`` (never in the cast) and are dropped once the download
has ended, whichever way.
"""

from __future__ import annotations

import logging

from vnfm.clients import http
from vnfm.clients import outbound
from vnfm.common import crypto
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.csar import InvalidPackage
from vnfm.csar import read_csar
from vnfm.db import api as db
from vnfm.lcm import inputs
from vnfm.objects import package_notifications
from vnfm.objects.states import OnboardingState
from vnfm.objects.states import OperationalState

LOG = logging.getLogger(__name__)
UPLOAD_INTERRUPTED = 'The upload was interrupted; upload again.'


def _problem(status: int, detail: str) -> dict:
    titles = {
        422: 'Unprocessable Entity',
        500: 'Internal Server Error',
        409: 'Conflict',
    }
    return {
        'status': status,
        'title': titles.get(status, 'Error'),
        'detail': detail,
    }


def mark_error(
    package_id: str,
    from_state: OnboardingState,
    status: int,
    detail: str,
    *,
    reason: str | None = None,
    values: dict | None = None,
) -> None:
    """Move a package to ERROR with a ProblemDetails, if still in
    ``from_state``; ``reason`` (for the log) defaults to ``detail``,
    ``values`` are further columns to set."""
    try:
        db.package_update(
            package_id,
            {
                **(values or {}),
                'onboarding_state': OnboardingState.ERROR.value,
                'onboarding_failure_details': _problem(status, detail),
            },
            expected={'onboarding_state': from_state.value},
        )
        LOG.warning(
            'Package %s: onboarding failed: %s', package_id, reason or detail
        )
    except exceptions.ConcurrentUpdate:
        LOG.info('Package %s left %s meanwhile', package_id, from_state)


def _artifact(artifact) -> dict:
    info = {
        'artifactPath': artifact.path,
        'metadata': dict(artifact.metadata or {}),
    }
    if artifact.checksum_hash:
        info['checksum'] = {
            'algorithm': artifact.checksum_algorithm,
            'hash': artifact.checksum_hash,
        }
    return info


def onboarded_values(csar, size: int) -> dict:
    """Package columns of an onboarded CSAR."""
    vnfd = csar.vnfd
    return {
        'onboarding_state': OnboardingState.ONBOARDED.value,
        'operational_state': OperationalState.ENABLED.value,
        'vnfd_id': vnfd.vnfd_id,
        'vnf_provider': vnfd.provider,
        'vnf_product_name': vnfd.product_name,
        'vnf_software_version': vnfd.software_version,
        'vnfd_version': vnfd.vnfd_version,
        'checksum': csar.checksum,
        'software_images': csar.software_images,
        'additional_artifacts': [_artifact(a) for a in csar.artifacts],
        'vnfd': vnfd.to_dict(),
        'package_size': size,
        'onboarding_failure_details': None,
    }


def onboard(package_id: str) -> None:
    """Validate a PROCESSING package: ONBOARDED, or ERROR with details."""
    package = db.package_get(package_id)
    if package['onboarding_state'] != OnboardingState.PROCESSING.value:
        return
    data = db.package_content_get(package_id)
    try:
        csar = read_csar(data, inputs.limits())
    except InvalidPackage as e:
        mark_error(package_id, OnboardingState.PROCESSING, 422, e.detail)
        return
    other = db.package_get_by_vnfd_id(csar.vnfd.vnfd_id)
    if other is not None and other['id'] != package_id:
        mark_error(
            package_id,
            OnboardingState.PROCESSING,
            422,
            f'VNF package {other["id"]} already has vnfdId '
            f'{csar.vnfd.vnfd_id}; delete it first or use a VNFD '
            'with another descriptor_id.',
        )
        return
    values = onboarded_values(csar, len(data))
    try:
        db.package_update(
            package_id,
            values,
            expected={'onboarding_state': OnboardingState.PROCESSING.value},
            notifications=package_notifications.for_onboarding(
                {**package, **values}
            ),
        )
    except exceptions.AlreadyExists as e:
        # Another package took the vnfdId in between.
        mark_error(package_id, OnboardingState.PROCESSING, 422, e.detail)
        return
    except exceptions.ConcurrentUpdate:
        return  # the state moved: someone else finished
    LOG.info('Package %s ONBOARDED (vnfdId %s)', package_id, csar.vnfd.vnfd_id)


def without_secrets(source: dict | None) -> dict | None:
    """An ``upload_source`` without its sealed credentials."""
    if source is None:
        return None
    return {k: v for k, v in source.items() if k != crypto.SEALED}


def _download(
    source: dict, user_name: str | None, password: str | None
) -> bytes:
    """GET the package of ``source`` with its sealed URI (one with a
    query) and password, or else with the credentials an older vnfm-api
    sent in the cast."""
    sealed = (
        crypto.decrypt(source[crypto.SEALED])
        if crypto.SEALED in source
        else {}
    )
    user_name = source.get('userName') or user_name
    password = sealed.get('password', password)
    opts = CONF.vnf_package
    return http.download(
        sealed.get('addressInformation') or source['addressInformation'],
        timeout=opts.upload_from_uri_timeout,
        max_size=opts.max_size,
        allowed_schemes=opts.allowed_uri_schemes,
        policy=outbound.configured(),
        auth=(user_name, password or '') if user_name else None,
    )


def fetch(
    package_id: str, user_name: str | None = None, password: str | None = None
) -> None:
    """Download an UPLOADING package from its URI, store it, onboard it."""
    package = db.package_get(package_id)
    source = package.get('upload_source') or {}
    if package['onboarding_state'] != OnboardingState.UPLOADING.value or (
        not source.get('addressInformation')
    ):
        return
    public = {'upload_source': without_secrets(source)}
    try:
        data = _download(source, user_name, password)
    except http.DownloadError as e:
        mark_error(
            package_id,
            OnboardingState.UPLOADING,
            422,
            e.detail,
            reason=e.reason,
            values=public,
        )
        return
    except exceptions.VnfmError as e:  # unreadable credentials or policy
        mark_error(
            package_id, OnboardingState.UPLOADING, 500, e.detail, values=public
        )
        return
    db.package_content_put(package_id, data)
    try:
        db.package_update(
            package_id,
            {
                **public,
                'onboarding_state': OnboardingState.PROCESSING.value,
                'package_size': len(data),
            },
            expected={'onboarding_state': OnboardingState.UPLOADING.value},
        )
    except exceptions.ConcurrentUpdate:
        LOG.info('Package %s left UPLOADING during the download', package_id)
        return
    onboard(package_id)
