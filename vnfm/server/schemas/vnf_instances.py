"""Request bodies of /vnflcm/v2 (SOL003 v3.3.1 clause 5.5.2)."""

from vnfm.server.schemas import common

_C = common

# 4.4.1.6 VimConnectionInfo
VIM_CONNECTION_INFO = _C.obj(
    {
        'vimId': _C.IDENTIFIER,
        'vimType': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'interfaceInfo': _C.KEY_VALUE_PAIRS,
        'accessInfo': _C.KEY_VALUE_PAIRS,
        'extra': _C.KEY_VALUE_PAIRS,
    },
    required=('vimType',),
)
VIM_CONNECTION_INFO_MAP = {
    'type': 'object',
    'additionalProperties': VIM_CONNECTION_INFO,
}
# In a merge patch, null removes an entry (RFC 7396).
VIM_CONNECTION_INFO_PATCH = {
    'type': 'object',
    'additionalProperties': {'anyOf': [VIM_CONNECTION_INFO, {'type': 'null'}]},
}

# 4.4.1.10c VnfExtCpConfig, 4.4.1.10a VnfExtCpData
_CP_CONFIG = _C.obj(
    {
        'parentCpConfigId': _C.IDENTIFIER,
        'linkPortId': _C.IDENTIFIER,
        'createExtLinkPort': _C.BOOLEAN,
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
        'cpConfig': {
            'type': 'object',
            'additionalProperties': _CP_CONFIG,
            'minProperties': 1,
        },
    },
    required=('cpdId', 'cpConfig'),
)
_EXT_LINK_PORT = _C.obj(
    {
        'id': _C.IDENTIFIER,
        'resourceHandle': _C.obj(
            {'resourceId': _C.IDENTIFIER}, required=('resourceId',)
        ),
    },
    required=('id', 'resourceHandle'),
)

# 4.4.1.11 ExtVirtualLinkData
EXT_VIRTUAL_LINK = _C.obj(
    {
        'id': _C.IDENTIFIER,
        'vimConnectionId': _C.IDENTIFIER,
        'resourceProviderId': _C.IDENTIFIER,
        'resourceId': _C.IDENTIFIER,
        'extCps': _C.array_of(_EXT_CP, min_items=1),
        'extLinkPorts': _C.array_of(_EXT_LINK_PORT),
    },
    required=('id', 'resourceId', 'extCps'),
)

# 4.4.1.12 ExtManagedVirtualLinkData
EXT_MANAGED_VIRTUAL_LINK = _C.obj(
    {
        'id': _C.IDENTIFIER,
        'vnfVirtualLinkDescId': _C.IDENTIFIER,
        'vimConnectionId': _C.IDENTIFIER,
        'resourceProviderId': _C.IDENTIFIER,
        'resourceId': _C.IDENTIFIER,
        'extManagedMultisiteVirtualLinkId': _C.IDENTIFIER,
    },
    required=('id', 'vnfVirtualLinkDescId', 'resourceId'),
)

# 5.5.2.3 CreateVnfRequest (+ vimConnectionInfo, a vnfm extension)
CREATE = _C.obj(
    {
        'vnfdId': _C.IDENTIFIER,
        'vnfInstanceName': _C.NAME,
        'vnfInstanceDescription': _C.DESCRIPTION,
        'metadata': _C.KEY_VALUE_PAIRS,
        'vimConnectionInfo': VIM_CONNECTION_INFO_MAP,
    },
    required=('vnfdId',),
)

# 5.5.2.4 InstantiateVnfRequest
INSTANTIATE = _C.obj(
    {
        'flavourId': _C.IDENTIFIER,
        'instantiationLevelId': _C.IDENTIFIER,
        'extVirtualLinks': _C.array_of(EXT_VIRTUAL_LINK),
        'extManagedVirtualLinks': _C.array_of(EXT_MANAGED_VIRTUAL_LINK),
        'vimConnectionInfo': VIM_CONNECTION_INFO_MAP,
        'localizationLanguage': {'type': 'string', 'maxLength': 255},
        'additionalParams': _C.KEY_VALUE_PAIRS,
        'extensions': _C.KEY_VALUE_PAIRS,
        'vnfConfigurableProperties': _C.KEY_VALUE_PAIRS,
    },
    required=('flavourId',),
)

# 5.5.2.5 ScaleVnfRequest
SCALE = _C.obj(
    {
        'type': {'type': 'string', 'enum': ['SCALE_OUT', 'SCALE_IN']},
        'aspectId': _C.IDENTIFIER,
        'numberOfSteps': _C.POSITIVE_INT,
        'additionalParams': _C.KEY_VALUE_PAIRS,
    },
    required=('type', 'aspectId'),
)

# 5.5.2.6 ScaleVnfToLevelRequest: instantiationLevelId or scaleInfo
_SCALE_INFO = _C.obj(
    {
        'aspectId': _C.IDENTIFIER,
        'vnfdId': _C.IDENTIFIER,
        'scaleLevel': _C.NON_NEGATIVE_INT,
    },
    required=('aspectId', 'scaleLevel'),
)
SCALE_TO_LEVEL = dict(
    _C.obj(
        {
            'instantiationLevelId': _C.IDENTIFIER,
            'scaleInfo': _C.array_of(_SCALE_INFO, min_items=1),
            'additionalParams': _C.KEY_VALUE_PAIRS,
        }
    ),
    oneOf=[
        {'required': ['instantiationLevelId']},
        {'required': ['scaleInfo']},
    ],
)

# 5.5.2.8 TerminateVnfRequest
TERMINATE = _C.obj(
    {
        'terminationType': {
            'type': 'string',
            'enum': ['FORCEFUL', 'GRACEFUL'],
        },
        'gracefulTerminationTimeout': _C.NON_NEGATIVE_INT,
        'additionalParams': _C.KEY_VALUE_PAIRS,
    },
    required=('terminationType',),
)

# 5.5.2.9 HealVnfRequest (the SOL002 vnfcInstanceId list, as Tacker takes)
HEAL = _C.obj(
    {
        'vnfcInstanceId': _C.array_of(_C.IDENTIFIER),
        'cause': {'type': 'string', 'maxLength': 1024},
        'additionalParams': _C.KEY_VALUE_PAIRS,
        'healScript': {'type': 'string', 'maxLength': 1024},
    }
)

# 5.5.2.10 OperateVnfRequest
OPERATE = _C.obj(
    {
        'changeStateTo': {'type': 'string', 'enum': ['STARTED', 'STOPPED']},
        'stopType': {'type': 'string', 'enum': ['FORCEFUL', 'GRACEFUL']},
        'gracefulStopTimeout': _C.NON_NEGATIVE_INT,
        'additionalParams': _C.KEY_VALUE_PAIRS,
    },
    required=('changeStateTo',),
)

# 5.5.2.11 ChangeExtVnfConnectivityRequest
CHANGE_EXT_CONN = _C.obj(
    {
        'extVirtualLinks': _C.array_of(EXT_VIRTUAL_LINK, min_items=1),
        'vimConnectionInfo': VIM_CONNECTION_INFO_MAP,
        'additionalParams': _C.KEY_VALUE_PAIRS,
    },
    required=('extVirtualLinks',),
)

# 5.5.2.11a ChangeCurrentVnfPkgRequest
CHANGE_VNFPKG = _C.obj(
    {
        'vnfdId': _C.IDENTIFIER,
        'extVirtualLinks': _C.array_of(EXT_VIRTUAL_LINK),
        'extManagedVirtualLinks': _C.array_of(EXT_MANAGED_VIRTUAL_LINK),
        'vimConnectionInfo': VIM_CONNECTION_INFO_MAP,
        'additionalParams': _C.KEY_VALUE_PAIRS,
        'extensions': _C.KEY_VALUE_PAIRS,
        'vnfConfigurableProperties': _C.KEY_VALUE_PAIRS,
    },
    required=('vnfdId',),
)

# 5.5.2.7 ChangeVnfFlavourRequest: ChangeCurrentVnfPkgRequest's attributes
# with the flavour (and level) in place of the vnfdId
CHANGE_FLAVOUR = _C.obj(
    {
        'newFlavourId': _C.IDENTIFIER,
        'instantiationLevelId': _C.IDENTIFIER,
        **{
            k: v
            for k, v in CHANGE_VNFPKG['properties'].items()
            if k != 'vnfdId'
        },
    },
    required=('newFlavourId',),
)

# 5.5.2.12 VnfInfoModificationRequest (vnfdId as in Tacker v2; merge patch)
_VNFC_INFO_MODIFICATION = _C.obj(
    {
        'id': _C.IDENTIFIER,
        'vnfcConfigurableProperties': _C.KEY_VALUE_PAIRS,
    },
    required=('id', 'vnfcConfigurableProperties'),
)
MODIFY = _C.obj(
    {
        'vnfInstanceName': _C.NAME,
        'vnfInstanceDescription': _C.DESCRIPTION,
        'vnfdId': _C.IDENTIFIER,
        'vnfConfigurableProperties': _C.KEY_VALUE_PAIRS,
        'metadata': _C.KEY_VALUE_PAIRS,
        'extensions': _C.KEY_VALUE_PAIRS,
        'vimConnectionInfo': VIM_CONNECTION_INFO_PATCH,
        'vnfcInfoModifications': _C.array_of(_VNFC_INFO_MODIFICATION),
    }
)

# 5.5.2.14 CancelMode
CANCEL = _C.obj(
    {
        'cancelMode': {'type': 'string', 'enum': ['GRACEFUL', 'FORCEFUL']},
    },
    required=('cancelMode',),
)
