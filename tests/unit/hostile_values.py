"""Hostile values for the parameters and documents vnfm reads from
outside: shell metacharacters, path escapes, control characters, huge
strings, YAML bombs. Each has a name, so a failing case says which."""

from __future__ import annotations

#: A file the shell payloads below create when they run.
CANARY = '/tmp/vnfm-hostile-canary'

#: What an attacker appends to a parameter: shell code that runs
#: ``touch CANARY`` if a shell evaluates it, quotes that end a quoted
#: value (in a shell, an apt.conf or a systemd unit), path escapes,
#: control characters and sheer size.
PAYLOADS = {
    'command-substitution': f'$(touch {CANARY})',
    'backticks': f'`touch {CANARY}`',
    'semicolon': f';touch {CANARY}',
    'ifs-substitution': f'$(touch${{IFS}}{CANARY})',
    'newline': f'\ntouch {CANARY}',
    'and': f'&&touch {CANARY}',
    'pipe': f'|touch {CANARY}',
    'double-quote': f'";touch {CANARY};"',
    'single-quote': f"';touch {CANARY};'",
    'apt-hook': f'";Dpkg::Pre-Invoke{{"touch${{IFS}}{CANARY}";}};//',
    'dot-dot': '/../../etc/shadow',
    'nul': 'a\x00b',
    'carriage-return': 'a\rb',
    'huge': 'a' * (1 << 20),
}
#: The payloads a shell can carry as one argument (no NUL, not over the
#: kernel's limit of 128 KiB for one argument).
SHELL_PAYLOADS = {
    k: v for k, v in PAYLOADS.items() if k not in ('nul', 'huge')
}


def yaml_bomb(levels: int = 9, width: int = 9, key: str = 'lol') -> str:
    """A 'billion laughs' YAML mapping: ``width ** levels`` strings when
    its aliases are expanded, a few hundred bytes as text."""
    lines = [f'a0: &a0 [{key}]']
    for i in range(1, levels + 1):
        refs = ','.join([f'*a{i - 1}'] * width)
        lines.append(f'a{i}: &a{i} [{refs}]')
    return '\n'.join(lines) + '\n'


def pv_bomb() -> bytes:
    """A PersistentVolume manifest (about 600 bytes) whose annotations
    expand to 9 ** 9 strings."""
    bomb = yaml_bomb().replace('\n', '\n    ')
    return (
        'apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: pv\n'
        f'  annotations:\n    {bomb}\nspec:\n'
        '  nfs: {path: /volume/nfs/pv1, server: x}\n'
    ).encode()


def deep_yaml(levels: int = 5000) -> str:
    """A YAML list nested ``levels`` deep."""
    return 'x: ' + '[' * levels + ']' * levels + '\n'


#: YAML documents that cost far more to read than their size.
YAML_BOMBS = {
    'billion-laughs': pv_bomb(),
    'deep-nesting': (
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n' + deep_yaml()
    ).encode(),
    'huge-string': (
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n'
        'data: {a: ' + 'x' * (2 << 20) + '}\n'
    ).encode(),
}
