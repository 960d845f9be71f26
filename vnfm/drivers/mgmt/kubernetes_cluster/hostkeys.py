"""SSH host keys pinned per VM, kept with the VNF instance.

The keys live in the instance's ``metadata`` under ``METADATA_KEY``, a map
from the VM's ``computeResource.resourceId`` to its OpenSSH public-key
lines (not secrets: they identify the VMs). A hook never writes them: it
returns a JSON merge patch (``Pins.changes``) that lcm applies with the
hook's other changes. Keys learnt at first contact are also kept in the
hook's ``work`` (saved at once, kept on failure), so a retried hook holds a
VM to the key it saw the first time. A VM that a heal replaced or a scale
in removed is forgotten, so its successor is pinned at its own first
contact. An operator who rebuilt a VM outside vnfm removes its entry with
Modify VNF Information (``metadata``) to accept the new key.
"""

from __future__ import annotations

import dataclasses
from typing import Any

METADATA_KEY = 'vnfm_ssh_host_keys'
_WORK_KEY = 'learned_host_keys'


@dataclasses.dataclass
class Pins:
    """The pinned keys of an instance's VMs and what a hook changed."""

    current: dict[str, list[str]]
    learned: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    forgotten: set[str] = dataclasses.field(default_factory=set)

    @classmethod
    def of(cls, vnf_instance: dict[str, Any], work: dict[str, Any]) -> Pins:
        """The pins of ``vnf_instance`` (a SOL VnfInstance) with those a
        failed earlier run of the hook learnt (in its ``work``)."""
        stored = (vnf_instance.get('metadata') or {}).get(METADATA_KEY)
        current = {
            str(k): list(v)
            for k, v in (stored or {}).items()
            if isinstance(v, list)
        }
        learned = dict(work.get(_WORK_KEY) or {})
        return cls(current={**current, **learned}, learned=learned)

    def known_keys(self, resource_id: str) -> tuple[str, ...]:
        """The keys to hold the VM to; empty at its first contact."""
        if resource_id in self.forgotten:
            return ()
        return tuple(self.current.get(resource_id) or ())

    def learn(
        self, resource_id: str, keys: list[str], work: dict[str, Any]
    ) -> None:
        """Pin ``keys`` for a VM met for the first time; also recorded in
        ``work`` (the caller saves it before going on)."""
        self.forgotten.discard(resource_id)
        self.current[resource_id] = list(keys)
        self.learned[resource_id] = list(keys)
        work[_WORK_KEY] = dict(self.learned)

    def forget(self, resource_id: str) -> None:
        """Drop the pin of a VM that is replaced or removed."""
        self.forgotten.add(resource_id)
        self.current.pop(resource_id, None)
        self.learned.pop(resource_id, None)

    def changes(self) -> dict[str, Any]:
        """The merge patch of the instance that records this run's pins
        (``{}`` when nothing changed)."""
        patch: dict[str, Any] = dict.fromkeys(sorted(self.forgotten))
        patch.update(self.learned)
        if not patch:
            return {}
        return {'metadata': {METADATA_KEY: patch}}
