"""Granting (SOL003 clause 9): vnfm is its own NFVO for resources.

vnfm does not call an external NFVO: every LCM operation that needs a grant
is granted internally, and the op occurrence records a grantId so clients
reading ``VnfLcmOpOcc.grantId`` see one. Quotas are the VIM's business.
"""

from __future__ import annotations

from vnfm.db import api as db
from vnfm.lcm.run import OpRun


def grant(run: OpRun) -> str:
    """The op's grant id, recorded on first use."""
    if run.op['grant_id']:
        return run.op['grant_id']
    run.work['grantId'] = db.new_id()
    # save_work writes the grant id with the work, under the lease check.
    op = run.op.copy()
    op['grant_id'] = run.work['grantId']
    run.op = op
    run.save_work(extra={'grant_id': run.work['grantId']})
    return run.work['grantId']
