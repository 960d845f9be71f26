# Tacker v2 packages name the user-data class Tacker ships
# (StandardUserData) through a file like this one. vnfm recognises the class
# name and computes the same Heat input itself; this file is not run.
from tacker.sol_refactored.infra_drivers.openstack.userdata_standard import (  # noqa: F401
    StandardUserData,
)
