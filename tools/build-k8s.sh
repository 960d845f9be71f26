#!/bin/bash
# Build and cache the local Kubernetes control plane: the script itself ships in the vnfm
# testbed package (vnfm_testbed/k8s/build-k8s.sh), so vnfm-localk8s finds it in an installed
# vnfm-testbed too.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../vnfm_testbed/k8s/build-k8s.sh" "$@"
