"""The first code of every sandboxed run: holds the allow-list over what a
package's code imports from its package, then runs the program.

Started by ``vnfm.drivers.sandbox`` as ``python -I -- vnfm_sandbox.py
MANIFEST PROGRAM``. MANIFEST (JSON) names the extracted package's directory
and the SHA-256 digests allowed to run (``any``: every file may). PROGRAM is
either a file of the package (a hook script: run as ``__main__``) or vnfm's
own runner of one (user-data classes), which loads the package file with
:func:`load_file`. Every module that comes from the package directory,
however it is found, runs only from its Python source, and only when the
digest of that source is allowed; bytecode and extension modules of the
package never load. Standard library only.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import types
from collections.abc import Sequence

_MAIN_NAME = 'vnfm_sandbox'
#: Exit status when the program imports a package file it may not run.
NOT_ALLOWED = 5


class NotAllowed(ImportError):
    """A package file that the allow-list does not let run."""


class _Source(importlib.abc.Loader):
    """Runs the source whose digest was checked, never a cached form."""

    def __init__(self, path: str, source: bytes) -> None:
        self.path, self.source = path, source

    def create_module(
        self, spec: importlib.machinery.ModuleSpec
    ) -> types.ModuleType | None:
        """The default module."""
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        """Run the checked source in ``module``."""
        code = compile(self.source, self.path, 'exec', dont_inherit=True)
        exec(code, module.__dict__)  # noqa: S102 # nosec B102 - allowed code


class PackageGuard(importlib.abc.MetaPathFinder):
    """Finds modules as the path finder does; those in the package directory
    load through :meth:`checked` or not at all."""

    def __init__(self, package_dir: str, allowed: Sequence[str], any_: bool):
        self.root = os.path.realpath(package_dir)
        self.allowed = {d.strip().lower() for d in allowed}
        self.any = any_

    def inside(self, path: str | None) -> bool:
        """Whether ``path`` is in the package directory."""
        if not path:
            return False
        real = os.path.realpath(path)
        return real == self.root or real.startswith(self.root + os.sep)

    def checked(self, path: str, module: str) -> _Source:
        """A loader of the package module ``path``; NotAllowed unless it is
        Python source whose SHA-256 is allowed."""
        if not path.endswith('.py'):
            rel = os.path.relpath(os.path.realpath(path), self.root)
            raise NotAllowed(
                f'{rel} (module {module}) is not allowed to run: only Python '
                'source files of a package are imported, each allowed by its '
                'SHA-256 in [mgmt_driver] allowed_script_sha256.',
                name=module,
                path=path,
            )
        return self.program(path, module)

    def program(self, path: str, module: str = '__main__') -> _Source:
        """A loader of the package file ``path`` (any name); NotAllowed
        unless its SHA-256 is allowed."""
        rel = os.path.relpath(os.path.realpath(path), self.root)
        what = f'{rel} (module {module}) is not allowed to run'
        with open(path, 'rb') as f:
            source = f.read()
        digest = hashlib.sha256(source).hexdigest()
        if not self.any and digest not in self.allowed:
            raise NotAllowed(
                f'{what}: its SHA-256 {digest} is not in [mgmt_driver] '
                'allowed_script_sha256.',
                name=module,
                path=path,
            )
        return _Source(path, source)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        """The path finder's spec, with the checked loader for a module of
        the package (NotAllowed if it may not run)."""
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if (
            spec is None
            or not spec.has_location
            or not self.inside(spec.origin)
        ):
            return spec
        assert spec.origin is not None
        spec.loader = self.checked(spec.origin, fullname)
        spec.cached = None
        return spec


def _guard() -> PackageGuard:
    found = [f for f in sys.meta_path if isinstance(f, PackageGuard)]
    if not found:
        raise RuntimeError('vnfm_sandbox: no package guard is installed')
    return found[0]


def load_file(name: str, path: str) -> types.ModuleType:
    """Import the package file ``path`` as module ``name``, checked."""
    loader = _guard().checked(path, name)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


def install(manifest: dict) -> PackageGuard:
    """Put the guard of ``manifest`` in front of the path finder."""
    guard = PackageGuard(
        manifest['package_dir'], manifest['allowed'], manifest['any']
    )
    where = sys.meta_path.index(importlib.machinery.PathFinder)
    sys.meta_path.insert(where, guard)
    return guard


def main(argv: list[str]) -> None:
    """Install the guard, then run PROGRAM as ``__main__``."""
    with open(argv[1], encoding='utf-8') as f:
        guard = install(json.load(f))
    program = argv[2]
    # The runner finds this module (and its guard) by name.
    sys.modules[_MAIN_NAME] = sys.modules[__name__]
    sys.argv = [program]
    main_module = types.ModuleType('__main__')
    main_module.__file__ = program
    sys.modules['__main__'] = main_module
    try:
        if guard.inside(program):
            guard.program(program).exec_module(main_module)
        else:
            with open(program, 'rb') as f:
                _Source(program, f.read()).exec_module(main_module)
    except NotAllowed as e:
        print(f'vnfm sandbox: {e}', file=sys.stderr)
        sys.exit(NOT_ALLOWED)


if __name__ == '__main__':
    main(sys.argv)
