"""Keystone's and Heat's databases, copied from migrated templates.

Migrating an empty database (``keystone-manage db_sync``, ``heat-manage
db_sync``) takes seconds of imports and hundreds of statements; PostgreSQL
copies a database in a fraction of a second (``CREATE DATABASE ...
TEMPLATE``). The first cloud of an OpenStack build migrates a template per
service, named by the build's stamp; every cloud after copies it. Templates
stay (a few MB each) until the build changes; a new build makes new ones.
"""

from __future__ import annotations

import fcntl
import hashlib
import time
from collections.abc import Callable
from pathlib import Path

import psycopg2

from vnfm_testbed import procs

PREFIX = 'vnfm_lctpl_'


def template_name(service: str, venv: Path) -> str:
    """The template of ``service`` for the OpenStack build of ``venv``."""
    stamp = venv.parent / '.stamp'
    build = stamp.read_text() if stamp.exists() else str(venv)
    digest = hashlib.sha256(f'{service}\n{build}'.encode()).hexdigest()
    return f'{PREFIX}{service}_{digest[:12]}'


def ensure_template(
    service: str, venv: Path, migrate: Callable[[str], None]
) -> str:
    """The template's name, migrated by ``migrate(url)`` if it is new."""
    name = template_name(service, venv)
    if procs.database_exists(name):
        return name
    lock = venv.parent / f'.{name}.lock'
    with open(lock, 'w') as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another cloud may be migrating
        if not procs.database_exists(name):
            work = f'{name}_new'
            procs.drop_database(work)
            try:
                migrate(procs.create_database(work))
            except BaseException:
                procs.drop_database(work)
                raise
            # Only a completely migrated template gets the name.
            procs.rename_database(work, name)
    return name


def copy(name: str, template: str, timeout: float = 30.0) -> str:
    """Create database ``name`` as a copy of ``template``; its URL."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return procs.create_database(name, template=template)
        except psycopg2.errors.ObjectInUse:
            # Another copy of the same template is being made right now.
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
