from ..clients.peers import trickling_http  # noqa: F401
from .fixtures import conf  # noqa: F401
from .fixtures import db_url  # noqa: F401
from .fixtures import hook_record  # noqa: F401
