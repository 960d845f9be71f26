from ...lcm.fixtures import conf, db_url, hook_record  # noqa: F401
