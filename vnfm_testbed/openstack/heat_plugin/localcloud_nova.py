"""Heat resource plugin of the local cloud: Nova's server groups and
keypairs.

* ``OS::Nova::ServerGroup`` records its policies (there is one host: every
  policy is met or, for anti-affinity, accepted as a soft one); servers
  name it in ``scheduler_hints: {group: ...}`` and appear in its
  ``members``.
* ``OS::Nova::KeyPair`` imports ``public_key`` or, as Nova before API 2.92,
  generates an RSA key (``private_key`` kept when ``save_private_key``);
  servers then take its name in ``key_name``.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from heat.common import exception
from heat.engine import resource
from heat.engine.plugins import localcloud_base as base
from heat.engine.resources.openstack.nova import keypair
from heat.engine.resources.openstack.nova import server_group


class LocalServerGroup(base.Immediate, server_group.ServerGroup):
    """OS::Nova::ServerGroup: a named set of servers and its policies."""

    def validate(self) -> Any:
        # The schema's checks; no Nova microversion to ask.
        return resource.Resource.validate(self)

    def handle_create(self) -> None:
        group = {
            'id': str(uuid.uuid4()),
            'name': self.properties[self.NAME]
            or self.physical_resource_name(),
            'policies': list(self.properties[self.POLICIES] or []),
            'policy': (self.properties[self.POLICIES] or [None])[0],
            'rules': self.properties[self.RULES] or {},
            'project_id': self.context.project_id,
            'user_id': self.context.user_id,
        }
        self.resource_id_set(group['id'])
        base.save('server_groups', group)

    def handle_delete(self) -> None:
        if self.resource_id is not None:
            base.forget('server_groups', self.resource_id)

    def _show_resource(self) -> dict[str, Any]:
        group = base.record('server_groups', self.resource_id)
        group['members'] = members(self.resource_id)
        return group


def members(group_id: str) -> list[str]:
    """Ids of the running servers that asked for ``group_id``."""
    vms = base.state() / 'vms'
    found = []
    for spec in vms.glob('*/spec.json') if vms.exists() else []:
        data = json.loads(spec.read_text())
        if data.get('server_group') == group_id:
            found.append(data['server_id'])
    return sorted(found)


class LocalKeyPair(base.Local, keypair.KeyPair):
    """OS::Nova::KeyPair: a public key ``key_name`` finds."""

    def translation_rules(self, props: Any) -> list[Any]:
        return []  # ``user`` would be resolved by Keystone: kept as given

    def validate(self) -> Any:
        return resource.Resource.validate(self)

    def _path(self) -> Any:
        return base.state() / 'keypairs' / f'{self.resource_id}.pub'

    def handle_create(self) -> None:
        name = self.properties[self.NAME]
        path = base.state() / 'keypairs' / f'{name}.pub'
        if path.exists():
            raise exception.Error(f'Key pair {name} already exists.')
        public = self.properties[self.PUBLIC_KEY]
        if not public:
            key = rsa.generate_private_key(
                public_exponent=65537, key_size=2048
            )
            public = (
                key.public_key()
                .public_bytes(
                    serialization.Encoding.OpenSSH,
                    serialization.PublicFormat.OpenSSH,
                )
                .decode()
                + ' Generated-by-Nova'
            )
            if self.properties[self.SAVE_PRIVATE_KEY]:
                private = key.private_bytes(
                    serialization.Encoding.PEM,
                    serialization.PrivateFormat.TraditionalOpenSSL,
                    serialization.NoEncryption(),
                ).decode()
                self.data_set('private_key', private, True)
        path.parent.mkdir(exist_ok=True)
        path.write_text(public.strip() + '\n')
        self.resource_id_set(name)

    def check_create_complete(self, *args: Any) -> bool:
        return True

    def handle_delete(self) -> None:
        if self.resource_id is not None:
            self._path().unlink(missing_ok=True)

    def prepare_for_replace(self) -> None:
        self.handle_delete()

    def handle_check(self) -> None:
        if not self._path().exists():
            raise exception.EntityNotFound(entity='Key', name=self.resource_id)

    @property
    def public_key(self) -> str:
        if self.properties[self.PUBLIC_KEY]:
            return str(self.properties[self.PUBLIC_KEY])
        if self.resource_id and self._path().exists():
            return self._path().read_text().strip()
        return ''

    def _show_resource(self) -> dict[str, Any]:
        return {
            'name': self.resource_id,
            'public_key': self.public_key,
            'type': self.properties[self.KEY_TYPE] or 'ssh',
        }


def resource_mapping() -> dict[str, type]:
    """What heat-engine registers over its own classes."""
    return {
        'OS::Nova::ServerGroup': LocalServerGroup,
        'OS::Nova::KeyPair': LocalKeyPair,
    }
