"""The ``kubernetes_cluster`` MgmtDriver (seed 002): see ``driver``.

Its parts, each tested on its own:

- ``nodes``: the master and worker VMs of an instance and their SSH and
  node addresses, from its vnfcResourceInfo by the CP names of
  ``k8s_cluster_installation_param``; the API endpoint of
  ``cluster_cp_name``.
- ``hostkeys``: SSH host keys pinned per VM, kept as instance metadata that
  hooks return to lcm as a merge patch.
- ``sessions``: one SSH session per VM per hook, pinning at first contact.
- ``script``: the package's install script run action by action as root
  (config file, sudo, results).
- ``vim``: the cluster as a Kubernetes VIM from the script's output.
- ``install``: the install steps in kubeadm's order over those parts (HA
  masters joined as control-plane nodes), a retried hook running only the
  steps left.
- ``drain``: a Node cordoned, drained by evictions and deleted.
"""

from vnfm.drivers.mgmt.kubernetes_cluster.driver import KubernetesClusterDriver

__all__ = ['KubernetesClusterDriver']
