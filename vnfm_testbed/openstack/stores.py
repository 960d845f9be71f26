"""The files of a local cloud's state directory that stand in for Neutron's
database: what ``up`` made (catalogue.json) and what stacks made (one JSON
file per network, subnet, ...).

Standard library only: the Heat plugin loads it by file (like vmhost), the
``vnfm-localcloud`` command imports it.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any


def records(state_dir: Path, kind: str) -> list[dict[str, Any]]:
    """Every stored item of ``kind`` (``ports``, ``networks``, ...)."""
    found = []
    for path in sorted((state_dir / kind).glob('*.json')):
        with contextlib.suppress(FileNotFoundError):  # deleted meanwhile
            found.append(json.loads(path.read_text()))
    return found


def networks(state_dir: Path) -> list[dict[str, Any]]:
    """The networks of ``up`` and of stacks, each with its subnets."""
    made = json.loads((state_dir / 'catalogue.json').read_text())['networks']
    nets = [{'name': n, **v} for n, v in made.items()]
    nets += [{**n, 'subnets': []} for n in records(state_dir, 'networks')]
    subnets = records(state_dir, 'subnets')
    for net in nets:
        net['subnets'] += [s for s in subnets if s['network_id'] == net['id']]
    return nets
