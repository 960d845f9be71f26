"""Which VDUs a stack update of vnfm's can scale: those in an
AutoScalingGroup whose desired_capacity is the nfv parameter's; a scale of
any other is refused before anything runs, saying why."""

from __future__ import annotations

from vnfm.drivers.infra.openstack import scalable

TOP = """
heat_template_version: 2013-05-23
parameters:
  nfv: {type: json}
resources:
  VDU1:
    type: OS::Heat::AutoScalingGroup
    properties:
      min_size: 1
      max_size: 3
      desired_capacity: {get_param: [nfv, VDU, VDU1, desired_capacity]}
      resource: {type: VDU1.yaml}
  VDU2:
    type: OS::Nova::Server
    properties: {flavor: m1.tiny}
  VDU3:
    type: OS::Heat::AutoScalingGroup
    properties:
      desired_capacity: 2
      resource: {type: VDU3.yaml}
  VDU4:
    type: OS::Heat::AutoScalingGroup
    properties:
      desired_capacity: {get_param: [nfv, VDU, VDU4, min_size]}
      resource: {type: VDU4.yaml}
"""
FLAVOUR = {
    'flavour_id': 'simple',
    'scaling_aspects': {
        'vdu1_aspect': {'vdu_deltas': {'VDU1': 1}},
        'mixed_aspect': {'vdu_deltas': {'VDU1': 1, 'VDU3': 1, 'VDU2': 0}},
        'server_aspect': {'vdu_deltas': {'VDU2': 1}},
    },
}


def test_only_groups_sized_by_the_nfv_parameter_are_scalable():
    assert scalable.scalable_vdus(TOP) == {'VDU1'}


def test_aspects_scaling_other_vdus_are_refused_naming_them():
    why = scalable.unscalable(FLAVOUR, TOP)

    assert set(why) == {'mixed_aspect', 'server_aspect'}
    assert why['mixed_aspect'].startswith(
        'Aspect mixed_aspect scales VDU VDU3, which the top Heat template '
        'of flavour simple does not put in an OS::Heat::AutoScalingGroup'
    )
    assert 'VDU2' not in why['mixed_aspect'], 'a zero delta scales nothing'
    assert 'scales VDU VDU2' in why['server_aspect']


def test_a_flavour_without_aspects_has_nothing_to_refuse():
    assert scalable.unscalable({'flavour_id': 'simple'}, TOP) == {}
