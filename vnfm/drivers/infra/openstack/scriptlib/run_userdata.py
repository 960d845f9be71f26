"""Runs one method of a package's user-data class for vnfm.

Started as ``python -I -- run_userdata.py`` in vnfm's sandbox: the document
on stdin names the file, the class, the method and its arguments; the
method's result (a dict with any of ``template``, ``nested_templates``,
``parameters``) goes to stdout as JSON. ``import vnfm_userdata`` works in
the class's file; ``import tacker...`` fails saying why. It runs under
``vnfm_sandbox`` (vnfm/drivers/sandboxlib), which loads the class's file and
the package modules it imports only when the allow-list names them.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
NO_TACKER = (
    "{script} imports {name}, but Tacker's modules are not available in "
    'vnfm. Name the class StandardUserData to let vnfm compute the Heat '
    "input itself (Tacker's conventions), or import vnfm_userdata, "
    "vnfm's helper module for user-data classes (the VNFD, the base HOT, "
    'the built-in nfv parameter), instead.'
)


class NoTacker(importlib.abc.MetaPathFinder):
    """Refuses ``tacker`` and its submodules, saying what to use instead."""

    def __init__(self, script: str) -> None:
        self.script = script

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        """Raise ImportError for Tacker's modules; None for the others."""
        if fullname == 'tacker' or fullname.startswith('tacker.'):
            raise ImportError(
                NO_TACKER.format(script=self.script, name=fullname),
                name=fullname,
            )
        return None


def load(script: str, relative: str) -> ModuleType:
    """Import the user-data file by path, Tacker's modules refused; the
    sandbox's guard (``vnfm_sandbox``) checks it and every package module
    it imports against the allow-list."""
    # The sandbox's first module, registered under this name.
    vnfm_sandbox = importlib.import_module('vnfm_sandbox')
    sys.meta_path.insert(0, NoTacker(relative))
    # After the standard library and site-packages: package files cannot
    # shadow them, but may import their (allowed) neighbours.
    sys.path.append(os.path.dirname(script))
    return vnfm_sandbox.load_file('vnfm_user_data', script)


def call(doc: dict[str, Any]) -> Any:
    """Run the document's method; its result."""
    relative = doc['user_data_path']
    module = load(doc['user_data'], relative)
    cls = getattr(module, doc['class'], None)
    if cls is None:
        raise SystemExit(f'{relative} has no class {doc["class"]}.')
    method = getattr(cls, doc['operation'], None)
    if method is None:
        raise SystemExit(
            f'Class {doc["class"]} of {relative} has no method '
            f'{doc["operation"]}.'
        )
    args = doc['args']
    return method(
        args['req'],
        args['inst'],
        args['grant_req'],
        args['grant'],
        args['csar_dir'],
    )


def main() -> int:
    """Read the document, run the method, write its result."""
    doc = json.load(sys.stdin)
    sys.path.append(HERE)
    # As the class's file will: by its top-level name, from HERE.
    vnfm_userdata = importlib.import_module('vnfm_userdata')
    vnfm_userdata._set(doc)
    try:
        result = call(doc)
    except ImportError as e:
        if (e.name or '').split('.')[0] != 'tacker':
            raise
        print(e, file=sys.stderr)
        return 3
    except vnfm_userdata.UserDataError as e:
        print(f'vnfm_userdata: {e}', file=sys.stderr)
        return 4
    json.dump({} if result is None else result, sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main())
