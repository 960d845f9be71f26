from ..clients.connects import connects  # noqa: F401
from ..clients.peers import trickling_http  # noqa: F401
from ..clients.webserver import web  # noqa: F401
from ..lcm.fixtures import conf  # noqa: F401
from ..lcm.fixtures import db_url  # noqa: F401
from ..lcm.fixtures import hook_record  # noqa: F401
from .receiver import receiver  # noqa: F401
