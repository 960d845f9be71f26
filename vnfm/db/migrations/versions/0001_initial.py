"""Initial schema: packages, instances, op occurrences, VIMs, subscriptions.

Revision ID: 0001
Revises:
Create Date: 2024-11-21
"""

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import mysql

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None

# The types of vnfm.db.models at the time of this revision. Copied, not
# imported: a migration must not change when the models do.
DateTime = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb'
)
Blob = sa.LargeBinary().with_variant(mysql.LONGBLOB(), 'mysql', 'mariadb')
Json = sa.JSON
Uuid = sa.String(36)


def _timestamps() -> list[sa.Column]:
    return [
        sa.Column('created_at', DateTime, nullable=False),
        sa.Column('updated_at', DateTime, nullable=True),
    ]


def _create_packages() -> None:
    op.create_table(
        'vnf_packages',
        sa.Column('id', Uuid, nullable=False),
        sa.Column('onboarding_state', sa.String(16), nullable=False),
        sa.Column('operational_state', sa.String(16), nullable=False),
        sa.Column('usage_state', sa.String(16), nullable=False),
        sa.Column('vnfd_id', sa.String(255), nullable=True),
        sa.Column('vnf_provider', sa.String(255), nullable=True),
        sa.Column('vnf_product_name', sa.String(255), nullable=True),
        sa.Column('vnf_software_version', sa.String(255), nullable=True),
        sa.Column('vnfd_version', sa.String(255), nullable=True),
        sa.Column('checksum', Json, nullable=True),
        sa.Column('software_images', Json, nullable=True),
        sa.Column('additional_artifacts', Json, nullable=True),
        sa.Column('user_defined_data', Json, nullable=True),
        sa.Column('onboarding_failure_details', Json, nullable=True),
        sa.Column('package_size', sa.BigInteger, nullable=True),
        sa.Column('vnfd', Json, nullable=True),
        sa.Column('upload_source', Json, nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name='pk_vnf_packages'),
        sa.UniqueConstraint('vnfd_id', name='uq_vnf_packages_vnfd_id'),
    )
    op.create_table(
        'vnf_package_chunks',
        sa.Column('package_id', Uuid, nullable=False),
        sa.Column('seq', sa.Integer, nullable=False),
        sa.Column('data', Blob, nullable=False),
        sa.PrimaryKeyConstraint(
            'package_id', 'seq', name='pk_vnf_package_chunks'
        ),
        sa.ForeignKeyConstraint(
            ['package_id'],
            ['vnf_packages.id'],
            ondelete='CASCADE',
            name='fk_vnf_package_chunks_package_id_vnf_packages',
        ),
    )


def _create_instances() -> None:
    op.create_table(
        'vnf_instances',
        sa.Column('id', Uuid, nullable=False),
        sa.Column('vnf_instance_name', sa.String(255), nullable=True),
        sa.Column('vnf_instance_description', sa.Text, nullable=True),
        sa.Column('vnfd_id', sa.String(255), nullable=False),
        sa.Column('vnf_provider', sa.String(255), nullable=False),
        sa.Column('vnf_product_name', sa.String(255), nullable=False),
        sa.Column('vnf_software_version', sa.String(255), nullable=False),
        sa.Column('vnfd_version', sa.String(255), nullable=False),
        sa.Column('vnf_pkg_id', Uuid, nullable=True),
        sa.Column('instantiation_state', sa.String(32), nullable=False),
        sa.Column('vim_connection_info', Json, nullable=True),
        sa.Column('instantiated_vnf_info', Json, nullable=True),
        sa.Column('vnf_configurable_properties', Json, nullable=True),
        sa.Column('metadata', Json, nullable=True),
        sa.Column('extensions', Json, nullable=True),
        sa.Column('project_id', sa.String(64), nullable=True),
        sa.Column('api_version', sa.String(8), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name='pk_vnf_instances'),
        sa.ForeignKeyConstraint(
            ['vnf_pkg_id'],
            ['vnf_packages.id'],
            name='fk_vnf_instances_vnf_pkg_id_vnf_packages',
        ),
    )


def _create_op_occs() -> None:
    op.create_table(
        'vnf_lcm_op_occs',
        sa.Column('id', Uuid, nullable=False),
        sa.Column('vnf_instance_id', Uuid, nullable=False),
        sa.Column('operation', sa.String(32), nullable=False),
        sa.Column('operation_state', sa.String(16), nullable=False),
        sa.Column('state_entered_time', DateTime, nullable=False),
        sa.Column('start_time', DateTime, nullable=False),
        sa.Column('is_automatic_invocation', sa.Boolean, nullable=False),
        sa.Column('is_cancel_pending', sa.Boolean, nullable=False),
        sa.Column('cancel_mode', sa.String(16), nullable=True),
        sa.Column('operation_params', Json, nullable=True),
        sa.Column('error', Json, nullable=True),
        sa.Column('resource_changes', Json, nullable=True),
        sa.Column('changed_info', Json, nullable=True),
        sa.Column('changed_ext_connectivity', Json, nullable=True),
        sa.Column('grant_id', Uuid, nullable=True),
        sa.Column('work', Json, nullable=True),
        sa.Column('api_version', sa.String(8), nullable=False),
        sa.Column('project_id', sa.String(64), nullable=True),
        # Equal to vnf_instance_id while the op is not final: the unique
        # constraint lets one unfinished op exist per instance.
        sa.Column('active_instance_id', Uuid, nullable=True),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('lease_expires_at', DateTime, nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name='pk_vnf_lcm_op_occs'),
        sa.ForeignKeyConstraint(
            ['vnf_instance_id'],
            ['vnf_instances.id'],
            ondelete='CASCADE',
            name='fk_vnf_lcm_op_occs_vnf_instance_id_vnf_instances',
        ),
        sa.UniqueConstraint(
            'active_instance_id', name='uq_vnf_lcm_op_occs_active_instance_id'
        ),
    )
    for column in ('vnf_instance_id', 'operation_state', 'owner'):
        op.create_index(
            f'ix_vnf_lcm_op_occs_{column}', 'vnf_lcm_op_occs', [column]
        )


def _create_vims_and_subscriptions() -> None:
    op.create_table(
        'vims',
        sa.Column('id', Uuid, nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('type', sa.String(64), nullable=False),
        sa.Column('description', sa.Text, nullable=True),
        sa.Column('project_id', sa.String(64), nullable=True),
        sa.Column('is_default', sa.Boolean, nullable=False),
        sa.Column('status', sa.String(32), nullable=False),
        sa.Column('auth_url', sa.String(1024), nullable=True),
        sa.Column('vim_project', Json, nullable=True),
        sa.Column('auth_cred', sa.Text, nullable=True),
        sa.Column('extra', Json, nullable=True),
        # project_id or '': unique with name even when project_id is NULL.
        sa.Column('project_key', sa.String(64), nullable=False),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name='pk_vims'),
        sa.UniqueConstraint('project_key', 'name', name='uq_vims_project_key'),
    )
    op.create_table(
        'subscriptions',
        sa.Column('id', Uuid, nullable=False),
        sa.Column('callback_uri', sa.String(2048), nullable=False),
        sa.Column('filter', Json, nullable=True),
        sa.Column('verbosity', sa.String(16), nullable=True),
        sa.Column('authentication', sa.Text, nullable=True),
        sa.Column('api_version', sa.String(8), nullable=False),
        sa.Column('project_id', sa.String(64), nullable=True),
        *_timestamps(),
        sa.PrimaryKeyConstraint('id', name='pk_subscriptions'),
    )


def upgrade() -> None:
    _create_packages()
    _create_instances()
    _create_op_occs()
    _create_vims_and_subscriptions()
