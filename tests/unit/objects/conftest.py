"""Fixtures of the objects tests that need a database (and, for auto-heal,
the API with a fake conductor RPC client)."""

from ..lcm.fixtures import conf  # noqa: F401
from ..lcm.fixtures import db_url  # noqa: F401
from ..lcm.fixtures import hook_record  # noqa: F401
from ..server.conftest import client  # noqa: F401
from ..server.conftest import database  # noqa: F401
from ..server.conftest import rpc  # noqa: F401
