"""kubernetes_cluster.hostkeys: pins kept as instance metadata."""

from __future__ import annotations

from vnfm.drivers.mgmt.kubernetes_cluster import hostkeys
from vnfm.lcm import merge

KEY_A = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA'
KEY_B = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB'


def instance(pins: dict | None = None) -> dict:
    metadata = {'owner': 'ops'}
    if pins is not None:
        metadata[hostkeys.METADATA_KEY] = pins
    return {'id': 'i1', 'metadata': metadata}


def test_first_contact_then_pinned_in_metadata() -> None:
    work: dict = {}
    pins = hostkeys.Pins.of(instance(), work)
    assert pins.known_keys('server-1') == ()
    pins.learn('server-1', [KEY_A], work)
    assert pins.known_keys('server-1') == (KEY_A,)
    changes = pins.changes()
    stored = merge.merge_patch(instance()['metadata'], changes['metadata'])
    assert stored == {
        'owner': 'ops',
        hostkeys.METADATA_KEY: {'server-1': [KEY_A]},
    }


def test_stored_pins_hold_and_nothing_changes() -> None:
    pins = hostkeys.Pins.of(instance({'server-1': [KEY_A]}), {})
    assert pins.known_keys('server-1') == (KEY_A,)
    assert pins.changes() == {}


def test_a_retry_holds_the_vm_to_the_key_seen_first() -> None:
    work: dict = {}
    hostkeys.Pins.of(instance(), work).learn('server-2', [KEY_B], work)
    # The hook failed; its work was saved, the instance was not changed.
    again = hostkeys.Pins.of(instance(), work)
    assert again.known_keys('server-2') == (KEY_B,)
    assert again.changes()['metadata'][hostkeys.METADATA_KEY] == {
        'server-2': [KEY_B]
    }


def test_a_replaced_vm_is_forgotten_and_its_successor_pinned() -> None:
    current = instance({'server-1': [KEY_A], 'server-9': [KEY_A]})
    work: dict = {}
    pins = hostkeys.Pins.of(current, work)
    pins.forget('server-1')
    assert pins.known_keys('server-1') == ()
    pins.learn('server-3', [KEY_B], work)
    stored = merge.merge_patch(current['metadata'], pins.changes()['metadata'])
    assert stored[hostkeys.METADATA_KEY] == {
        'server-9': [KEY_A],
        'server-3': [KEY_B],
    }
