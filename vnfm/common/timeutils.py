"""Time in one place, so tests can fake it."""

import datetime


def utcnow() -> datetime.datetime:
    """Now in UTC, naive (as stored in the database)."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


def isotime(value: datetime.datetime | None) -> str | None:
    """A stored naive-UTC time as an ISO 8601 string with a Z suffix."""
    if value is None:
        return None
    return value.strftime('%Y-%m-%dT%H:%M:%S.%fZ')
