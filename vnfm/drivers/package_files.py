"""Read-only access to the files of a VNF package, for infra and mgmt drivers.

The files come from ``vnfm.csar.zipreader.read_zip`` (names already checked
against path traversal, sizes against the limits), so extracting them is safe.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping


class PackageFiles:
    """The files of one package, by their path in the package."""

    def __init__(self, package_id: str, files: Mapping[str, bytes]) -> None:
        self.package_id = package_id
        self._files = dict(files)

    def names(self) -> Iterable[str]:
        """Paths of every file in the package."""
        return sorted(self._files)

    def read(self, path: str) -> bytes:
        """The content of one file; KeyError if it is not in the package."""
        return self._files[path]

    def __contains__(self, path: object) -> bool:
        return path in self._files

    def extract_to(self, directory: str) -> None:
        """Write every file below ``directory`` (which must exist)."""
        root = os.path.realpath(directory)
        for name, data in self._files.items():
            target = os.path.realpath(os.path.join(root, name))
            # read_zip refused unsafe names; this is a second line of defence.
            if not target.startswith(root + os.sep):
                raise ValueError(
                    f'{name!r} would be written outside {directory}'
                )
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, 'wb') as f:
                f.write(data)
