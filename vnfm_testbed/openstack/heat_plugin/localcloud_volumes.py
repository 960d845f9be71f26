"""Heat resource plugin of the local cloud: OS::Cinder::Volume as a sparse
file on a loop device, OS::Cinder::VolumeAttachment as that device in a VM's
private /dev (``/dev/vdb``, ``/dev/vdc``, ... in attachment order).

An attachment whose server or volume changes in a stack update (the server
was replaced, or the template moves the volume) detaches and attaches
again, as Heat does with Nova; what was written to the volume stays.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from heat.common import exception
from heat.engine import resource
from heat.engine.plugins import localcloud_base as base
from heat.engine.resources.openstack.cinder import volume as cinder_volume

vmdisks = base.vmdisks


def load_volume(volume_id: str) -> dict[str, Any]:
    """A volume made by LocalVolume."""
    return base.record('volumes', volume_id)


def _save_volume(vol: dict[str, Any]) -> None:
    vol['status'] = 'in-use' if vol['attachments'] else 'available'
    base.save('volumes', vol)


class LocalVolume(base.Immediate, cinder_volume.CinderVolume):
    """OS::Cinder::Volume: a sparse file on a loop device."""

    def validate(self) -> Any:
        return resource.Resource.validate(self)

    def handle_create(self) -> str:
        vol_id = str(uuid.uuid4())
        image = base.state() / 'volumes' / f'{vol_id}.img'
        size = self.properties[self.SIZE] or 1
        loop = vmdisks.volume_create(image, size)
        self.resource_id_set(vol_id)
        _save_volume(
            {
                'id': vol_id,
                'name': self.properties[self.NAME]
                or self.physical_resource_name(),
                'size': size,
                'loop': loop,
                'image': str(image),
                'attachments': [],
                'bootable': 'false',
                'multiattach': False,
                'encrypted': False,
                'volume_type': '__DEFAULT__',
            }
        )
        return vol_id

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        try:
            vol = load_volume(self.resource_id)
        except exception.EntityNotFound:
            return
        vmdisks.volume_delete(Path(vol['image']), vol['loop'])
        base.forget('volumes', self.resource_id)

    def handle_update(self, *args: Any) -> None:
        # Name, description, metadata: nothing a VM would notice. A bigger
        # size (extend) is not done locally.
        return

    def _show_resource(self) -> dict[str, Any]:
        vol = load_volume(self.resource_id)
        return {k: v for k, v in vol.items() if k not in ('loop', 'image')}

    def _resolve_attribute(self, name: str) -> Any:
        if self.resource_id is None:
            return None
        vol = self._show_resource()
        if name == self.ATTACHMENTS:
            return json.dumps(vol['attachments'])
        if name == self.ATTACHMENTS_LIST:
            return vol['attachments']
        if name == 'display_name':
            return vol['name']
        return vol.get(name)


def _devices(server_id: str) -> list[str]:
    """Devices of the volumes attached to ``server_id`` now."""
    return [
        a['device']
        for v in base.records('volumes')
        for a in v['attachments']
        if a['server_id'] == server_id
    ]


def attach(volume_id: str, server_id: str) -> str:
    """Attach the volume to the server; the attachment id."""
    vol = load_volume(volume_id)
    if not vmdisks.running(base.vm_dir(server_id)):
        raise exception.Error(f'server {server_id} is not running')
    device = vmdisks.attach(
        base.vm_dir(server_id), vol['loop'], _devices(server_id)
    )
    attachment_id = str(uuid.uuid4())
    vol['attachments'].append(
        {
            'id': vol['id'],
            'attachment_id': attachment_id,
            'volume_id': vol['id'],
            'server_id': server_id,
            'device': device,
        }
    )
    _save_volume(vol)
    return attachment_id


def detach(volume_id: str, attachment_id: str) -> None:
    """Undo :func:`attach` (nothing if the volume or attachment is gone)."""
    try:
        vol = load_volume(volume_id)
    except exception.EntityNotFound:
        return
    for att in [
        a for a in vol['attachments'] if a['attachment_id'] == attachment_id
    ]:
        vmdisks.detach(base.vm_dir(att['server_id']), att['device'])
        vol['attachments'].remove(att)
    _save_volume(vol)


class LocalVolumeAttachment(base.Link, cinder_volume.CinderVolumeAttachment):
    """OS::Cinder::VolumeAttachment: the loop device as /dev/vdX; an
    update detaches and attaches to the (new) server or (new) volume."""

    def _bind(self, props: Any) -> str:
        return attach(props[self.VOLUME_ID], props[self.INSTANCE_ID])

    def _unbind(self) -> None:
        detach(self.properties[self.VOLUME_ID], self.resource_id)

    def _show_resource(self) -> dict[str, Any]:
        vol = load_volume(self.properties[self.VOLUME_ID])
        for att in vol['attachments']:
            if att['attachment_id'] == self.resource_id:
                return dict(att)
        raise exception.EntityNotFound(
            entity='Attachment', name=self.resource_id
        )


def resource_mapping() -> dict[str, type]:
    """What heat-engine registers over its own classes."""
    return {
        'OS::Cinder::Volume': LocalVolume,
        'OS::Cinder::VolumeAttachment': LocalVolumeAttachment,
    }
