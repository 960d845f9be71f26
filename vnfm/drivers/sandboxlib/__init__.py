"""Programs that run inside the sandbox (standard library only)."""
