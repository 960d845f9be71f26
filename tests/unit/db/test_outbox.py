"""The notification outbox on SQLite, PostgreSQL and MariaDB: rows commit
with the change they report or not at all, claims are exclusive, and each
subscription gets its rows in order."""

from __future__ import annotations

import datetime
import threading

import pytest

from vnfm.common import exceptions
from vnfm.db import api
from vnfm.db import outbox
from vnfm.db import registry
from vnfm.db import session

T0 = datetime.datetime(2030, 1, 1, 12, 0, 0)


def _seconds(n: float) -> datetime.timedelta:
    return datetime.timedelta(seconds=n)


def _subscription() -> dict:
    return registry.subscription_create(
        {'callback_uri': 'http://127.0.0.1/cb', 'api_version': '2'}
    )


def _instance() -> dict:
    return api.instance_create(
        {
            'vnfd_id': 'vnfd-1',
            'vnf_provider': 'p',
            'vnf_product_name': 'n',
            'vnf_software_version': '1.0',
            'vnfd_version': '1.0',
            'instantiation_state': 'NOT_INSTANTIATED',
            'api_version': '2',
        }
    )


def _op(instance_id: str, **kw) -> dict:
    return api.op_create(
        {
            'vnf_instance_id': instance_id,
            'operation': 'INSTANTIATE',
            'operation_state': 'STARTING',
            'api_version': '2',
            'is_automatic_invocation': False,
            'is_cancel_pending': False,
        },
        **kw,
    )


def _note(subscription: dict, label: str = 'x') -> dict:
    return {
        'id': api.new_id(),
        'subscription_id': subscription['id'],
        'notification_type': 'VnfLcmOperationOccurrenceNotification',
        'payload': {'label': label},
    }


def _labels(where: dict | None = None) -> list[str]:
    return [r['payload']['label'] for r in outbox.notification_list(where)]


def _add(*notes: dict) -> None:
    """Rows as a committed state change leaves them, due at T0."""
    _op(_instance()['id'], notifications=list(notes))
    with session.transaction() as conn:
        conn.execute(outbox.NOTIFICATIONS.update().values(next_attempt_at=T0))


def test_rows_commit_with_the_state_change(db_backend):
    sub = _subscription()
    inst = _instance()
    op = _op(inst['id'], notifications=[_note(sub, 'starting')])

    api.op_update(
        op['id'],
        {'operation_state': 'PROCESSING'},
        expected={'operation_state': 'STARTING'},
        notifications=[_note(sub, 'processing')],
    )

    assert _labels() == ['starting', 'processing']
    row = outbox.notification_list()[0]
    assert row['state'] == outbox.PENDING and row['attempts'] == 0


def test_lost_compare_and_set_writes_no_rows(db_backend):
    sub = _subscription()
    op = _op(_instance()['id'])

    with pytest.raises(exceptions.ConcurrentUpdate):
        api.op_update(
            op['id'],
            {'operation_state': 'COMPLETED'},
            expected={'operation_state': 'PROCESSING'},
            notifications=[_note(sub)],
        )

    assert outbox.notification_list() == []


def test_refused_op_and_delete_write_no_rows(db_backend):
    sub = _subscription()
    inst = _instance()
    _op(inst['id'])

    with pytest.raises(exceptions.OpInProgress):
        _op(inst['id'], notifications=[_note(sub, 'second op')])
    with pytest.raises(exceptions.OpInProgress):
        api.instance_delete(inst['id'], notifications=[_note(sub, 'gone')])

    assert outbox.notification_list() == []


def test_instance_create_and_delete_carry_rows(db_backend):
    sub = _subscription()
    inst = api.instance_create(
        {
            'vnfd_id': 'v',
            'vnf_provider': 'p',
            'vnf_product_name': 'n',
            'vnf_software_version': '1',
            'vnfd_version': '1',
            'instantiation_state': 'NOT_INSTANTIATED',
            'api_version': '2',
        },
        notifications=[_note(sub, 'created')],
    )

    api.instance_delete(inst['id'], notifications=[_note(sub, 'deleted')])

    assert _labels() == ['created', 'deleted']


def test_rows_of_a_deleted_subscription_are_skipped(db_backend):
    sub, gone = _subscription(), _subscription()
    registry.subscription_delete(gone['id'])

    op = _op(_instance()['id'], notifications=[_note(gone), _note(sub, 'ok')])

    assert api.op_get(op['id'])['operation_state'] == 'STARTING'
    assert _labels() == ['ok']


def test_subscription_delete_cascades(db_backend):
    sub = _subscription()
    _add(_note(sub))

    registry.subscription_delete(sub['id'])

    assert outbox.notification_list() == []


def test_each_subscription_gets_its_rows_in_order(db_backend):
    a, b = _subscription(), _subscription()
    _add(_note(a, 'a1'), _note(b, 'b1'), _note(a, 'a2'))

    first = outbox.claim_due('c1', T0, T0 + _seconds(60), limit=10)
    assert [r['payload']['label'] for r in first] == ['a1', 'b1']
    assert first[0]['callback_uri'] == 'http://127.0.0.1/cb'
    # a2 waits for a1, even though it is due and unclaimed.
    assert outbox.claim_due('c2', T0, T0 + _seconds(60), limit=10) == []

    assert outbox.finish(
        first[0]['seq'], 'c1', {'state': outbox.DELIVERED, 'finished_at': T0}
    )
    after = outbox.claim_due('c2', T0, T0 + _seconds(60), limit=10)
    assert [r['payload']['label'] for r in after] == ['a2']


def test_row_waiting_for_retry_holds_back_the_later_ones(db_backend):
    a = _subscription()
    _add(_note(a, 'a1'), _note(a, 'a2'))
    first = outbox.claim_due('c1', T0, T0 + _seconds(60), limit=10)
    outbox.finish(
        first[0]['seq'],
        'c1',
        {'attempts': 1, 'next_attempt_at': T0 + _seconds(8)},
    )

    assert (
        outbox.claim_due('c1', T0 + _seconds(1), T0 + _seconds(60), limit=10)
        == []
    )
    again = outbox.claim_due(
        'c1', T0 + _seconds(8), T0 + _seconds(60), limit=10
    )
    assert [r['payload']['label'] for r in again] == ['a1']
    assert again[0]['attempts'] == 1


def test_given_up_row_no_longer_holds_back(db_backend):
    a = _subscription()
    _add(_note(a, 'a1'), _note(a, 'a2'))
    first = outbox.claim_due('c1', T0, T0 + _seconds(60), limit=10)
    outbox.finish(
        first[0]['seq'], 'c1', {'state': outbox.FAILED, 'finished_at': T0}
    )

    again = outbox.claim_due('c1', T0, T0 + _seconds(60), limit=10)
    assert [r['payload']['label'] for r in again] == ['a2']


def test_expired_claim_is_taken_over_and_the_loser_records_nothing(db_backend):
    a = _subscription()
    _add(_note(a, 'a1'))
    outbox.claim_due('c1', T0, T0 + _seconds(5), limit=10)

    assert (
        outbox.claim_due('c2', T0 + _seconds(4), T0 + _seconds(60), limit=10)
        == []
    )
    taken = outbox.claim_due(
        'c2', T0 + _seconds(6), T0 + _seconds(60), limit=10
    )

    assert [r['owner'] for r in taken] == ['c2']
    assert not outbox.finish(
        taken[0]['seq'], 'c1', {'state': outbox.DELIVERED, 'finished_at': T0}
    )
    assert outbox.finish(
        taken[0]['seq'], 'c2', {'state': outbox.DELIVERED, 'finished_at': T0}
    )


def test_restart_releases_the_claims_of_the_earlier_process(db_backend):
    a, b = _subscription(), _subscription()
    _add(_note(a, 'a1'), _note(b, 'b1'))
    [earlier] = outbox.claim_due('c1/p1', T0, T0 + _seconds(120), limit=1)
    [other] = outbox.claim_due('c2/p1', T0, T0 + _seconds(120), limit=1)

    assert outbox.release_of_host('c1', 'c1/p2') == 1

    # Due again at once, not when the dead process's lease runs out.
    [again] = outbox.claim_due(
        'c1/p2', T0 + _seconds(1), T0 + _seconds(60), limit=10
    )
    assert again['seq'] == earlier['seq']
    assert outbox.release_of_host('c1', 'c1/p2') == 0  # not its own
    assert outbox.notification_list({'seq': other['seq']})[0]['owner'] == (
        'c2/p1'
    )


def test_concurrent_claimers_never_share_a_row(db_backend):
    subs = [_subscription() for _ in range(12)]
    _add(*[_note(s, str(i)) for i, s in enumerate(subs)])
    claimed: dict[str, list[int]] = {}
    start = threading.Barrier(4)

    def claim(owner: str) -> None:
        start.wait()
        claimed[owner] = [
            r['seq']
            for r in outbox.claim_due(owner, T0, T0 + _seconds(60), limit=12)
        ]

    threads = [
        threading.Thread(target=claim, args=(f'c{i}',)) for i in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    every = [seq for seqs in claimed.values() for seq in seqs]
    assert len(every) == len(set(every)) == 12


def test_purge_removes_only_finished_rows_past_their_time(db_backend):
    a, b, c = _subscription(), _subscription(), _subscription()
    _add(_note(a, 'old'), _note(b, 'recent'), _note(c, 'pending'))
    rows = outbox.claim_due('c1', T0, T0 + _seconds(60), limit=10)
    outbox.finish(
        rows[0]['seq'], 'c1', {'state': outbox.DELIVERED, 'finished_at': T0}
    )
    outbox.finish(
        rows[1]['seq'],
        'c1',
        {'state': outbox.FAILED, 'finished_at': T0 + _seconds(100)},
    )

    assert outbox.purge(T0 + _seconds(50)) == 1

    assert _labels() == ['recent', 'pending']
