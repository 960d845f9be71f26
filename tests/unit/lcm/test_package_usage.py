"""A package's usageState follows the instances that use it."""

from __future__ import annotations

from vnfm.db import api as db
from vnfm.lcm import package_usage

from .fixtures import new_instance
from .fixtures import onboarded_package


def usage(package: dict) -> str:
    return db.package_get(package['id'])['usage_state']


def test_identity_of_names_the_package_an_instance_runs(db_url):
    package = onboarded_package()

    identity = package_usage.identity_of(package)

    assert identity == {
        'vnfd_id': package['vnfd_id'],
        'vnf_pkg_id': package['id'],
        'vnf_provider': 'vnfm',
        'vnf_product_name': 'Noop Sample VNF',
        'vnf_software_version': '1.0',
        'vnfd_version': '1.0',
    }


def test_a_package_with_an_instance_is_in_use_until_it_is_gone(db_url):
    package = onboarded_package()
    assert usage(package) == 'NOT_IN_USE'
    inst = new_instance(package)

    package_usage.refresh([package['id']])
    assert usage(package) == 'IN_USE'

    db.instance_delete(inst['id'])
    package_usage.refresh([package['id']])
    assert usage(package) == 'NOT_IN_USE'


def test_refresh_sets_each_package_from_its_own_instances(db_url):
    used = onboarded_package('noop_vnf')
    unused = onboarded_package('noop_vnf_v2')
    new_instance(used)
    db.package_update(unused['id'], {'usage_state': 'IN_USE'})

    package_usage.refresh([used['id'], unused['id'], used['id'], None])

    assert usage(used) == 'IN_USE'
    assert usage(unused) == 'NOT_IN_USE'


def test_a_deleted_package_is_skipped(db_url):
    package = onboarded_package()

    package_usage.refresh(['no-such-package', package['id']])

    assert usage(package) == 'NOT_IN_USE'
