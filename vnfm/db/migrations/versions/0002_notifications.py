"""The notification outbox.

Revision ID: 0002
Revises: 0001
Create Date: 2024-12-02
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

# The types of vnfm.db.models at the time of this revision (copied).
DateTime = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb'
)
Json = sa.JSON
Uuid = sa.String(36)
# SQLite autoincrements only an INTEGER PRIMARY KEY.
Seq = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


def upgrade() -> None:
    op.create_table(
        'notifications',
        sa.Column('seq', Seq, autoincrement=True, nullable=False),
        sa.Column('id', Uuid, nullable=False),
        sa.Column('subscription_id', Uuid, nullable=False),
        sa.Column('notification_type', sa.String(64), nullable=False),
        sa.Column('payload', Json, nullable=False),
        sa.Column('state', sa.String(16), nullable=False),
        sa.Column('attempts', sa.Integer, nullable=False),
        sa.Column('next_attempt_at', DateTime, nullable=False),
        sa.Column('last_error', sa.Text, nullable=True),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('lease_expires_at', DateTime, nullable=True),
        sa.Column('created_at', DateTime, nullable=False),
        sa.Column('finished_at', DateTime, nullable=True),
        sa.PrimaryKeyConstraint('seq', name='pk_notifications'),
        sa.ForeignKeyConstraint(
            ['subscription_id'],
            ['subscriptions.id'],
            ondelete='CASCADE',
            name='fk_notifications_subscription_id_subscriptions',
        ),
    )
    for column in ('subscription_id', 'state'):
        op.create_index(
            f'ix_notifications_{column}', 'notifications', [column]
        )
