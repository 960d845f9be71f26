"""What a cloud operator creates in Keystone after ``keystone-manage
bootstrap``: service users, the stack domain, projects and users for tests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from vnfm_testbed.openstack import files

_TIMEOUT = 30


@dataclass(frozen=True)
class Account:
    """A Keystone user with a role in one project."""

    username: str
    password: str
    project: str
    role: str

    def credentials(self, auth_url: str) -> dict[str, str]:
        """The ``--os-*`` values of this account, as JSON."""
        return {
            'auth_url': f'{auth_url}/v3',
            'username': self.username,
            'password': self.password,
            'project_name': self.project,
            'user_domain_name': 'Default',
            'project_domain_name': 'Default',
            'role': self.role,
        }


def session(auth_url: str, account: Account) -> ks_session.Session:
    """A keystoneauth1 session of ``account`` (password auth, v3)."""
    auth = v3.Password(
        auth_url=f'{auth_url}/v3',
        username=account.username,
        password=account.password,
        project_name=account.project,
        user_domain_name='Default',
        project_domain_name='Default',
    )
    return ks_session.Session(auth=auth, timeout=_TIMEOUT)


#: The credentials a client or a VIM config names the user by.
CLIENT_KEYS = (
    'auth_url',
    'username',
    'password',
    'project_name',
    'user_domain_name',
    'project_domain_name',
)


class Admin:
    """Keystone's v3 API as the bootstrap admin."""

    def __init__(self, auth_url: str, admin: Account) -> None:
        self.base = f'{auth_url}/v3'
        self.sess = session(auth_url, admin)

    def _create(self, kind: str, body: dict[str, Any]) -> str:
        resp = self.sess.post(
            f'{self.base}/{kind}s', json={kind: body}, raise_exc=True
        )
        return str(resp.json()[kind]['id'])

    def _find(self, kind: str, name: str, **query: str) -> str:
        params = {'name': name, **query}
        resp = self.sess.get(f'{self.base}/{kind}s', params=params)
        items = resp.json()[f'{kind}s']
        if not items:
            raise LookupError(f'no {kind} named {name}')
        return str(items[0]['id'])

    def role_id(self, name: str) -> str:
        """Id of role ``name``, created if missing."""
        try:
            return self._find('role', name)
        except LookupError:
            return self._create('role', {'name': name})

    def project(self, name: str, domain_id: str = 'default') -> str:
        """Create project ``name``; its id."""
        return self._create('project', {'name': name, 'domain_id': domain_id})

    def user(
        self, name: str, password: str, domain_id: str = 'default'
    ) -> str:
        """Create user ``name``; its id."""
        return self._create(
            'user',
            {'name': name, 'password': password, 'domain_id': domain_id},
        )

    def grant(
        self,
        role: str,
        user_id: str,
        *,
        project_id: str = '',
        domain_id: str = '',
    ) -> None:
        """Give ``user_id`` ``role`` on a project or a domain."""
        target = (
            f'projects/{project_id}' if project_id else f'domains/{domain_id}'
        )
        self.sess.put(
            f'{self.base}/{target}/users/{user_id}/roles/{self.role_id(role)}',
            raise_exc=True,
        )

    def account(self, acc: Account) -> str:
        """Create ``acc``'s project (if new) and user with its role."""
        try:
            project_id = self._find('project', acc.project)
        except LookupError:
            project_id = self.project(acc.project)
        user_id = self.user(acc.username, acc.password)
        self.grant(acc.role, user_id, project_id=project_id)
        return user_id

    def service(self, service_type: str, name: str, url: str) -> str:
        """Register a service with public, internal and admin endpoints."""
        service_id = self._create(
            'service', {'type': service_type, 'name': name}
        )
        for interface in ('public', 'internal', 'admin'):
            self._create(
                'endpoint',
                {
                    'service_id': service_id,
                    'interface': interface,
                    'url': url,
                    'region_id': files.REGION,
                },
            )
        return service_id

    def delete_services(self, service_type: str) -> None:
        """Delete the services of ``service_type`` (Keystone deletes their
        endpoints with them)."""
        resp = self.sess.get(
            f'{self.base}/services', params={'type': service_type}
        )
        for service in resp.json()['services']:
            self.sess.delete(
                f'{self.base}/services/{service["id"]}', raise_exc=True
            )

    def set_up_heat(
        self, heat_password: str, domain_admin_password: str, heat_url: str
    ) -> None:
        """The heat service user, the stack domain and its admin, the
        roles Heat expects, and the orchestration endpoints."""
        self.account(
            Account(
                files.HEAT_USER, heat_password, files.SERVICE_PROJECT, 'admin'
            )
        )
        domain_id = self._create(
            'domain',
            {
                'name': files.STACK_DOMAIN,
                'description': 'Owns users and projects created by heat',
            },
        )
        admin_id = self.user(
            files.STACK_DOMAIN_ADMIN, domain_admin_password, domain_id
        )
        self.grant('admin', admin_id, domain_id=domain_id)
        self.role_id('heat_stack_user')
        self.role_id('heat_stack_owner')
        self.service('orchestration', 'heat', f'{heat_url}/v1/%(project_id)s')
