from ..clients.connects import connects  # noqa: F401
from ..clients.webserver import web  # noqa: F401
from ..lcm.fixtures import conf, db_url, hook_record  # noqa: F401
from .receiver import receiver  # noqa: F401
