"""[performance_management]: the bounds an operator sets are enforced
when the value is set, and the sample generator lists the group."""

from __future__ import annotations

import pytest

from vnfm.conf import CONF
from vnfm.conf import performance_management


@pytest.mark.parametrize(
    ('name', 'value'),
    [('pm_job_page_size', -1), ('max_reports_per_job', 0)],
)
def test_a_value_below_the_minimum_is_refused(name, value):
    with pytest.raises(ValueError):
        CONF.set_override(name, value, 'performance_management')


def test_the_sample_generator_lists_the_group():
    [(group, opts)] = performance_management.list_opts()

    assert group.name == 'performance_management'
    assert {o.name for o in opts} >= {
        'pm_job_page_size',
        'max_reports_per_job',
    }
