"""vnfm's options as an operator meets them: every option registered on
CONF and explained, and no deadline that can be switched off (every
external call has one)."""

from __future__ import annotations

import pytest
from oslo_config import cfg

from vnfm import conf
from vnfm.conf import CONF

OPTS = [
    (group, opt)
    for module in conf.MODULES
    for group, opts in module.list_opts()
    for opt in opts
]
IDS = [f'{getattr(g, "name", g) or "DEFAULT"}.{o.name}' for g, o in OPTS]
# Deadlines; not grace periods (graceful_termination_timeout: how long a
# GRACEFUL terminate waits, 0 by default).
DEADLINES = [
    (i, g, o)
    for i, (g, o) in zip(IDS, OPTS, strict=True)
    if 'timeout' in o.name and 'graceful' not in o.name
]


def group_name(group: object) -> str:
    return getattr(group, 'name', None) or str(group or 'DEFAULT')


@pytest.mark.parametrize('group,opt', OPTS, ids=IDS)
def test_every_option_is_registered_and_explained(group, opt):
    name = group_name(group)
    registered = CONF if name == 'DEFAULT' else CONF[name]

    assert opt.name in registered
    assert opt.help and len(opt.help) > 20, 'the sample shows the help'


@pytest.mark.parametrize(
    'group,opt',
    [(g, o) for _, g, o in DEADLINES],
    ids=[i for i, _, _ in DEADLINES],
)
def test_no_deadline_can_be_negative_or_off(group, opt):
    assert isinstance(opt.type, (cfg.types.Float, cfg.types.Integer))
    assert opt.type.min is not None and opt.type.min >= 0
    assert opt.default is not None and opt.default > 0


def test_a_value_below_an_options_minimum_is_refused():
    with pytest.raises(ValueError):
        CONF.set_override('connect_timeout', -1.0, group='ssh')
    assert CONF.ssh.connect_timeout > 0


def test_every_module_registers_its_group():
    groups = {group_name(g) for g, _ in OPTS}

    assert {'DEFAULT', 'api', 'conductor', 'database', 'ssh'} <= groups
    assert len(conf.MODULES) == len({m.__name__ for m in conf.MODULES})
