"""api_versions resources (SOL013 9.3)."""

from __future__ import annotations

import webob

from vnfm.server import http
from vnfm.server.request import ApiRequest

VNFLCM_V1 = {'version': '1.3.0', 'isDeprecated': False}
VNFLCM_V2 = {'version': '2.0.0', 'isDeprecated': False}
# SOL005 v2.6.1 VNF package management.
VNFPKGM_V1 = {'version': '2.0.0', 'isDeprecated': False}
# SOL003 v3.3.1 VNF fault management.
VNFFM_V1 = {'version': '1.3.0', 'isDeprecated': False}
# SOL003 v3.3.1 VNF performance management (Tacker's /vnfpm/v2).
VNFPM_V2 = {'version': '2.1.0', 'isDeprecated': False}


def vnflcm(req: ApiRequest) -> webob.Response:
    """GET /vnflcm/api_versions: the versions of every major version."""
    return http.json_response(
        {'uriPrefix': '/vnflcm', 'apiVersions': [VNFLCM_V1, VNFLCM_V2]}
    )


def vnflcm_v1(req: ApiRequest) -> webob.Response:
    """GET /vnflcm/v1/api_versions."""
    return http.json_response(
        {'uriPrefix': '/vnflcm/v1', 'apiVersions': [VNFLCM_V1]}
    )


def vnflcm_v2(req: ApiRequest) -> webob.Response:
    """GET /vnflcm/v2/api_versions."""
    return http.json_response(
        {'uriPrefix': '/vnflcm/v2', 'apiVersions': [VNFLCM_V2]}
    )


def vnfpkgm(req: ApiRequest) -> webob.Response:
    """GET /vnfpkgm/api_versions: the versions of every major version."""
    return http.json_response(
        {'uriPrefix': '/vnfpkgm', 'apiVersions': [VNFPKGM_V1]}
    )


def vnfpkgm_v1(req: ApiRequest) -> webob.Response:
    """GET /vnfpkgm/v1/api_versions."""
    return http.json_response(
        {'uriPrefix': '/vnfpkgm/v1', 'apiVersions': [VNFPKGM_V1]}
    )


def vnffm(req: ApiRequest) -> webob.Response:
    """GET /vnffm/api_versions."""
    return http.json_response(
        {'uriPrefix': '/vnffm', 'apiVersions': [VNFFM_V1]}
    )


def vnffm_v1(req: ApiRequest) -> webob.Response:
    """GET /vnffm/v1/api_versions."""
    return http.json_response(
        {'uriPrefix': '/vnffm/v1', 'apiVersions': [VNFFM_V1]}
    )


def vnfpm(req: ApiRequest) -> webob.Response:
    """GET /vnfpm/api_versions."""
    return http.json_response(
        {'uriPrefix': '/vnfpm', 'apiVersions': [VNFPM_V2]}
    )


def vnfpm_v2(req: ApiRequest) -> webob.Response:
    """GET /vnfpm/v2/api_versions."""
    return http.json_response(
        {'uriPrefix': '/vnfpm/v2', 'apiVersions': [VNFPM_V2]}
    )
