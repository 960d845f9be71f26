"""Software images a package carries (``sw_image_data`` of a VDU or its
VirtualBlockStorage, with a ``tosca.artifacts.nfv.SwImage`` artifact whose
``file`` is in the CSAR), in the VIM's image service.

At instantiate each such file is checked against the VNFD's ``checksum``,
then uploaded under the ``sw_image_data`` name, unless the VIM already has
an active image of that name and data (same md5 and sha512): that one is
used. The stack gets the image's id where the Heat input names the image
(``nfv.VDU.<vdu>.vcImageId`` or v1's ``.image``). An image vnfm uploaded
(property ``vnfm_managed``) carries one tag ``vnfm-instance:<id>`` per
instance using it; terminate (and the rollback of instantiate) removes the
instance's tag and deletes the image when no such tag is left. Images
vnfm did not upload are never tagged nor deleted.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from vnfm.clients import openstack
from vnfm.common import exceptions
from vnfm.conf import CONF
from vnfm.drivers import scaling
from vnfm.drivers.infra import base
from vnfm.drivers.package_files import PackageFiles

Obj = dict[str, Any]
TAG_PREFIX = 'vnfm-instance:'
MANAGED = 'vnfm_managed'
#: The keys of ``nfv.VDU.<vdu>`` that name an image (v2's, then v1's).
IMAGE_KEYS = ('vcImageId', 'image')


def tag_of(instance_id: str) -> str:
    """The tag an instance puts on the images it uses."""
    return f'{TAG_PREFIX}{instance_id}'


def carried(vnfd: Obj, flavour_id: str | None) -> dict[str, Obj]:
    """The ``sw_image_data`` with a file of the flavour's VDUs, by name."""
    flavour = scaling.flavour_of(vnfd, flavour_id)
    out: dict[str, Obj] = {}
    for vdu_id, vdu in sorted((flavour.get('vdus') or {}).items()):
        image = vdu.get('sw_image') or {}
        if not image.get('file'):
            continue
        name = str(image.get('name') or '')
        if not name:
            raise exceptions.OperationFailed(
                f'VDU {vdu_id}: the sw_image_data of image file '
                f'{image["file"]} has no name (the image name in the VIM).'
            )
        other = out.setdefault(name, image)
        if other.get('file') != image['file']:
            raise exceptions.OperationFailed(
                f'Two image files, {other["file"]} and {image["file"]}, '
                f'have the name {name}: give each its own name.'
            )
    return out


def _algorithm(name: str) -> str:
    """hashlib's name of a SOL001 checksum algorithm (``sha-256``...)."""
    return name.replace('-', '').replace('_', '').lower()


def checked_data(package: PackageFiles, image: Obj) -> bytes:
    """The image file, checked against its sw_image_data checksum."""
    path = str(image['file'])
    data = package.read(path)
    checksum = image.get('checksum') or {}
    algorithm = str(checksum.get('algorithm') or '')
    expected = str(checksum.get('hash') or '').lower()
    if not (algorithm and expected):
        return data
    try:
        digest = hashlib.new(_algorithm(algorithm), data).hexdigest()
    except ValueError:
        raise exceptions.OperationFailed(
            f'The checksum of image file {path} uses algorithm '
            f'{algorithm!r}, which vnfm does not know (use sha-256 or '
            'sha-512).'
        ) from None
    if digest != expected:
        raise exceptions.OperationFailed(
            f'Image file {path} of package {package.package_id} does not '
            f'match the {algorithm} checksum of its sw_image_data '
            f'(file: {digest}, VNFD: {expected}).'
        )
    return data


def _upload_of(
    name: str, image: Obj, data: bytes, tag: str
) -> openstack.ImageData:
    return openstack.ImageData(
        name=name,
        data=data,
        disk_format=image.get('disk_format') or None,
        container_format=image.get('container_format') or None,
        properties={MANAGED: 'true'},
        tags=(tag,),
    )


def _reusable(
    glance: openstack.Glance, upload: openstack.ImageData
) -> openstack.Image | None:
    """An active image of the same name and data, vnfm's first."""
    same = [
        i
        for i in glance.find(upload.name)
        if i.status == 'active'
        and i.checksum == upload.md5
        and i.hash_value in (None, upload.sha512)
    ]
    same.sort(key=lambda i: (i.properties.get(MANAGED) != 'true', i.id))
    return same[0] if same else None


def ensure(
    ctx: base.InfraContext, conn: openstack.Connection, work: Obj
) -> dict[str, Obj]:
    """Put the package's images in the VIM (uploaded or found), tagged for
    the instance; ``{name: {'id', 'managed'}}``, also kept in
    ``work['images']`` as each is done (a failure after one upload raises
    PartialFailure with it, for rollback to release)."""
    used: dict[str, Obj] = dict(work.get('images') or {})
    work['images'] = used
    try:
        _ensure(ctx, conn, used)
    except exceptions.OperationFailed as e:
        if not used:
            raise
        raise base.PartialFailure(e.detail, work) from None
    return used


def _ensure(
    ctx: base.InfraContext, conn: openstack.Connection, used: dict[str, Obj]
) -> None:
    wanted = carried(ctx.vnfd, ctx.flavour_id)
    if not wanted:
        return
    glance = openstack.Glance(conn, CONF.openstack.image_timeout)
    deadline = min(
        ctx.deadline, time.monotonic() + CONF.openstack.image_timeout
    )
    tag = tag_of(ctx.vnf_instance['id'])
    for name, image in wanted.items():
        upload = _upload_of(name, image, checked_data(ctx.package, image), tag)
        found = _reusable(glance, upload)
        if found is None:
            found = glance.upload(upload, deadline)
        managed = found.properties.get(MANAGED) == 'true'
        if managed and tag not in found.tags:
            try:
                glance.add_tag(found.id, tag)
            except openstack.ImageNotFound:
                # The terminate of its last user deleted it meanwhile.
                found = glance.upload(upload, deadline)
        used[name] = {'id': found.id, 'managed': managed}


def release(
    conn: openstack.Connection, instance_id: str, used: dict[str, Obj]
) -> list[str]:
    """Untag the images the instance used; delete those vnfm uploaded
    that no instance uses now. The ids deleted."""
    managed = {n: u for n, u in used.items() if u.get('managed')}
    if not managed:
        return []
    glance = openstack.Glance(conn, CONF.openstack.image_timeout)
    tag, deleted = tag_of(instance_id), []
    for entry in managed.values():
        glance.remove_tag(entry['id'], tag)
        try:
            image = glance.get(entry['id'])
        except openstack.ImageNotFound:
            continue
        if not any(t.startswith(TAG_PREFIX) for t in image.tags):
            glance.delete(image.id)
            deleted.append(image.id)
    return deleted


def with_ids(parameters: Obj, used: dict[str, Obj]) -> Obj:
    """Heat parameters whose ``nfv.VDU`` image names are the ids of the
    images in ``used`` (a value the request gave stays as it is)."""
    if not used:
        return parameters
    nfv = parameters.get('nfv')
    if not isinstance(nfv, dict) or not isinstance(nfv.get('VDU'), dict):
        return parameters
    vdus = {}
    for vdu_id, values in nfv['VDU'].items():
        if isinstance(values, dict):
            values = {
                k: used[v]['id']
                if k in IMAGE_KEYS and isinstance(v, str) and v in used
                else v
                for k, v in values.items()
            }
        vdus[vdu_id] = values
    return {**parameters, 'nfv': {**nfv, 'VDU': vdus}}
