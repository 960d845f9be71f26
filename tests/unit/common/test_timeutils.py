"""Times as stored (naive UTC) and as the API shows them (ISO 8601, Z)."""

from __future__ import annotations

import datetime

from vnfm.common import timeutils


def test_utcnow_is_naive_utc_now():
    before = datetime.datetime.now(datetime.timezone.utc)

    now = timeutils.utcnow()

    after = datetime.datetime.now(datetime.timezone.utc)
    assert now.tzinfo is None
    assert before <= now.replace(tzinfo=datetime.timezone.utc) <= after


def test_isotime_is_iso_8601_utc_with_microseconds():
    stored = datetime.datetime(2030, 1, 2, 3, 4, 5, 60)

    assert timeutils.isotime(stored) == '2030-01-02T03:04:05.000060Z'


def test_isotime_reads_back_as_the_same_instant():
    stored = timeutils.utcnow()

    shown = timeutils.isotime(stored)

    assert shown is not None
    parsed = datetime.datetime.fromisoformat(shown.replace('Z', '+00:00'))
    assert parsed == stored.replace(tzinfo=datetime.timezone.utc)


def test_isotime_of_no_time_is_none():
    assert timeutils.isotime(None) is None
