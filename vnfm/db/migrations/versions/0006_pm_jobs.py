"""PM jobs, their reports and thresholds (SOL003 v3.3.1 6.5.2.7,
6.5.2.10, 6.5.2.9).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None

# The types of vnfm.db.models at the time of this revision (copied).
DateTime = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb'
)
Json = sa.JSON
Uuid = sa.String(36)


def upgrade() -> None:
    op.create_table(
        'pm_jobs',
        sa.Column('id', Uuid, nullable=False),
        sa.Column('subscription_id', Uuid, nullable=False),
        sa.Column('project_id', sa.String(64), nullable=True),
        sa.Column('object_type', sa.String(16), nullable=False),
        sa.Column('object_instance_ids', Json, nullable=False),
        sa.Column('sub_object_instance_ids', Json, nullable=True),
        sa.Column('criteria', Json, nullable=False),
        sa.Column('measurements', Json, nullable=False),
        sa.Column('created_at', DateTime, nullable=False),
        sa.Column('updated_at', DateTime, nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_pm_jobs'),
        sa.ForeignKeyConstraint(
            ['subscription_id'],
            ['subscriptions.id'],
            ondelete='CASCADE',
            name='fk_pm_jobs_subscription_id_subscriptions',
        ),
    )
    op.create_index(
        'ix_pm_jobs_subscription_id', 'pm_jobs', ['subscription_id']
    )
    op.create_table(
        'pm_reports',
        sa.Column('id', Uuid, nullable=False),
        sa.Column('pm_job_id', Uuid, nullable=False),
        sa.Column('entries', Json, nullable=False),
        sa.Column('fingerprint', sa.String(64), nullable=False),
        sa.Column('created_at', DateTime, nullable=False),
        sa.Column('expiry_time', DateTime, nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_pm_reports'),
        sa.ForeignKeyConstraint(
            ['pm_job_id'],
            ['pm_jobs.id'],
            ondelete='CASCADE',
            name='fk_pm_reports_pm_job_id_pm_jobs',
        ),
        sa.UniqueConstraint(
            'pm_job_id', 'fingerprint', name='uq_pm_reports_pm_job_id'
        ),
    )
    op.create_index('ix_pm_reports_pm_job_id', 'pm_reports', ['pm_job_id'])
    op.create_table(
        'thresholds',
        sa.Column('id', Uuid, nullable=False),
        sa.Column('subscription_id', Uuid, nullable=False),
        sa.Column('project_id', sa.String(64), nullable=True),
        sa.Column('object_type', sa.String(16), nullable=False),
        sa.Column('object_instance_id', Uuid, nullable=False),
        sa.Column('sub_object_instance_ids', Json, nullable=True),
        sa.Column('criteria', Json, nullable=False),
        sa.Column('threshold_metadata', Json, nullable=True),
        sa.Column('crossing_state', sa.String(8), nullable=True),
        sa.Column('last_crossing', Json, nullable=True),
        sa.Column('created_at', DateTime, nullable=False),
        sa.Column('updated_at', DateTime, nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_thresholds'),
        sa.ForeignKeyConstraint(
            ['subscription_id'],
            ['subscriptions.id'],
            ondelete='CASCADE',
            name='fk_thresholds_subscription_id_subscriptions',
        ),
    )
    op.create_index(
        'ix_thresholds_subscription_id', 'thresholds', ['subscription_id']
    )
