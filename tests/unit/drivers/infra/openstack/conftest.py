"""Fixtures of the OpenStack driver tests."""

from .fakeheat import heat  # noqa: F401
