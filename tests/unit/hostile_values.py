"""Hostile values for the parameters and documents vnfm reads from
outside: shell metacharacters, path escapes, control characters, huge
strings, YAML bombs. Each has a name, so a failing case says which."""

from __future__ import annotations

#: A file the shell payloads below create when they run.
CANARY = '/tmp/vnfm-hostile-canary'

#: Strings that run ``touch CANARY`` if a shell evaluates them.
SHELL = {
    'command-substitution': f'/mnt/$(touch {CANARY})',
    'backticks': f'/mnt/`touch {CANARY}`',
    'semicolon': f'/mnt/a;touch {CANARY}',
    'ifs-substitution': f'/mnt/$(touch${{IFS}}{CANARY})',
    'newline': f'/mnt/a\ntouch {CANARY}',
    'and': f'/mnt/a&&touch {CANARY}',
    'pipe': f'/mnt/a|touch {CANARY}',
    'double-quote': f'/mnt/a"; touch {CANARY}; "',
    'single-quote': f"/mnt/a'; touch {CANARY}; '",
}
#: Strings that are no file's safe name.
PATHS = {
    'dot-dot': '/mnt/../etc/shadow',
    'relative-dot-dot': '../../etc/shadow',
    'nul': '/mnt/a\x00b',
    'huge': '/mnt/' + 'a' * (1 << 20),
}
ALL = {**SHELL, **PATHS}


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
