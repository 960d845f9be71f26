from ..lcm.fixtures import conf  # noqa: F401
