#!/bin/bash
# The test package's install script for vnfm's kubernetes_cluster MgmtDriver (seed 002).
#
# Same contract as the production script (samples/kubernetes_cluster/Scripts/install_k8s_cluster.sh):
#
#   install_k8s_cluster.sh ACTION CONFIG
#
# run as root through sudo, one ACTION (prepare, init-master, join-info, join-master,
# join-worker, vim-access, reset) at a time, CONFIG a file of KEY=VALUE lines, results printed
# as KEY=VALUE lines on stdout. Instead of kubeadm it runs, inside the local cloud's VM, the
# control plane tools/build-k8s.sh builds and the simulated kubelet (vnfm_testbed.vmk8s), with
# the host's vnfm Python, which the VM sees. The paths below are filled in when the test
# builds the package (vnfm_testbed.openstack.k8s_cluster_sample).
set -euo pipefail

readonly VNFM_PYTHON='@VNFM_PYTHON@'
export VNFM_K8S_CACHE='@VNFM_K8S_CACHE@'
# Tests of retry: an action named by a file in this directory fails once (empty: never).
export VNFM_VMK8S_FAIL_DIR='@VNFM_VMK8S_FAIL_DIR@'

[[ $# -eq 2 ]] || { echo "usage: $0 ACTION CONFIG" >&2; exit 2; }
[[ $EUID -eq 0 ]] || { echo "install_k8s_cluster: must run as root" >&2; exit 1; }
[[ -x $VNFM_PYTHON ]] || { echo "install_k8s_cluster: $VNFM_PYTHON is not visible in this VM" >&2; exit 1; }
exec "$VNFM_PYTHON" -m vnfm_testbed.vmk8s "$1" "$2"
