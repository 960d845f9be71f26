"""TOSCA type lookups: derivation chains and property defaults."""

from typing import Any

VNF = 'tosca.nodes.nfv.VNF'
VDU_COMPUTE = 'tosca.nodes.nfv.Vdu.Compute'
VDU_CONTAINER = 'tosca.nodes.nfv.Vdu.OsContainerDeployableUnit'
VIRTUAL_STORAGE = 'tosca.nodes.nfv.Vdu.VirtualBlockStorage'
VDU_CP = 'tosca.nodes.nfv.VduCp'
VIRTUAL_LINK = 'tosca.nodes.nfv.VnfVirtualLink'


class TypeRegistry:
    """Node and policy types of all loaded documents; the package's win."""

    def __init__(self, docs: list[tuple[str, dict[str, Any]]]) -> None:
        self.node_types: dict[str, dict[str, Any]] = {}
        self.policy_types: dict[str, dict[str, Any]] = {}
        for _, doc in docs:
            for section, table in (
                ('node_types', self.node_types),
                ('policy_types', self.policy_types),
            ):
                for name, body in (doc.get(section) or {}).items():
                    table.setdefault(
                        name, body if isinstance(body, dict) else {}
                    )

    def chain(self, name: str, policy: bool = False) -> list[str]:
        """The type and its ancestors, nearest first."""
        table = self.policy_types if policy else self.node_types
        out: list[str] = []
        current: object = name
        while isinstance(current, str) and current not in out:
            out.append(current)
            current = (table.get(current) or {}).get('derived_from')
        return out

    def base_of(
        self, name: Any, bases: tuple[str, ...], policy: bool = False
    ) -> str | None:
        """The first of ``bases`` that ``name`` is or derives from, or None."""
        if not isinstance(name, str):
            return None
        for t in self.chain(name, policy):
            if t in bases:
                return t
        return None

    def property_default(self, type_name: str, prop: str) -> Any:
        """A node type property's ``default`` or single ``valid_values``."""
        for t in self.chain(type_name):
            if t == VNF:
                break
            spec = (
                (self.node_types.get(t) or {}).get('properties') or {}
            ).get(prop)
            if not isinstance(spec, dict):
                continue
            if spec.get('default') is not None:
                return spec['default']
            for c in spec.get('constraints') or []:
                if isinstance(c, dict) and c.get('valid_values'):
                    return c['valid_values'][0]
                if isinstance(c, dict) and c.get('equal') is not None:
                    return c['equal']
        return None
