"""Heat resource plugin of the local cloud: OS::Cinder::Volume as a sparse
file on a loop device, OS::Cinder::VolumeAttachment as that device in a VM's
private /dev (``/dev/vdb``, ``/dev/vdc``, ... in attachment order),
OS::Cinder::VolumeType as a record a volume's ``volume_type`` must name.

A volume made from an image (``image``) is bootable and keeps the image in
``volume_image_metadata``; a server whose ``block_device_mapping_v2``
boots from it (``boot_index`` 0, ``volume_id``) is a VM of that image, with
the volume attached once it runs and detached when it goes.

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
from heat.engine.resources.openstack.cinder import (
    volume_type as cinder_volume_type,
)

vmdisks = base.vmdisks
DEFAULT_TYPE = '__DEFAULT__'


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
        source = self.properties[self.IMAGE]
        made_from = base.find('images', source) if source else None
        vtype = volume_type(self.properties[self.VOLUME_TYPE])
        image = base.state() / 'volumes' / f'{vol_id}.img'
        size = self.properties[self.SIZE] or 1
        loop = vmdisks.volume_create(image, size)
        self.resource_id_set(vol_id)
        _save_volume(
            {
                **_image_metadata(made_from),
                'id': vol_id,
                'name': self.properties[self.NAME]
                or self.physical_resource_name(),
                'size': size,
                'loop': loop,
                'image': str(image),
                'attachments': [],
                'multiattach': False,
                'encrypted': False,
                'volume_type': vtype,
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


def _image_metadata(image: dict[str, Any] | None) -> dict[str, Any]:
    """Cinder's fields of a volume made from ``image`` (or of none)."""
    if image is None:
        return {'bootable': 'false'}
    return {
        'bootable': 'true',
        'volume_image_metadata': {
            'image_id': image['id'],
            'image_name': image['name'],
        },
    }


def volume_type(name: str | None) -> str:
    """The name of the volume type ``name`` (id or name; Cinder's default
    when None); EntityNotFound if no OS::Cinder::VolumeType made it."""
    if not name or name == DEFAULT_TYPE:
        return DEFAULT_TYPE
    for vtype in base.records('volume_types'):
        if name in (vtype['id'], vtype['name']):
            return str(vtype['name'])
    raise exception.EntityNotFound(entity='Volume Type', name=name)


class LocalVolumeType(base.Immediate, cinder_volume_type.CinderVolumeType):
    """OS::Cinder::VolumeType: a named type with its extra specs."""

    def validate(self) -> Any:
        # Heat's property checks; projects are not looked up in Keystone.
        return resource.Resource.validate(self)

    def _record(self, props: Any, type_id: str) -> dict[str, Any]:
        return {
            'id': type_id,
            'name': props[self.NAME],
            'extra_specs': dict(props[self.METADATA] or {}),
            'is_public': props[self.IS_PUBLIC],
            'description': props[self.DESCRIPTION],
        }

    def handle_create(self) -> None:
        name = self.properties[self.NAME]
        if any(t['name'] == name for t in base.records('volume_types')):
            raise exception.Error(f'Volume Type {name} already exists.')
        type_id = str(uuid.uuid4())
        base.save('volume_types', self._record(self.properties, type_id))
        self.resource_id_set(type_id)

    def handle_update(
        self, json_snippet: Any, tmpl_diff: Any, prop_diff: dict[str, Any]
    ) -> None:
        after = json_snippet.properties(self.properties_schema, self.context)
        base.save('volume_types', self._record(after, self.resource_id))

    def handle_delete(self) -> None:
        if self.resource_id is None:
            return
        used = [
            v['id']
            for v in base.records('volumes')
            if v.get('volume_type') == self.properties[self.NAME]
        ]
        if used:
            raise exception.Error(
                f'Volume Type {self.resource_id} is used by volumes {used}.'
            )
        base.forget('volume_types', self.resource_id)

    def _show_resource(self) -> dict[str, Any]:
        return base.record('volume_types', self.resource_id)


def boot_volume(mappings: list[dict[str, Any]] | None) -> str | None:
    """The volume a server's block_device_mapping_v2 boots from."""
    for bdm in mappings or []:
        if str(bdm.get('boot_index')) == '0' and bdm.get('volume_id'):
            return str(bdm['volume_id'])
    if any(bdm.get('image') for bdm in mappings or []):
        raise exception.Error(
            'the local cloud boots from a volume of volume_id only (make '
            'an OS::Cinder::Volume with the image and name it)'
        )
    return None


def boot_image(mappings: list[dict[str, Any]] | None) -> str | None:
    """The image id of the volume a server boots from (None: none)."""
    volume_id = boot_volume(mappings)
    if volume_id is None:
        return None
    vol = load_volume(volume_id)
    made_from = vol.get('volume_image_metadata')
    if vol.get('bootable') != 'true' or not made_from:
        raise exception.Error(
            f'volume {volume_id} is not bootable: it was not made from an '
            'image'
        )
    return str(made_from['image_id'])


def attach_mapped(server_id: str, mappings: list[dict[str, Any]]) -> None:
    """Attach the volumes of block_device_mapping_v2 (boot volume first)
    that are not attached to the server yet."""
    ordered = sorted(
        (m for m in mappings if m.get('volume_id')),
        key=lambda m: int(m.get('boot_index') or 0) % 1000,
    )
    for bdm in ordered:
        vol = load_volume(str(bdm['volume_id']))
        if not any(a['server_id'] == server_id for a in vol['attachments']):
            attach(vol['id'], server_id)


def detach_all(server_id: str) -> None:
    """Detach every volume from a server that goes."""
    for vol in base.records('volumes'):
        for att in vol['attachments']:
            if att['server_id'] == server_id:
                detach(vol['id'], att['attachment_id'])


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
        'OS::Cinder::VolumeType': LocalVolumeType,
    }
