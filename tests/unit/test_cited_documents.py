"""Every document a file of the repository cites exists in it."""

from __future__ import annotations

import re
import subprocess  # nosec B404
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_CITED = re.compile(r'[\w./-]*[\w-]+\.(?:md|rst)\b')


def _files() -> list[Path]:
    out = subprocess.run(  # nosec B603 B607
        ['git', 'ls-files', '-co', '--exclude-standard'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    return [
        ROOT / line for line in out.splitlines() if (ROOT / line).is_file()
    ]


def test_cited_documents_exist() -> None:
    files = _files()
    names = {f.name for f in files}
    missing = []
    for path in files:
        try:
            text = path.read_text()
        except (UnicodeDecodeError, OSError):
            continue
        for cited in set(_CITED.findall(text)):
            if not (
                (ROOT / cited).is_file()
                or (path.parent / cited).is_file()
                or ('/' not in cited and cited in names)
            ):
                missing.append(f'{path.relative_to(ROOT)}: {cited}')
    assert missing == []
