"""Removing known secret values from text before it is stored or logged.

Text a VNFM does not control (a hook's stderr, a remote system's error)
may quote the credentials it was given. ``secret_values`` collects the
values to hide from the documents those credentials came in (a
vimConnectionInfo, an LCM request), and ``scrub`` replaces each one in a
text by ``MASK``, also in the escaped forms a program prints (JSON/repr)
and line by line for multi-line values such as PEM keys.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from vnfm.common import crypto

MASK = crypto.MASK
# Keys whose values are secrets wherever they appear in a request or a VIM.
SECRET_KEYS = crypto.SECRET_KEYS
# Shorter values are replaced only as whole words: a three-letter password
# would otherwise mask every word that contains it.
_MIN_SUBSTRING = 4
# Lines of a multi-line secret (a PEM body) are masked one by one when at
# least this long, so a key printed in another line layout is still hidden.
_MIN_LINE = 16


def secret_values(*docs: Any) -> set[str]:
    """The secret strings in JSON documents.

    Secret are: every value under a key of ``SECRET_KEYS`` (nested values
    included) and every ``accessInfo`` value but the identifying ones
    (``crypto.PUBLIC_ACCESS_KEYS``). Masked values are left out.
    """
    found: set[str] = set()
    for doc in docs:
        _collect(doc, False, found)
    found.discard(MASK)
    found.discard('')
    return found


def _collect(value: Any, secret: bool, found: set[str]) -> None:
    """Add the strings of ``value`` to ``found`` (all when ``secret``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == crypto.SEALED:
                continue
            if key == 'accessInfo' and isinstance(item, dict):
                for name, sub in item.items():
                    if name != crypto.SEALED:
                        _collect(
                            sub,
                            secret or (name not in crypto.PUBLIC_ACCESS_KEYS),
                            found,
                        )
            else:
                _collect(item, secret or key in SECRET_KEYS, found)
    elif isinstance(value, list):
        for item in value:
            _collect(item, secret, found)
    elif secret and isinstance(value, str):
        found.add(value)


def _forms(secret: str) -> set[str]:
    """The ways ``secret`` shows up in printed text."""
    forms = {secret, json.dumps(secret)[1:-1], repr(secret)[1:-1]}
    lines = [line.strip() for line in secret.splitlines()]
    forms.update(line for line in lines if len(line) >= _MIN_LINE)
    return {f for f in forms if f}


def scrub(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every occurrence of the ``secrets`` replaced by MASK."""
    forms: set[str] = set()
    for secret in secrets:
        forms |= _forms(secret)
    # Longest first, so a secret containing another is masked whole.
    for form in sorted(forms, key=len, reverse=True):
        if len(form) >= _MIN_SUBSTRING:
            text = text.replace(form, MASK)
        else:
            text = re.sub(rf'(?<!\w){re.escape(form)}(?!\w)', MASK, text)
    return text


def scrub_cut(text: str, secrets: Iterable[str]) -> str:
    """``scrub`` of a text whose start was cut off: the tail of a secret
    left at the very start is masked too."""
    secrets = list(secrets)
    text = scrub(text, secrets)
    if not text:
        return text
    longest = 0
    for form in {f for s in secrets for f in _forms(s)}:
        # The longest suffix of ``form`` that ``text`` starts with.
        for i in range(1, len(form) - _MIN_SUBSTRING + 1):
            if form[i] == text[0] and text.startswith(form[i:]):
                longest = max(longest, len(form) - i)
                break
    return MASK + text[longest:] if longest else text
