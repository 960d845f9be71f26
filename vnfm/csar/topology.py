"""VDUs, scaling aspects and instantiation levels of a topology_template."""

import posixpath
from typing import Any

from vnfm.csar import nodes as node_templates
from vnfm.csar.errors import InvalidPackage
from vnfm.csar.model import ScalingAspect
from vnfm.csar.model import Vdu
from vnfm.csar.types import VDU_COMPUTE
from vnfm.csar.types import VDU_CONTAINER
from vnfm.csar.types import VIRTUAL_STORAGE
from vnfm.csar.types import TypeRegistry

P = 'tosca.policies.nfv.'
SCALING_ASPECTS, ASPECT_DELTAS, INITIAL_DELTA = (
    P + 'ScalingAspects',
    P + 'VduScalingAspectDeltas',
    P + 'VduInitialDelta',
)
LEVELS, VDU_LEVELS = P + 'InstantiationLevels', P + 'VduInstantiationLevels'
_POLICIES = (SCALING_ASPECTS, ASPECT_DELTAS, INITIAL_DELTA, LEVELS, VDU_LEVELS)


class Topology:
    """The parsed topology of one flavour document."""

    def __init__(
        self,
        path: str,
        tt: dict[str, Any],
        types: TypeRegistry,
        files: dict[str, bytes],
    ) -> None:
        self.path, self.types, self.files = path, types, files
        self.nodes: dict[str, Any] = tt.get('node_templates') or {}
        self.vdus: dict[str, Vdu] = {}
        self.aspects: dict[str, ScalingAspect] = {}
        self.levels: dict[str, dict[str, Any]] = {}
        self.default_level: str | None = None
        for name, node in self.nodes.items():
            base = types.base_of(
                (node or {}).get('type'), (VDU_COMPUTE, VDU_CONTAINER)
            )
            if base:
                self.vdus[name] = self._vdu(name, node, base)
        self._policies(tt.get('policies') or [])

    def _vdu(self, name: str, node: dict[str, Any], base: str) -> Vdu:
        """Build a Vdu from its node template."""
        props = node.get('properties') or {}
        profile = props.get('vdu_profile') or {}
        lo = self._int(
            profile.get('min_number_of_instances', 1), f'{name} min_number'
        )
        hi = self._int(
            profile.get('max_number_of_instances', lo), f'{name} max_number'
        )
        if hi < lo:
            raise InvalidPackage(
                f'{self.path}: VDU {name}: '
                f'max_number_of_instances {hi} is less than '
                f'min_number_of_instances {lo}'
            )
        return Vdu(
            name=name,
            vdu_name=str(props.get('name') or name),
            type=base,
            description=props.get('description'),
            min_instances=lo,
            max_instances=hi,
            initial_delta=lo,
            sw_image=self._sw_image(name, node),
            compute_flavour=node_templates.compute_flavour(node),
            storages=node_templates.requirement_targets(
                node, 'virtual_storage'
            ),
        )

    def _sw_image(
        self, name: str, node: dict[str, Any]
    ) -> dict[str, Any] | None:
        """The VDU's sw_image_data (or its storage's) and the image file."""
        data = (node.get('properties') or {}).get('sw_image_data')
        holder = node
        if not data:
            for target in node_templates.requirement_targets(
                node, 'virtual_storage'
            ):
                tnode = self.nodes.get(target)
                if tnode and self.types.base_of(
                    tnode.get('type'), (VIRTUAL_STORAGE,)
                ):
                    data = (tnode.get('properties') or {}).get('sw_image_data')
                    holder = tnode
                    if data:
                        break
        if not isinstance(data, dict):
            return None
        image = dict(data)
        for art in (holder.get('artifacts') or {}).values():
            if (
                isinstance(art, dict)
                and art.get('type') == 'tosca.artifacts.nfv.SwImage'
            ):
                image['file'] = resolve_file(
                    self.path, str(art.get('file', '')), self.files
                )
        return image

    def _policies(self, policies: Any) -> None:
        """Apply the scaling and instantiation-level policies.

        Kinds are applied in dependency order.
        """
        items = (
            policies.items()
            if isinstance(policies, dict)
            else [
                kv for p in policies if isinstance(p, dict) for kv in p.items()
            ]
        )
        by_kind: dict[str, list[tuple[str, dict[str, Any]]]] = {
            k: [] for k in _POLICIES
        }
        for pname, body in items:
            kind = self.types.base_of(
                (body or {}).get('type'), _POLICIES, policy=True
            )
            if kind:
                by_kind[kind].append((pname, body))
        for kind, handler in (
            (SCALING_ASPECTS, self._aspects),
            (LEVELS, self._levels),
            (ASPECT_DELTAS, self._deltas),
            (INITIAL_DELTA, self._initial),
            (VDU_LEVELS, self._vdu_levels),
        ):
            for pname, body in by_kind[kind]:
                handler(
                    pname,
                    body.get('properties') or {},
                    self._targets(pname, body),
                )

    def _targets(self, pname: str, body: dict[str, Any]) -> list[str]:
        """Policy targets, each a VDU of this flavour."""
        targets = body.get('targets') or []
        for t in targets:
            if t not in self.vdus and t not in self.nodes:
                raise InvalidPackage(
                    f'{self.path}: policy {pname}: target '
                    f"'{t}' is not a node template of this "
                    'flavour'
                )
        return [t for t in targets if t in self.vdus]

    def _aspects(
        self, pname: str, props: dict[str, Any], _: list[str]
    ) -> None:
        """tosca.policies.nfv.ScalingAspects."""
        for aid, a in (props.get('aspects') or {}).items():
            a = a or {}
            self.aspects[aid] = ScalingAspect(
                aspect_id=aid,
                name=str(a.get('name') or aid),
                description=a.get('description'),
                max_scale_level=self._int(
                    a.get('max_scale_level', 0), f'{aid} max_scale_level'
                ),
                step_deltas=[str(s) for s in a.get('step_deltas') or []],
            )

    def _deltas(
        self, pname: str, props: dict[str, Any], targets: list[str]
    ) -> None:
        """tosca.policies.nfv.VduScalingAspectDeltas."""
        name = props.get('aspect')
        # (A list or mapping here is no aspect name, and not hashable.)
        aspect = self.aspects.get(name) if isinstance(name, str) else None
        if aspect is None:
            raise InvalidPackage(
                f'{self.path}: policy {pname}: aspect '
                f"'{props.get('aspect')}' is not declared "
                'in ScalingAspects'
            )
        deltas = {
            str(k): self._int(
                (v or {}).get('number_of_instances', 0), f'{pname} {k}'
            )
            for k, v in (props.get('deltas') or {}).items()
        }
        for vdu in targets:
            aspect.vdu_deltas[vdu] = dict(deltas)
            aspect.vdu_initial_deltas[vdu] = self.vdus[vdu].initial_delta

    def _initial(
        self, pname: str, props: dict[str, Any], targets: list[str]
    ) -> None:
        """tosca.policies.nfv.VduInitialDelta."""
        n = self._int(
            (props.get('initial_delta') or {}).get('number_of_instances', 1),
            pname,
        )
        for vdu in targets:
            self.vdus[vdu].initial_delta = n
            for aspect in self.aspects.values():
                if vdu in aspect.vdu_deltas:
                    aspect.vdu_initial_deltas[vdu] = n

    def _levels(self, pname: str, props: dict[str, Any], _: list[str]) -> None:
        """tosca.policies.nfv.InstantiationLevels."""
        for lid, level in (props.get('levels') or {}).items():
            level = level or {}
            self.levels[lid] = {
                'description': level.get('description'),
                'scale_info': level.get('scale_info') or {},
                'vdu_levels': {},
            }
        self.default_level = props.get('default_level') or self.default_level

    def _vdu_levels(
        self, pname: str, props: dict[str, Any], targets: list[str]
    ) -> None:
        """tosca.policies.nfv.VduInstantiationLevels."""
        for lid, level in (props.get('levels') or {}).items():
            n = self._int(
                (level or {}).get('number_of_instances', 0), f'{pname} {lid}'
            )
            entry = self.levels.setdefault(
                lid, {'description': None, 'scale_info': {}, 'vdu_levels': {}}
            )
            for vdu in targets:
                entry['vdu_levels'][vdu] = n

    def _int(self, value: Any, what: str) -> int:
        """A non-negative integer from the VNFD."""
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidPackage(
                f'{self.path}: {what}: expected a '
                f'non-negative integer, got {value!r}'
            )
        return value


def resolve_file(
    doc_path: str, ref: str, files: dict[str, bytes]
) -> str | None:
    """A file named in a template, relative to it, else to the package root."""
    if not ref or '://' in ref:
        return None
    for cand in (posixpath.join(posixpath.dirname(doc_path), ref), ref):
        cand = posixpath.normpath(cand)
        if cand in files:
            return cand
    return None
