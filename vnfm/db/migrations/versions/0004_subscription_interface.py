"""Subscriptions of the VNF package management API (SOL005) beside the LCM
ones: each names the interface whose notifications it gets.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every subscription made before is an LCM one.
    op.add_column(
        'subscriptions',
        sa.Column(
            'interface',
            sa.String(16),
            nullable=False,
            server_default='vnflcm',
        ),
    )
