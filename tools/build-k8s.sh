#!/bin/bash
# Build and cache the local Kubernetes control plane: the script itself ships in the vnfm
# package (vnfm/testing/build-k8s.sh), so vnfm-localk8s finds it in an installed wheel too.
exec bash "$(dirname "${BASH_SOURCE[0]}")/../vnfm/testing/build-k8s.sh" "$@"
