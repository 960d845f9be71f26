"""Sample hook script: records each call, and can fail or sleep on request.

Protocol (vnfm MgmtDriver scripts): a JSON document on stdin with ``hook``, ``operation``,
``vnf_instance``, ``vnf_lcm_op_occ``, ``request``, ``package_dir`` and ``vim_connection_info``;
a JSON object on stdout; stderr is the log; a non-zero exit fails the hook.

- Appends ``{"hook", "vnf_instance_id", "operation", "request"}`` as one JSON line to the file
  named by the environment variable VNFM_HOOK_RECORD, when it is set.
- ``additionalParams.hook_sleep`` (or ``metadata.hook_sleep`` for Modify VNF Information):
  ``{"<hook>": seconds}`` sleeps that long after recording.
- ``additionalParams.fail_hook`` (or ``metadata.fail_hook``): equal to the hook name makes the
  hook fail with exit status 1.
"""

import json
import os
import sys
import time


def _params(request: dict) -> dict:
    """Test controls from additionalParams, or from metadata for modify requests."""
    params = request.get("additionalParams")
    if not isinstance(params, dict):
        params = request.get("metadata")
    return params if isinstance(params, dict) else {}


def main() -> int:
    """Run one hook call."""
    doc = json.load(sys.stdin)
    hook = doc.get("hook")
    request = doc.get("request") or {}
    record = os.environ.get("VNFM_HOOK_RECORD")
    if record:
        line = json.dumps({"hook": hook,
                           "vnf_instance_id": (doc.get("vnf_instance") or {}).get("id"),
                           "operation": doc.get("operation"), "request": request})
        with open(record, "a", encoding="utf-8") as f:
            f.write(line + "\n")
    params = _params(request)
    sleep = params.get("hook_sleep")
    if isinstance(sleep, dict) and isinstance(sleep.get(hook), (int, float)):
        print(f"record_hook: {hook}: sleeping {sleep[hook]}s", file=sys.stderr)
        sys.stderr.flush()
        time.sleep(sleep[hook])
    if params.get("fail_hook") == hook:
        print(f"record_hook: {hook} failed on purpose (fail_hook)", file=sys.stderr)
        return 1
    print(json.dumps({}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
