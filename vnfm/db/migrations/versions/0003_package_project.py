"""VNF packages belong to a project, as VNF instances do.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # NULL for the packages made before: visible to every project, as
    # packages were until now.
    op.add_column(
        'vnf_packages',
        sa.Column('project_id', sa.String(64), nullable=True),
    )
