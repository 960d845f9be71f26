"""What vnfm sends to Heat for one stack create or update."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass
class StackInput:
    """Heat's template, files and parameters of a stack."""

    template: str  # the top HOT, YAML text
    files: dict[str, str]  # nested templates by the name the top one uses
    parameters: dict[str, Any]  # e.g. {'nfv': {...}}
