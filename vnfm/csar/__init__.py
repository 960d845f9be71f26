"""Reading and validating VNF packages (SOL004 CSAR) and their VNFD.

``read_csar(data, limits)`` returns a ``Csar`` or raises ``InvalidPackage``
whose ``detail`` names the file and what is wrong. Both SOL004 layouts are
accepted: ``TOSCA-Metadata/TOSCA.meta`` with ``Entry-Definitions``, or a
single root YAML with ``tosca_definitions_version`` (plus an optional ``.mf``
manifest). Declared artifact hashes are verified. The ETSI SOL001 type files
may be imported by URL or by a path absent from the package; vnfm's own
copies in ``vnfm/csar/sol001/`` are used then, and nothing is ever fetched
from the network.

What a package may be is bounded: every path follows
``zipreader.PATH_RULE`` (plain relative paths of ordinary characters, none
starting with ``-``), sizes and compression ratios follow ``CsarLimits``,
and the definitions' YAML nodes, nesting, string and file sizes and import
chains have fixed limits (``templates``); import cycles are refused.

Hooks are the ``interfaces.Vnflcm.<op>_start|_end`` operations of the VNF
node template (the flavour's template first, then the top-level one). Their
``implementation`` names an artifact of the VNF node whose ``file`` must be
in the package (relative to the defining template or to the package root).
vnfm extension: an artifact of type ``vnfm.artifacts.BuiltinMgmtDriver``
whose ``file`` is the name of a built-in MgmtDriver (e.g.
``container_update``) gives a Hook with ``builtin`` set and ``file`` None;
whether that driver exists is checked by the caller.

``Vnfd.interfaces`` is the union of all flavours' hooks, the first flavour
declaring a hook winning; ``Flavour.interfaces`` is exact for one flavour.
"""

from vnfm.csar.errors import InvalidPackage
from vnfm.csar.meta import Artifact
from vnfm.csar.model import HOOK_NAMES
from vnfm.csar.model import Flavour
from vnfm.csar.model import Hook
from vnfm.csar.model import ScalingAspect
from vnfm.csar.model import Vdu
from vnfm.csar.model import Vnfd
from vnfm.csar.package import Csar
from vnfm.csar.package import read_csar
from vnfm.csar.zipreader import CsarLimits

__all__ = [
    'HOOK_NAMES',
    'Artifact',
    'Csar',
    'CsarLimits',
    'Flavour',
    'Hook',
    'InvalidPackage',
    'ScalingAspect',
    'Vdu',
    'Vnfd',
    'read_csar',
]
