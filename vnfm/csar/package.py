"""read_csar: from the uploaded bytes to a validated Csar."""

import dataclasses
import hashlib
from typing import Any

from vnfm.csar import meta
from vnfm.csar.errors import InvalidPackage
from vnfm.csar.model import Vnfd
from vnfm.csar.nodes import scalar_size
from vnfm.csar.templates import Definitions
from vnfm.csar.vnfd import build_vnfd
from vnfm.csar.zipreader import CsarLimits
from vnfm.csar.zipreader import read_zip


@dataclasses.dataclass
class Csar:
    """A validated VNF package."""

    files: dict[str, bytes]
    entry_definitions: str
    vnfd: Vnfd
    artifacts: list[meta.Artifact]
    software_images: list[dict[str, Any]]
    checksum: dict[str, str]
    manifest_metadata: dict[str, Any] = dataclasses.field(default_factory=dict)
    tosca_meta: dict[str, str] = dataclasses.field(default_factory=dict)


def read_csar(data: bytes, limits: CsarLimits | None = None) -> Csar:
    """Validate and parse a CSAR.

    Raises InvalidPackage with a detail a person can act on.
    """
    files = read_zip(data, limits or CsarLimits())
    pkg = meta.read_package_meta(files)
    manifest_md: dict[str, Any] = {}
    manifest_artifacts: list[meta.Artifact] = []
    if pkg.manifest:
        manifest_md, manifest_artifacts = meta.read_manifest(
            pkg.manifest, files
        )
    artifacts = meta.merge_artifacts(pkg.artifacts, manifest_artifacts)
    meta.verify_artifacts(pkg.artifacts + manifest_artifacts, files)
    try:
        vnfd = build_vnfd(Definitions(files, pkg.entry_definitions))
        images = software_images(vnfd)
    except (
        AttributeError,
        TypeError,
        KeyError,
        ValueError,
        RecursionError,
    ) as e:
        # Last resort for shapes the reader does not check one by one.
        raise InvalidPackage(
            f'{pkg.entry_definitions}: the VNFD has an unexpected structure '
            f'({e!r})'
        ) from None
    return Csar(
        files=files,
        entry_definitions=pkg.entry_definitions,
        vnfd=vnfd,
        artifacts=artifacts,
        software_images=images,
        checksum={
            'algorithm': 'SHA-256',
            'hash': hashlib.sha256(data).hexdigest(),
        },
        manifest_metadata=manifest_md,
        tosca_meta=pkg.keys,
    )


def software_images(vnfd: Vnfd) -> list[dict[str, Any]]:
    """SOL005 VnfPackageSoftwareImageInfo of each VDU with sw_image_data.

    The image id is the VDU name.
    """
    out: dict[str, dict[str, Any]] = {}
    for flavour in vnfd.flavours.values():
        for vdu in flavour.vdus.values():
            if vdu.sw_image and vdu.name not in out:
                out[vdu.name] = _image_info(
                    vdu.name, vdu.sw_image, vnfd.provider
                )
    return list(out.values())


def _image_info(
    vdu: str, image: dict[str, Any], provider: str
) -> dict[str, Any]:
    """Map SOL001 SwImageData to the SOL005 software image shape."""
    checksum = image.get('checksum')
    checksum = checksum if isinstance(checksum, dict) else {}
    info: dict[str, Any] = {
        'id': vdu,
        'name': str(image.get('name', '')),
        'provider': provider,
        'version': str(image.get('version', '')),
        'checksum': {
            'algorithm': str(checksum.get('algorithm', '')),
            'hash': str(checksum.get('hash', '')),
        },
        'containerFormat': str(image.get('container_format', '')).upper(),
        'diskFormat': str(image.get('disk_format', '')).upper(),
        'minDisk': scalar_size(image.get('min_disk', 0), 10**9) or 0,
        'minRam': scalar_size(image.get('min_ram', 0), 10**6) or 0,
        'size': scalar_size(image.get('size', 0), 1) or 0,
        'imagePath': image.get('file') or '',
    }
    if image.get('operating_system'):
        info['userMetadata'] = {'operating_system': image['operating_system']}
    return info
