"""The VNFD model vnfm stores: identity, flavours, VDUs, aspects and hooks."""

import dataclasses
from typing import Any

HOOK_OPERATIONS = (
    'instantiate',
    'terminate',
    'scale',
    'heal',
    'operate',
    'change_flavour',
    'modify_information',
    'change_external_connectivity',
    'change_current_package',
)
HOOK_NAMES = tuple(
    f'{op}_{when}' for op in HOOK_OPERATIONS for when in ('start', 'end')
)
BUILTIN_ARTIFACT_TYPE = 'vnfm.artifacts.BuiltinMgmtDriver'


@dataclasses.dataclass
class Hook:
    """A MgmtDriver hook: LCM ``<op>_start``/``<op>_end`` and its artifact."""

    name: str
    implementation: str
    artifact_type: str | None = None
    file: str | None = None
    description: str | None = None
    builtin: str | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> 'Hook':
        """Rebuild from ``to_dict()`` output."""
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Vdu:
    """A VDU node template (VM or container deployable unit)."""

    name: str
    vdu_name: str
    type: str
    description: str | None = None
    min_instances: int = 1
    max_instances: int = 1
    initial_delta: int = 1
    sw_image: dict[str, Any] | None = None
    # The Nova flavour name of virtual_compute's
    # requested_additional_capabilities (as Tacker's packages give it).
    compute_flavour: str | None = None
    # Names of the VirtualBlockStorage nodes of its virtual_storage
    # requirements.
    storages: list[str] = dataclasses.field(default_factory=list)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> 'Vdu':
        """Rebuild from ``to_dict()`` output."""
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return dataclasses.asdict(self)


@dataclasses.dataclass
class VirtualStorage:
    """A VirtualBlockStorage node template."""

    name: str
    size_gb: int | None = None
    sw_image: dict[str, Any] | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> 'VirtualStorage':
        """Rebuild from ``to_dict()`` output."""
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Cp:
    """A VduCp node template: the VDU it binds to, the internal VL it links
    to (None: external, per the request's extVirtualLinks)."""

    name: str
    vdu: str | None = None
    virtual_link: str | None = None
    order: int | None = None

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> 'Cp':
        """Rebuild from ``to_dict()`` output."""
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return dataclasses.asdict(self)


@dataclasses.dataclass
class ScalingAspect:
    """A scaling aspect with the per-VDU deltas of each step.

    Deltas are keyed by VDU template name.
    """

    aspect_id: str
    name: str
    description: str | None = None
    max_scale_level: int = 0
    step_deltas: list[str] = dataclasses.field(default_factory=list)
    vdu_deltas: dict[str, dict[str, int]] = dataclasses.field(
        default_factory=dict
    )
    vdu_initial_deltas: dict[str, int] = dataclasses.field(
        default_factory=dict
    )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> 'ScalingAspect':
        """Rebuild from ``to_dict()`` output."""
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Flavour:
    """One deployment flavour: VDUs, scaling, instantiation levels, hooks."""

    flavour_id: str
    description: str | None = None
    vdus: dict[str, Vdu] = dataclasses.field(default_factory=dict)
    scaling_aspects: dict[str, ScalingAspect] = dataclasses.field(
        default_factory=dict
    )
    instantiation_levels: dict[str, dict[str, Any]] = dataclasses.field(
        default_factory=dict
    )
    default_instantiation_level: str | None = None
    interfaces: dict[str, Hook] = dataclasses.field(default_factory=dict)
    cps: dict[str, Cp] = dataclasses.field(default_factory=dict)
    storages: dict[str, VirtualStorage] = dataclasses.field(
        default_factory=dict
    )
    virtual_links: list[str] = dataclasses.field(default_factory=list)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> 'Flavour':
        """Rebuild from ``to_dict()`` output."""
        return cls(
            flavour_id=d['flavour_id'],
            description=d.get('description'),
            vdus={k: Vdu.from_dict(v) for k, v in d.get('vdus', {}).items()},
            scaling_aspects={
                k: ScalingAspect.from_dict(v)
                for k, v in d.get('scaling_aspects', {}).items()
            },
            instantiation_levels=d.get('instantiation_levels', {}),
            default_instantiation_level=d.get('default_instantiation_level'),
            interfaces={
                k: Hook.from_dict(v)
                for k, v in d.get('interfaces', {}).items()
            },
            cps={k: Cp.from_dict(v) for k, v in d.get('cps', {}).items()},
            storages={
                k: VirtualStorage.from_dict(v)
                for k, v in d.get('storages', {}).items()
            },
            virtual_links=list(d.get('virtual_links', [])),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Vnfd:
    """A parsed VNFD.

    ``interfaces`` is the union of the flavours' hooks (the first flavour
    declaring a hook wins); use ``Flavour.interfaces`` of the instantiated
    flavour when it matters.
    """

    vnfd_id: str
    provider: str
    product_name: str
    software_version: str
    vnfd_version: str
    flavours: dict[str, Flavour] = dataclasses.field(default_factory=dict)
    interfaces: dict[str, Hook] = dataclasses.field(default_factory=dict)
    node_type: str | None = None
    description: str | None = None
    vnfm_info: list[str] = dataclasses.field(default_factory=list)
    raw_templates: dict[str, dict[str, Any]] = dataclasses.field(
        default_factory=dict
    )

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> 'Vnfd':
        """Rebuild from ``to_dict()`` output."""
        return cls(
            vnfd_id=d['vnfd_id'],
            provider=d['provider'],
            product_name=d['product_name'],
            software_version=d['software_version'],
            vnfd_version=d['vnfd_version'],
            flavours={
                k: Flavour.from_dict(v)
                for k, v in d.get('flavours', {}).items()
            },
            interfaces={
                k: Hook.from_dict(v)
                for k, v in d.get('interfaces', {}).items()
            },
            node_type=d.get('node_type'),
            description=d.get('description'),
            vnfm_info=list(d.get('vnfm_info', [])),
            raw_templates=d.get('raw_templates', {}),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (what the database stores)."""
        return dataclasses.asdict(self)

    def flavour(self, flavour_id: str) -> Flavour | None:
        """The flavour with this id, or None."""
        return self.flavours.get(flavour_id)
