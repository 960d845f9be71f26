"""Fixtures of the client tests."""

from tests.unit.conductor.receiver import receiver  # noqa: F401

from ..lcm.fixtures import conf  # noqa: F401
from .connects import connects  # noqa: F401
from .webserver import web  # noqa: F401
