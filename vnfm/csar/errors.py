"""Errors raised while reading a VNF package."""


class InvalidPackage(Exception):
    """The package cannot be onboarded; ``detail`` says what to fix."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail
