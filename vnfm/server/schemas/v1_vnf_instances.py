"""Request bodies of /vnflcm/v1 (SOL003 v2.6.1 clause 5.5.2), where they
differ from v2: vimConnectionInfo is a list of entries with an ``id``, an
extCp's cpConfig a list, and Modify VNF Information names a vnfPkgId.
TerminateVnfRequest, ScaleVnfRequest and HealVnfRequest are v2's."""

from vnfm.server.schemas import common
from vnfm.server.schemas import vnf_instances as v2

_C = common

# 4.4.1.6 VimConnectionInfo (v2.6.1: an array whose entries carry an id)
VIM_CONNECTION_INFO = _C.obj(
    dict(v2.VIM_CONNECTION_INFO['properties'], id=_C.IDENTIFIER),
    required=('id', 'vimType'),
)
VIM_CONNECTION_INFO_LIST = _C.array_of(VIM_CONNECTION_INFO)

# 4.4.1.10 VnfExtCpData: cpConfig is an array of VnfExtCpConfig
_CP_CONFIG = _C.obj(
    {
        'cpInstanceId': _C.IDENTIFIER,
        'linkPortId': _C.IDENTIFIER,
        'cpProtocolData': _C.array_of(
            _C.obj(
                {
                    'layerProtocol': {'type': 'string'},
                    'ipOverEthernet': _C.KEY_VALUE_PAIRS,
                },
                required=('layerProtocol',),
            )
        ),
    }
)
_EXT_CP = _C.obj(
    {
        'cpdId': _C.IDENTIFIER,
        'cpConfig': _C.array_of(_CP_CONFIG, min_items=1),
    },
    required=('cpdId', 'cpConfig'),
)

# 4.4.1.11 ExtVirtualLinkData
EXT_VIRTUAL_LINK = _C.obj(
    dict(
        v2.EXT_VIRTUAL_LINK['properties'],
        extCps=_C.array_of(_EXT_CP, min_items=1),
    ),
    required=('id', 'resourceId', 'extCps'),
)

# 5.5.2.3 CreateVnfRequest (+ metadata as Tacker's v1 API takes it, and
# vimConnectionInfo as vnfm's v2 API does)
CREATE = _C.obj(
    {
        'vnfdId': _C.IDENTIFIER,
        'vnfInstanceName': _C.NAME,
        'vnfInstanceDescription': _C.DESCRIPTION,
        'metadata': _C.KEY_VALUE_PAIRS,
        'vimConnectionInfo': VIM_CONNECTION_INFO_LIST,
    },
    required=('vnfdId',),
)

# 5.5.2.4 InstantiateVnfRequest
INSTANTIATE = _C.obj(
    dict(
        v2.INSTANTIATE['properties'],
        extVirtualLinks=_C.array_of(EXT_VIRTUAL_LINK),
        vimConnectionInfo=VIM_CONNECTION_INFO_LIST,
    ),
    required=('flavourId',),
)

# 5.5.2.7 ChangeVnfFlavourRequest
CHANGE_FLAVOUR = _C.obj(
    {
        'newFlavourId': _C.IDENTIFIER,
        'instantiationLevelId': _C.IDENTIFIER,
        'extVirtualLinks': _C.array_of(EXT_VIRTUAL_LINK),
        'extManagedVirtualLinks': _C.array_of(v2.EXT_MANAGED_VIRTUAL_LINK),
        'vimConnectionInfo': VIM_CONNECTION_INFO_LIST,
        'additionalParams': _C.KEY_VALUE_PAIRS,
    },
    required=('newFlavourId',),
)

TERMINATE = v2.TERMINATE
SCALE = v2.SCALE
SCALE_TO_LEVEL = v2.SCALE_TO_LEVEL
OPERATE = v2.OPERATE
HEAL = v2.HEAL

# 5.5.2.11 ChangeExtVnfConnectivityRequest
CHANGE_EXT_CONN = _C.obj(
    {
        'extVirtualLinks': _C.array_of(EXT_VIRTUAL_LINK, min_items=1),
        'vimConnectionInfo': VIM_CONNECTION_INFO_LIST,
        'additionalParams': _C.KEY_VALUE_PAIRS,
    },
    required=('extVirtualLinks',),
)

# 5.5.2.12 VnfInfoModificationRequest (vnfPkgId as in v2.4.1, which
# Tacker's v1 API and its users keep; vnfdId as Tacker also takes)
MODIFY = _C.obj(
    {
        'vnfInstanceName': _C.NAME,
        'vnfInstanceDescription': _C.DESCRIPTION,
        'vnfPkgId': _C.IDENTIFIER,
        'vnfdId': _C.IDENTIFIER,
        'vnfConfigurableProperties': _C.KEY_VALUE_PAIRS,
        'metadata': _C.KEY_VALUE_PAIRS,
        'extensions': _C.KEY_VALUE_PAIRS,
        'vimConnectionInfo': VIM_CONNECTION_INFO_LIST,
        'vimConnectionInfoDeleteIds': _C.array_of(_C.IDENTIFIER),
    }
)
