"""Alarms of VNF fault management (SOL003 v3.3.1 7.5.2.4), raised from
Alertmanager's alerts.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = '0005'
down_revision = '0004'
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
        'alarms',
        sa.Column('id', Uuid, nullable=False),
        sa.Column('vnf_instance_id', Uuid, nullable=False),
        sa.Column('project_id', sa.String(64), nullable=True),
        sa.Column('vnfc_instance_ids', Json, nullable=True),
        sa.Column('root_cause_faulty_resource', Json, nullable=True),
        sa.Column('alarm_raised_time', DateTime, nullable=False),
        sa.Column('alarm_changed_time', DateTime, nullable=True),
        sa.Column('alarm_cleared_time', DateTime, nullable=True),
        sa.Column('alarm_acknowledged_time', DateTime, nullable=True),
        sa.Column('ack_state', sa.String(16), nullable=False),
        sa.Column('perceived_severity', sa.String(16), nullable=False),
        sa.Column('event_time', DateTime, nullable=False),
        sa.Column('event_type', sa.String(32), nullable=False),
        sa.Column('fault_type', sa.String(255), nullable=True),
        sa.Column('probable_cause', sa.String(255), nullable=False),
        sa.Column('is_root_cause', sa.Boolean, nullable=False),
        sa.Column('fault_details', Json, nullable=True),
        sa.Column('fingerprint', sa.String(64), nullable=False),
        sa.Column('starts_at', DateTime, nullable=False),
        sa.Column('heal_state', sa.String(16), nullable=True),
        sa.Column('heal_decision', Json, nullable=True),
        sa.Column('created_at', DateTime, nullable=False),
        sa.Column('updated_at', DateTime, nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_alarms'),
        sa.ForeignKeyConstraint(
            ['vnf_instance_id'],
            ['vnf_instances.id'],
            ondelete='CASCADE',
            name='fk_alarms_vnf_instance_id_vnf_instances',
        ),
        sa.UniqueConstraint(
            'fingerprint', 'starts_at', name='uq_alarms_fingerprint'
        ),
    )
    for column in ('vnf_instance_id', 'heal_state'):
        op.create_index(f'ix_alarms_{column}', 'alarms', [column])
