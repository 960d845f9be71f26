from ..clients.peer_calls import keystone  # noqa: F401
from ..clients.peer_calls import short_deadlines  # noqa: F401
from ..clients.peers import stalling_sshd  # noqa: F401
from ..clients.peers import trickling_body  # noqa: F401
from ..clients.peers import trickling_http  # noqa: F401
from .fixtures import conf  # noqa: F401
from .fixtures import db_url  # noqa: F401
from .fixtures import hook_record  # noqa: F401
