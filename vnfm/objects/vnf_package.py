"""VnfPkgInfo (SOL005 v2.6.1 clause 9.5.2.5) from a database row."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from vnfm.common import timeutils
from vnfm.objects import sol013

_ATTRS = (
    ('id', 'id'),
    ('vnfd_id', 'vnfdId'),
    ('vnf_provider', 'vnfProvider'),
    ('vnf_product_name', 'vnfProductName'),
    ('vnf_software_version', 'vnfSoftwareVersion'),
    ('vnfd_version', 'vnfdVersion'),
    ('checksum', 'checksum'),
    ('software_images', 'softwareImages'),
    ('additional_artifacts', 'additionalArtifacts'),
    ('onboarding_state', 'onboardingState'),
    ('operational_state', 'operationalState'),
    ('usage_state', 'usageState'),
    ('user_defined_data', 'userDefinedData'),
)


def package_href(base_url: str, package_id: str) -> str:
    """Absolute URL of a VNF package."""
    return f'{base_url}/vnfpkgm/v1/vnf_packages/{package_id}'


def _links(package_id: str, base_url: str) -> dict:
    href = package_href(base_url, package_id)
    return {
        'self': {'href': href},
        'vnfd': {'href': f'{href}/vnfd'},
        'packageContent': {'href': f'{href}/package_content'},
    }


def _software_images(row: Mapping[str, Any]) -> list[dict]:
    # createdAt is mandatory (SOL005 9.5.3.2); the NFVO knows of an image
    # from the moment its package was created.
    created = timeutils.isotime(row.get('created_at'))
    return [
        {'createdAt': created, **image} if created else image
        for image in row['software_images']
    ]


def to_sol(row: Mapping[str, Any], base_url: str | None = None) -> dict:
    """The SOL005 VnfPkgInfo of a package row (None values omitted,
    ``_links`` when ``base_url`` is given)."""
    out: dict[str, Any] = {}
    for column, attr in _ATTRS:
        value = row.get(column)
        if value is not None:
            out[attr] = value
    if out.get('softwareImages'):
        out['softwareImages'] = _software_images(row)
    details = row.get('onboarding_failure_details')
    if row.get('onboarding_state') == 'ERROR' and details is not None:
        out['onboardingFailureDetails'] = details
    if base_url is not None:
        out['_links'] = _links(row['id'], base_url)
    return out


# SOL013 list handling of VnfPkgInfo (SOL005 9.4.2.3.2).
SOL013 = sol013.Resource(
    attributes=frozenset(a for _, a in _ATTRS)
    | {'onboardingFailureDetails', '_links'},
    mandatory=frozenset(
        {'id', 'onboardingState', 'operationalState', 'usageState'}
    ),
    default_excluded=(
        'softwareImages',
        'additionalArtifacts',
        'userDefinedData',
        'checksum',
        'onboardingFailureDetails',
    ),
)
# Columns enough for the default list view (no default-excluded attribute).
LIST_COLUMNS = (
    'id',
    'vnfd_id',
    'vnf_provider',
    'vnf_product_name',
    'vnf_software_version',
    'vnfd_version',
    'onboarding_state',
    'operational_state',
    'usage_state',
)
