"""Fixtures for the database tests: ``db_backend`` runs a test on each DB."""

from vnfm_testbed.db import db_backend  # noqa: F401
from vnfm_testbed.db import migrated_database  # noqa: F401
