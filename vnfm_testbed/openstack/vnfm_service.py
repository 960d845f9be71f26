"""vnfm as a service of the local Keystone: its catalog entry, the service
user keystonemiddleware validates tokens with, and vnfm's configuration
for ``[api] auth_strategy = keystone``."""

from __future__ import annotations

import secrets

from vnfm_testbed.openstack import cloud as localcloud
from vnfm_testbed.openstack import files
from vnfm_testbed.openstack import identity

#: The service type python-tackerclient looks up in the catalog.
SERVICE_TYPE = 'nfv-orchestration'
SERVICE_NAME = 'vnfm'
#: Prefix of vnfm's service users (in the ``service`` project, role
#: ``service``): one per handle, so several vnfm runs share a cloud.
USER = 'vnfm'


class VnfmIdentity:
    """vnfm's account and catalog entry in one local cloud."""

    def __init__(self, cloud: localcloud.LocalCloud) -> None:
        self.cloud = cloud
        self.username = f'{USER}-{secrets.token_hex(4)}'
        self.password = secrets.token_urlsafe(18)
        self._user_id = ''

    def _admin(self) -> identity.Admin:
        return identity.Admin(
            self.cloud.auth_url, self.cloud.account(localcloud.ADMIN)
        )

    def create_user(self) -> None:
        """Create the service user (once per cloud and handle)."""
        if not self._user_id:
            self._user_id = self._admin().account(
                identity.Account(
                    self.username,
                    self.password,
                    files.SERVICE_PROJECT,
                    'service',
                )
            )

    def conf(self) -> dict[str, dict[str, object]]:
        """vnfm's config sections for keystone auth (creates the user)."""
        self.create_user()
        auth_url = self.cloud.auth_url
        return {
            'api': {'auth_strategy': 'keystone'},
            'keystone_authtoken': {
                'www_authenticate_uri': f'{auth_url}/v3',
                'auth_type': 'password',
                'auth_url': auth_url,
                'username': self.username,
                'password': self.password,
                'user_domain_name': 'Default',
                'project_name': files.SERVICE_PROJECT,
                'project_domain_name': 'Default',
                'region_name': files.REGION,
                # Every call to Keystone has a deadline.
                'http_connect_timeout': 10,
                'http_request_max_retries': 1,
            },
        }

    def register(self, api_url: str) -> str:
        """Make ``api_url`` the one ``nfv-orchestration`` service of the
        catalog (an earlier registration is replaced); its service id."""
        admin = self._admin()
        admin.delete_services(SERVICE_TYPE)
        return admin.service(SERVICE_TYPE, SERVICE_NAME, api_url)
