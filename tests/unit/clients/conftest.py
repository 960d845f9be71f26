"""Fixtures of the client tests."""

from tests.unit.conductor.receiver import receiver  # noqa: F401

from ..lcm.fixtures import conf  # noqa: F401
from .connects import connects  # noqa: F401
from .peer_calls import keystone  # noqa: F401
from .peer_calls import short_deadlines  # noqa: F401
from .peers import garbage  # noqa: F401
from .peers import lying_http  # noqa: F401
from .peers import stalling_sshd  # noqa: F401
from .peers import trickling_banner  # noqa: F401
from .peers import trickling_body  # noqa: F401
from .peers import trickling_http  # noqa: F401
from .webserver import web  # noqa: F401
