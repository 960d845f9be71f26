"""alembic environment of vnfm: the engine comes from vnfm.db.session."""

from alembic import context

from vnfm.db import models
from vnfm.db import session


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=models.Base.metadata,
        # SQLite cannot ALTER most things: copy-and-move tables instead.
        render_as_batch=connection.dialect.name == 'sqlite',
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Run the migrations on the engine given by vnfm.db.migration."""
    config = context.config
    engine = config.attributes.get('engine')
    own = engine is None
    if engine is None:
        engine = session.create_engine(config.attributes.get('url'))
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        if own:  # leave no pooled connection behind (tests drop the DB)
            engine.dispose()


run_migrations_online()
