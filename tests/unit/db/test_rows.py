"""vnfm.db.rows: the typed rows name every column of their table, so the
type checker knows each key a row has."""

from __future__ import annotations

import typing

import pytest

from vnfm.db import models
from vnfm.db import rows

ROW_TYPES = pytest.mark.parametrize(
    ('row_type', 'model'),
    [
        (rows.PackageRow, models.VnfPackage),
        (rows.InstanceRow, models.VnfInstance),
        (rows.OpRow, models.VnfLcmOpOcc),
    ],
)


@ROW_TYPES
def test_a_row_type_has_one_key_per_column(row_type, model):
    columns = {c.name for c in models.table(model).columns}
    assert set(typing.get_type_hints(row_type)) == columns
    assert row_type.__required_keys__ == columns


@ROW_TYPES
def test_a_nullable_column_may_be_none_and_only_it(row_type, model):
    hints = typing.get_type_hints(row_type)
    for column in models.table(model).columns:
        allows_none = type(None) in typing.get_args(hints[column.name])
        assert allows_none == bool(column.nullable), column.name
