"""Fixtures for the database tests: ``db_backend`` runs a test on each DB;
``db_url`` is a fresh SQLite database (tables created), ``conf`` undoes
option overrides."""

from vnfm_testbed.db import db_backend  # noqa: F401
from vnfm_testbed.db import migrated_database  # noqa: F401

from ..lcm.fixtures import conf  # noqa: F401
from ..lcm.fixtures import db_url  # noqa: F401
