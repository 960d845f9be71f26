"""SQLAlchemy models of vnfm. Columns are named in the SOL vocabulary.

Nested SOL structures (instantiatedVnfInfo, vimConnectionInfo, ...) are JSON
columns: they are read and written whole, never queried by SQL.
"""

from __future__ import annotations

import datetime

import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.dialects import mysql

# Microsecond precision everywhere (MariaDB defaults to whole seconds).
DateTime = sa.DateTime().with_variant(
    mysql.DATETIME(fsp=6), 'mysql', 'mariadb'
)
Blob = sa.LargeBinary().with_variant(mysql.LONGBLOB(), 'mysql', 'mariadb')
Json = sa.JSON
Uuid = sa.String(36)


class Base(orm.DeclarativeBase):
    """Base of every model, with constraint names alembic can compare."""

    metadata = sa.MetaData(
        naming_convention={
            'ix': 'ix_%(column_0_label)s',
            'uq': 'uq_%(table_name)s_%(column_0_name)s',
            'ck': 'ck_%(table_name)s_%(constraint_name)s',
            'fk': (
                'fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s'
            ),
            'pk': 'pk_%(table_name)s',
        }
    )


class TimestampMixin:
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        DateTime, nullable=False
    )
    updated_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        DateTime
    )


class VnfPackage(TimestampMixin, Base):
    """A VNF package (SOL005 VnfPkgInfo)."""

    __tablename__ = 'vnf_packages'

    id: orm.Mapped[str] = orm.mapped_column(Uuid, primary_key=True)
    onboarding_state: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    operational_state: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    usage_state: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    # Unique: a vnfdId is onboarded by one package only.
    vnfd_id: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255), unique=True
    )
    vnf_provider: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    vnf_product_name: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    vnf_software_version: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    vnfd_version: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    checksum: orm.Mapped[dict | None] = orm.mapped_column(Json)
    software_images: orm.Mapped[list | None] = orm.mapped_column(Json)
    additional_artifacts: orm.Mapped[list | None] = orm.mapped_column(Json)
    user_defined_data: orm.Mapped[dict | None] = orm.mapped_column(Json)
    onboarding_failure_details: orm.Mapped[dict | None] = orm.mapped_column(
        Json
    )
    package_size: orm.Mapped[int | None] = orm.mapped_column(sa.BigInteger)
    # The parsed VNFD model (vnfm.csar.Vnfd.to_dict()).
    vnfd: orm.Mapped[dict | None] = orm.mapped_column(Json)
    # Where an upload_from_uri request came from (credentials removed).
    upload_source: orm.Mapped[dict | None] = orm.mapped_column(Json)
    # The project (tenant) that owns the package.
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))


class VnfPackageChunk(Base):
    """The package zip, in chunks, so every conductor reads the same bytes."""

    __tablename__ = 'vnf_package_chunks'

    package_id: orm.Mapped[str] = orm.mapped_column(
        Uuid,
        sa.ForeignKey('vnf_packages.id', ondelete='CASCADE'),
        primary_key=True,
    )
    seq: orm.Mapped[int] = orm.mapped_column(sa.Integer, primary_key=True)
    data: orm.Mapped[bytes] = orm.mapped_column(Blob, nullable=False)


class VnfInstance(TimestampMixin, Base):
    """A VNF instance (SOL003 VnfInstance)."""

    __tablename__ = 'vnf_instances'

    id: orm.Mapped[str] = orm.mapped_column(Uuid, primary_key=True)
    vnf_instance_name: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255)
    )
    vnf_instance_description: orm.Mapped[str | None] = orm.mapped_column(
        sa.Text
    )
    vnfd_id: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    vnf_provider: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    vnf_product_name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    vnf_software_version: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    vnfd_version: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    vnf_pkg_id: orm.Mapped[str | None] = orm.mapped_column(
        Uuid, sa.ForeignKey('vnf_packages.id')
    )
    instantiation_state: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    # Map of vimConnectionInfo (v2 shape); secrets inside are encrypted.
    vim_connection_info: orm.Mapped[dict | None] = orm.mapped_column(Json)
    instantiated_vnf_info: orm.Mapped[dict | None] = orm.mapped_column(Json)
    vnf_configurable_properties: orm.Mapped[dict | None] = orm.mapped_column(
        Json
    )
    metadata_: orm.Mapped[dict | None] = orm.mapped_column('metadata', Json)
    extensions: orm.Mapped[dict | None] = orm.mapped_column(Json)
    # The project (tenant) that owns the instance.
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    api_version: orm.Mapped[str] = orm.mapped_column(sa.String(8), default='2')


class VnfLcmOpOcc(TimestampMixin, Base):
    """An LCM operation occurrence (SOL003 VnfLcmOpOcc) and its lease."""

    __tablename__ = 'vnf_lcm_op_occs'

    id: orm.Mapped[str] = orm.mapped_column(Uuid, primary_key=True)
    vnf_instance_id: orm.Mapped[str] = orm.mapped_column(
        Uuid, sa.ForeignKey('vnf_instances.id', ondelete='CASCADE'), index=True
    )
    operation: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    operation_state: orm.Mapped[str] = orm.mapped_column(
        sa.String(16), index=True
    )
    state_entered_time: orm.Mapped[datetime.datetime] = orm.mapped_column(
        DateTime
    )
    start_time: orm.Mapped[datetime.datetime] = orm.mapped_column(DateTime)
    is_automatic_invocation: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False
    )
    is_cancel_pending: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False
    )
    cancel_mode: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    operation_params: orm.Mapped[dict | None] = orm.mapped_column(Json)
    error: orm.Mapped[dict | None] = orm.mapped_column(Json)
    resource_changes: orm.Mapped[dict | None] = orm.mapped_column(Json)
    changed_info: orm.Mapped[dict | None] = orm.mapped_column(Json)
    changed_ext_connectivity: orm.Mapped[list | None] = orm.mapped_column(Json)
    grant_id: orm.Mapped[str | None] = orm.mapped_column(Uuid)
    # What the LCM driver recorded while running, for retry and rollback.
    work: orm.Mapped[dict | None] = orm.mapped_column(Json)
    api_version: orm.Mapped[str] = orm.mapped_column(sa.String(8), default='2')
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    # Equal to vnf_instance_id while the op is not final, NULL once it is:
    # the unique constraint allows one non-final op per instance.
    active_instance_id: orm.Mapped[str | None] = orm.mapped_column(
        Uuid, unique=True
    )
    # The conductor working on the op and until when its lease runs.
    owner: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(255), index=True
    )
    lease_expires_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        DateTime
    )


class Vim(TimestampMixin, Base):
    """A registered VIM (Tacker /v1.0/vims)."""

    __tablename__ = 'vims'

    id: orm.Mapped[str] = orm.mapped_column(Uuid, primary_key=True)
    name: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    type: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    description: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    is_default: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, default=False)
    status: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    auth_url: orm.Mapped[str | None] = orm.mapped_column(sa.String(1024))
    vim_project: orm.Mapped[dict | None] = orm.mapped_column(Json)
    # Credentials, encrypted as a whole.
    auth_cred: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    extra: orm.Mapped[dict | None] = orm.mapped_column(Json)
    # project_id or '': NULLs never collide in a unique constraint, so names
    # of VIMs without a project (noauth) would not be unique on project_id.
    project_key: orm.Mapped[str] = orm.mapped_column(sa.String(64))

    __table_args__ = (sa.UniqueConstraint('project_key', 'name'),)


class Subscription(TimestampMixin, Base):
    """A notification subscription: SOL003 LccnSubscription (interface
    ``vnflcm``) or SOL005 PkgmSubscription (``vnfpkgm``)."""

    __tablename__ = 'subscriptions'

    id: orm.Mapped[str] = orm.mapped_column(Uuid, primary_key=True)
    callback_uri: orm.Mapped[str] = orm.mapped_column(sa.String(2048))
    filter: orm.Mapped[dict | None] = orm.mapped_column(Json)
    verbosity: orm.Mapped[str | None] = orm.mapped_column(sa.String(16))
    # Authentication for the callback, encrypted as a whole.
    authentication: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    api_version: orm.Mapped[str] = orm.mapped_column(sa.String(8), default='2')
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    # The API the subscription was made through and whose notifications
    # it gets: 'vnflcm' (LCM) or 'vnfpkgm' (VNF packages).
    interface: orm.Mapped[str] = orm.mapped_column(
        sa.String(16), default='vnflcm', server_default='vnflcm'
    )


class Alarm(TimestampMixin, Base):
    """An alarm of a VNF instance (SOL003 v3.3.1 7.5.2.4 Alarm), raised
    from an Alertmanager alert."""

    __tablename__ = 'alarms'

    id: orm.Mapped[str] = orm.mapped_column(Uuid, primary_key=True)
    # managedObjectId.
    vnf_instance_id: orm.Mapped[str] = orm.mapped_column(
        Uuid, sa.ForeignKey('vnf_instances.id', ondelete='CASCADE'), index=True
    )
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    vnfc_instance_ids: orm.Mapped[list | None] = orm.mapped_column(Json)
    root_cause_faulty_resource: orm.Mapped[dict | None] = orm.mapped_column(
        Json
    )
    alarm_raised_time: orm.Mapped[datetime.datetime] = orm.mapped_column(
        DateTime
    )
    alarm_changed_time: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(DateTime)
    )
    alarm_cleared_time: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(DateTime)
    )
    alarm_acknowledged_time: orm.Mapped[datetime.datetime | None] = (
        orm.mapped_column(DateTime)
    )
    ack_state: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    perceived_severity: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    event_time: orm.Mapped[datetime.datetime] = orm.mapped_column(DateTime)
    event_type: orm.Mapped[str] = orm.mapped_column(sa.String(32))
    fault_type: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    probable_cause: orm.Mapped[str] = orm.mapped_column(sa.String(255))
    is_root_cause: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, default=False
    )
    fault_details: orm.Mapped[list | None] = orm.mapped_column(Json)
    # The alert it came from: Alertmanager's fingerprint (of the label set)
    # and startsAt; unique, so a retried post raises no second alarm.
    fingerprint: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    starts_at: orm.Mapped[datetime.datetime] = orm.mapped_column(DateTime)
    # What auto-heal decided about the alarm (None: not judged yet;
    # WAITING: judged again after the op in progress or the cool-down),
    # and the decision's details (why, which op, when).
    heal_state: orm.Mapped[str | None] = orm.mapped_column(
        sa.String(16), index=True
    )
    heal_decision: orm.Mapped[dict | None] = orm.mapped_column(Json)

    __table_args__ = (sa.UniqueConstraint('fingerprint', 'starts_at'),)


class PmJob(TimestampMixin, Base):
    """A PM job (SOL003 v3.3.1 6.5.2.7 PmJob). Its callbackUri and
    authentication are those of its subscription row (interface
    ``vnfpm``), through which the outbox delivers its notifications."""

    __tablename__ = 'pm_jobs'

    id: orm.Mapped[str] = orm.mapped_column(Uuid, primary_key=True)
    subscription_id: orm.Mapped[str] = orm.mapped_column(
        Uuid, sa.ForeignKey('subscriptions.id', ondelete='CASCADE'), index=True
    )
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    object_type: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    object_instance_ids: orm.Mapped[list] = orm.mapped_column(Json)
    sub_object_instance_ids: orm.Mapped[list | None] = orm.mapped_column(Json)
    criteria: orm.Mapped[dict] = orm.mapped_column(Json)
    # The measurement types the job collects (its criteria resolved).
    measurements: orm.Mapped[list] = orm.mapped_column(Json)


class Threshold(TimestampMixin, Base):
    """A PM threshold (SOL003 v3.3.1 6.5.2.9 Threshold); its callbackUri
    and authentication are those of its subscription row (``vnfpm``)."""

    __tablename__ = 'thresholds'

    id: orm.Mapped[str] = orm.mapped_column(Uuid, primary_key=True)
    subscription_id: orm.Mapped[str] = orm.mapped_column(
        Uuid, sa.ForeignKey('subscriptions.id', ondelete='CASCADE'), index=True
    )
    project_id: orm.Mapped[str | None] = orm.mapped_column(sa.String(64))
    object_type: orm.Mapped[str] = orm.mapped_column(sa.String(16))
    object_instance_id: orm.Mapped[str] = orm.mapped_column(Uuid)
    sub_object_instance_ids: orm.Mapped[list | None] = orm.mapped_column(Json)
    criteria: orm.Mapped[dict] = orm.mapped_column(Json)
    # The request's metadata (vnfm: the aspect auto-scale scales).
    threshold_metadata: orm.Mapped[dict | None] = orm.mapped_column(Json)
    # The side of the threshold the value was last seen on (UP, DOWN;
    # None: not yet) and the last crossing with what auto-scale decided.
    crossing_state: orm.Mapped[str | None] = orm.mapped_column(sa.String(8))
    last_crossing: orm.Mapped[dict | None] = orm.mapped_column(Json)


class PmReport(Base):
    """A performance report of a PM job (SOL003 v3.3.1 6.5.2.10), made
    of the values Prometheus computed for its rules."""

    __tablename__ = 'pm_reports'

    id: orm.Mapped[str] = orm.mapped_column(Uuid, primary_key=True)
    pm_job_id: orm.Mapped[str] = orm.mapped_column(
        Uuid, sa.ForeignKey('pm_jobs.id', ondelete='CASCADE'), index=True
    )
    entries: orm.Mapped[list] = orm.mapped_column(Json)
    # The alert group it came from: a retried post adds no second report.
    fingerprint: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        DateTime, nullable=False
    )
    expiry_time: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        DateTime
    )

    __table_args__ = (sa.UniqueConstraint('pm_job_id', 'fingerprint'),)


class Notification(Base):
    """A notification to deliver to one subscription (the outbox).

    Written in the transaction of the change it reports; sent by the
    conductors, per subscription in ``seq`` order.
    """

    __tablename__ = 'notifications'

    # Autoincrement: the order the notifications were committed in (the
    # clocks of the hosts that wrote them may disagree).
    seq: orm.Mapped[int] = orm.mapped_column(
        sa.BigInteger().with_variant(sa.Integer(), 'sqlite'),
        primary_key=True,
        autoincrement=True,
    )
    # The SOL "id": equal for the copies sent to several subscriptions.
    id: orm.Mapped[str] = orm.mapped_column(Uuid)
    subscription_id: orm.Mapped[str] = orm.mapped_column(
        Uuid, sa.ForeignKey('subscriptions.id', ondelete='CASCADE'), index=True
    )
    notification_type: orm.Mapped[str] = orm.mapped_column(sa.String(64))
    payload: orm.Mapped[dict] = orm.mapped_column(Json)
    # PENDING, then DELIVERED or FAILED (given up).
    state: orm.Mapped[str] = orm.mapped_column(sa.String(16), index=True)
    attempts: orm.Mapped[int] = orm.mapped_column(sa.Integer, default=0)
    next_attempt_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        DateTime
    )
    last_error: orm.Mapped[str | None] = orm.mapped_column(sa.Text)
    # The conductor sending it now and until when its claim runs.
    owner: orm.Mapped[str | None] = orm.mapped_column(sa.String(255))
    lease_expires_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        DateTime
    )
    created_at: orm.Mapped[datetime.datetime] = orm.mapped_column(
        DateTime, nullable=False
    )
    # When it was delivered or given up (the purge counts from here).
    finished_at: orm.Mapped[datetime.datetime | None] = orm.mapped_column(
        DateTime
    )


def table(model: type[Base]) -> sa.Table:
    """The Table of ``model`` (its ``__table__`` is typed as a FromClause)."""
    return Base.metadata.tables[model.__tablename__]
