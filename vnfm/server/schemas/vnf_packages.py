"""Request bodies of /vnfpkgm/v1 (SOL005 v2.6.1 clause 9.5.2)."""

from vnfm.server.schemas import common

# 9.5.2.2 CreateVnfPkgInfoRequest
CREATE = common.obj({'userDefinedData': common.KEY_VALUE_PAIRS})

# 9.5.2.3 VnfPkgInfoModifications (at least one attribute)
MODIFY = common.obj(
    {
        'operationalState': {
            'type': 'string',
            'enum': ['ENABLED', 'DISABLED'],
        },
        'userDefinedData': common.KEY_VALUE_PAIRS,
    },
    min_properties=1,
)

# 9.5.2.4 UploadVnfPackageFromUriRequest
UPLOAD_FROM_URI = common.obj(
    {
        'addressInformation': common.URI,
        'userName': common.NAME,
        'password': {'type': 'string', 'maxLength': 1024},
    },
    required=('addressInformation',),
)
