"""Fixtures of the objects tests that need a database."""

from ..lcm.fixtures import conf  # noqa: F401
from ..lcm.fixtures import db_url  # noqa: F401
from ..lcm.fixtures import hook_record  # noqa: F401
