"""Building the Vnfd model from the loaded definitions."""

from typing import Any

from vnfm.csar import nodes as node_templates
from vnfm.csar.errors import InvalidPackage
from vnfm.csar.hooks import parse_hooks
from vnfm.csar.model import Flavour
from vnfm.csar.model import Hook
from vnfm.csar.model import Vnfd
from vnfm.csar.templates import Definitions
from vnfm.csar.topology import Topology
from vnfm.csar.types import VNF
from vnfm.csar.types import TypeRegistry

# (Vnfd field, VNF property) of the identity every VNFD must give.
_IDENTITY = (
    ('vnfd_id', 'descriptor_id'),
    ('provider', 'provider'),
    ('product_name', 'product_name'),
    ('software_version', 'software_version'),
    ('vnfd_version', 'descriptor_version'),
)


def build_vnfd(defs: Definitions) -> Vnfd:
    """Read identity, flavours, VDUs, policies and hooks from definitions."""
    types = TypeRegistry(defs.all_docs())
    entry_doc = defs.docs[defs.entry]
    top = _vnf_template(defs.entry, entry_doc, types)
    flavour_docs = _flavour_docs(defs, types)
    if not flavour_docs:
        flavour_docs = [(defs.entry, entry_doc)]
    node_type = _node_type(defs, top, flavour_docs, types)
    templates = [
        t
        for t in [top] + [_vnf_template(p, d, types) for p, d in flavour_docs]
        if t
    ]
    ident = {
        field: _identity(prop, templates, node_type, types)
        for field, prop in _IDENTITY
    }
    flavours: dict[str, Flavour] = {}
    for path, doc in flavour_docs:
        flavour = _flavour(path, doc, defs, top, node_type, types)
        if flavour.flavour_id in flavours:
            raise InvalidPackage(
                f"{path}: flavour_id '{flavour.flavour_id}' is declared twice"
            )
        flavours[flavour.flavour_id] = flavour
    union: dict[str, Hook] = {}
    for flavour in flavours.values():
        for name, hook in flavour.interfaces.items():
            union.setdefault(name, hook)
    vnfm_info = _plain(
        _identity_value('vnfm_info', templates, node_type, types)
    )
    return Vnfd(
        **ident,
        flavours=flavours,
        interfaces=union,
        node_type=node_type,
        description=entry_doc.get('description'),
        vnfm_info=(
            [str(v) for v in vnfm_info] if isinstance(vnfm_info, list) else []
        ),
        raw_templates=defs.package_docs(),
    )


def _vnf_template(
    path: str, doc: dict[str, Any], types: TypeRegistry
) -> tuple[str, str, dict[str, Any]] | None:
    """The (file, name, node) of a document's VNF node template, if any."""
    nodes = (doc.get('topology_template') or {}).get('node_templates') or {}
    if not isinstance(nodes, dict):
        raise InvalidPackage(
            f'{path}: topology_template.node_templates must be a map'
        )
    found = [
        (path, n, t)
        for n, t in nodes.items()
        if isinstance(t, dict) and types.base_of(t.get('type'), (VNF,))
    ]
    if len(found) > 1:
        raise InvalidPackage(
            f'{path}: more than one VNF node template: '
            + ', '.join(n for _, n, _ in found)
        )
    return found[0] if found else None


def _flavour_docs(
    defs: Definitions, types: TypeRegistry
) -> list[tuple[str, dict[str, Any]]]:
    """Package documents whose topology substitutes a VNF node type.

    There is one per flavour.
    """
    out = []
    for path, doc in defs.package_docs().items():
        sm = (doc.get('topology_template') or {}).get('substitution_mappings')
        if isinstance(sm, dict) and types.base_of(sm.get('node_type'), (VNF,)):
            out.append((path, doc))
    return out


def _node_type(
    defs: Definitions,
    top: Any,
    flavour_docs: list[tuple[str, dict[str, Any]]],
    types: TypeRegistry,
) -> str:
    """The VNF's node type.

    It comes from the top template, a substitution, or the only VNF type.
    """
    if top:
        return top[2]['type']
    for _, doc in flavour_docs:
        sm = (doc.get('topology_template') or {}).get(
            'substitution_mappings'
        ) or {}
        if sm.get('node_type'):
            return sm['node_type']
    candidates = [
        n for n in types.node_types if n != VNF and types.base_of(n, (VNF,))
    ]
    if len(candidates) != 1:
        raise InvalidPackage(
            f'{defs.entry}: cannot find the VNF: no node '
            'template or substitution_mappings of a type '
            'derived from tosca.nodes.nfv.VNF'
        )
    return candidates[0]


def _identity_value(
    prop: str,
    templates: list[tuple[str, str, dict[str, Any]]],
    node_type: str,
    types: TypeRegistry,
) -> Any:
    """A VNF property from the templates (literals only), else its type's."""
    for _, _, node in templates:
        value = (node.get('properties') or {}).get(prop)
        if value is not None and not isinstance(value, dict):
            return value
    return types.property_default(node_type, prop)


def _identity(
    prop: str,
    templates: list[tuple[str, str, dict[str, Any]]],
    node_type: str,
    types: TypeRegistry,
) -> str:
    """A mandatory identity property as a non-empty string."""
    value = _identity_value(prop, templates, node_type, types)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise InvalidPackage(
            f"VNFD: {prop} is missing: set it in the VNF node template's "
            'properties or as the default (or single valid_values) of node '
            f"type '{node_type}'"
        )
    return value


def _flavour(
    path: str,
    doc: dict[str, Any],
    defs: Definitions,
    top: Any,
    node_type: str,
    types: TypeRegistry,
) -> Flavour:
    """One flavour: its id, topology and hooks."""
    tt = doc.get('topology_template') or {}
    sm = tt.get('substitution_mappings') or {}
    own = _vnf_template(path, doc, types)
    templates = [t for t in (own, top) if t]
    fid = (sm.get('properties') or {}).get('flavour_id')
    if not isinstance(fid, str):
        fid = _identity_value('flavour_id', templates, node_type, types)
    if not isinstance(fid, str) or not fid:
        raise InvalidPackage(
            f'{path}: flavour_id is missing: set '
            'substitution_mappings.properties.flavour_id or '
            "the VNF's flavour_id property"
        )
    desc = _identity_value('flavour_description', templates, node_type, types)
    topo = Topology(path, tt, types, defs.files)
    sources = [
        *templates,
        (path, node_type, types.node_types.get(node_type) or {}),
    ]
    return Flavour(
        flavour_id=fid,
        description=(
            desc if isinstance(desc, str) else doc.get('description')
        ),
        vdus=topo.vdus,
        scaling_aspects=topo.aspects,
        instantiation_levels=topo.levels,
        default_instantiation_level=topo.default_level,
        interfaces=parse_hooks(sources, defs.files),
        cps=node_templates.cps(topo.nodes, types),
        storages=node_templates.storages(topo.nodes, types),
        virtual_links=node_templates.virtual_links(topo.nodes, types),
    )


def _plain(value: Any) -> Any:
    """Drop TOSCA functions such as {get_input: x}."""
    return None if isinstance(value, dict) else value
