"""Fixtures of the objects tests that need a database."""

from ..lcm.fixtures import conf, db_url, hook_record  # noqa: F401
