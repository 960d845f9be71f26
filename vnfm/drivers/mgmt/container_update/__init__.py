"""The built-in container_update MgmtDriver: on Modify VNF Information
with a new package, replace only the ConfigMaps/Secrets whose content
changed and restart only the Pods that use them or whose image changed
(seeds 001, 003). See ``driver`` for the flow and ``planner`` for the
rules."""

from vnfm.drivers.mgmt.container_update.driver import ContainerUpdateDriver

__all__ = ['ContainerUpdateDriver']
