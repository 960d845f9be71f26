#!/bin/bash
# Installs Kubernetes with kubeadm and containerd on a VM of a kubernetes_cluster VNF.
#
# vnfm's kubernetes_cluster MgmtDriver copies this script (the package's script_path) to each VM
# over SFTP and runs it as root (through sudo), one ACTION at a time:
#
#   install_k8s_cluster.sh ACTION CONFIG
#
#   prepare       any node: kernel settings, proxy, containerd and kubeadm/kubelet/kubectl
#   init-master   the first master: kubeadm init behind CLUSTER_ENDPOINT, then Calico
#   join-info     a master: print JOIN_TOKEN, CA_CERT_HASH and CERTIFICATE_KEY
#   join-master   another master: join the control plane (HA masters)
#   join-worker   a worker: join the cluster
#   vim-access    a master: the service account vnfm uses; print SERVER, CA_CERT, TOKEN
#   reset         any node: leave the cluster and remove its state (before a rebuild)
#
# CONFIG is a file of KEY=VALUE lines that vnfm writes (mode 0600, deleted after the run); the
# keys are listed in read_config. Results are printed on stdout as KEY=VALUE lines, progress
# and errors on stderr. Every action is idempotent: what is already done is skipped, and a
# half-done step is undone and redone, so running a hook again converges.
#
# Supported: Ubuntu 22.04 and Debian 12 (amd64, arm64), with the package versions pinned below.
set -euo pipefail

# Pinned versions: change them together and test the result.
readonly K8S_MINOR=v1.30
readonly K8S_PACKAGE_VERSION=1.30.6-1.1
readonly CALICO_VERSION=v3.28.2
readonly K8S_REPO="https://pkgs.k8s.io/core:/stable:/${K8S_MINOR}/deb/"
readonly CALICO_MANIFEST="https://raw.githubusercontent.com/projectcalico/calico/${CALICO_VERSION}/manifests/calico.yaml"
readonly KEYRING=/etc/apt/keyrings/kubernetes-apt-keyring.gpg
readonly STATE_DIR=/var/lib/vnfm-k8s
readonly ADMIN_CONF=/etc/kubernetes/admin.conf
readonly APT=(apt-get -y -q -o DPkg::Lock::Timeout=600)
readonly WAIT_SECONDS=600

log() { printf '%s install_k8s_cluster: %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

NODE_IP='' NODE_NAME='' CLUSTER_ENDPOINT='' CLUSTER_EXTRA_SANS='' POD_CIDR='' SERVICE_CIDR=''
HTTP_PROXY_URL='' HTTPS_PROXY_URL='' NO_PROXY_LIST='' K8S_NODE_CIDR=''
JOIN_TOKEN='' CA_CERT_HASH='' CERTIFICATE_KEY=''

read_config() {
    # Only the known keys are set; values are taken as they are (never evaluated).
    local line key value
    [[ -r $1 ]] || die "config file $1 is not readable"
    while IFS= read -r line || [[ -n $line ]]; do
        [[ -z $line || $line == \#* ]] && continue
        [[ $line == *=* ]] || die "config line without '=': ${line%%=*}"
        key=${line%%=*}
        value=${line#*=}
        case $key in
        NODE_IP | NODE_NAME | CLUSTER_ENDPOINT | CLUSTER_EXTRA_SANS | POD_CIDR | SERVICE_CIDR | \
            HTTP_PROXY_URL | HTTPS_PROXY_URL | NO_PROXY_LIST | K8S_NODE_CIDR | \
            JOIN_TOKEN | CA_CERT_HASH | CERTIFICATE_KEY)
            printf -v "$key" '%s' "$value"
            ;;
        *) die "unknown config key $key" ;;
        esac
    done <"$1"
    NODE_NAME=${NODE_NAME:-$(hostname)}
}

require() {
    local name
    for name in "$@"; do
        [[ -n ${!name} ]] || die "$ACTION needs $name in the config"
    done
}

check_os() {
    # shellcheck source=/dev/null
    . /etc/os-release
    case "${ID:-}:${VERSION_ID:-}" in
    ubuntu:22.04 | debian:12) ;;
    *) die "unsupported OS ${PRETTY_NAME:-unknown}: Ubuntu 22.04 or Debian 12 is needed" ;;
    esac
}

endpoint_host() { printf '%s' "${CLUSTER_ENDPOINT%:*}"; }

# --- prepare -------------------------------------------------------------------------------

no_proxy_value() {
    # Cluster-internal destinations never go through the proxy.
    local list=(localhost 127.0.0.1 .svc .cluster.local "$NODE_IP" "$(endpoint_host)")
    local extra
    for extra in "$POD_CIDR" "$SERVICE_CIDR" "$K8S_NODE_CIDR" "$NO_PROXY_LIST"; do
        [[ -n $extra ]] && list+=("$extra")
    done
    local IFS=,
    printf '%s' "${list[*]}"
}

configure_proxy() {
    local apt_conf=/etc/apt/apt.conf.d/95vnfm-proxy unit
    if [[ -z $HTTP_PROXY_URL && -z $HTTPS_PROXY_URL ]]; then
        rm -f "$apt_conf" /etc/systemd/system/{containerd,kubelet}.service.d/90-vnfm-proxy.conf
        return 0
    fi
    log "proxy: apt, containerd and kubelet go through the proxy"
    export http_proxy=$HTTP_PROXY_URL https_proxy=${HTTPS_PROXY_URL:-$HTTP_PROXY_URL}
    no_proxy=$(no_proxy_value)
    export no_proxy HTTP_PROXY=$http_proxy HTTPS_PROXY=$https_proxy NO_PROXY=$no_proxy
    umask 077
    {
        [[ -n $HTTP_PROXY_URL ]] && printf 'Acquire::http::Proxy "%s";\n' "$HTTP_PROXY_URL"
        printf 'Acquire::https::Proxy "%s";\n' "$https_proxy"
    } >"$apt_conf"
    for unit in containerd kubelet; do
        mkdir -p "/etc/systemd/system/$unit.service.d"
        printf '[Service]\nEnvironment="HTTP_PROXY=%s" "HTTPS_PROXY=%s" "NO_PROXY=%s"\n' \
            "$http_proxy" "$https_proxy" "$no_proxy" \
            >"/etc/systemd/system/$unit.service.d/90-vnfm-proxy.conf"
    done
    umask 022
    systemctl daemon-reload
}

configure_kernel() {
    log "kernel: swap off, overlay and br_netfilter, forwarding"
    swapoff -a
    sed -ri '/^[^#].*\sswap\s/s/^/#/' /etc/fstab
    printf 'overlay\nbr_netfilter\n' >/etc/modules-load.d/vnfm-k8s.conf
    modprobe overlay
    modprobe br_netfilter
    cat >/etc/sysctl.d/90-vnfm-k8s.conf <<'EOF'
net.bridge.bridge-nf-call-iptables = 1
net.bridge.bridge-nf-call-ip6tables = 1
net.ipv4.ip_forward = 1
EOF
    sysctl --system >/dev/null
}

install_containerd() {
    log "containerd: the distribution's package, systemd cgroups"
    "${APT[@]}" update
    "${APT[@]}" install --no-install-recommends containerd ca-certificates curl gpg
    mkdir -p /etc/containerd
    if ! grep -q 'SystemdCgroup = true' /etc/containerd/config.toml 2>/dev/null; then
        containerd config default >/etc/containerd/config.toml.new
        sed -i 's/SystemdCgroup = false/SystemdCgroup = true/' /etc/containerd/config.toml.new
        mv /etc/containerd/config.toml.new /etc/containerd/config.toml
    fi
    systemctl enable containerd
    systemctl restart containerd
}

install_kubernetes_packages() {
    log "kubeadm, kubelet, kubectl $K8S_PACKAGE_VERSION from $K8S_REPO"
    install -d -m 755 /etc/apt/keyrings
    if [[ ! -s $KEYRING ]]; then
        curl -fsSL --retry 5 --max-time 60 "${K8S_REPO}Release.key" | gpg --dearmor -o "$KEYRING.new"
        mv "$KEYRING.new" "$KEYRING"
    fi
    printf 'deb [signed-by=%s] %s /\n' "$KEYRING" "$K8S_REPO" >/etc/apt/sources.list.d/kubernetes.list
    "${APT[@]}" update
    apt-mark unhold kubelet kubeadm kubectl >/dev/null 2>&1 || true
    "${APT[@]}" install --allow-downgrades --no-install-recommends \
        "kubelet=$K8S_PACKAGE_VERSION" "kubeadm=$K8S_PACKAGE_VERSION" "kubectl=$K8S_PACKAGE_VERSION"
    apt-mark hold kubelet kubeadm kubectl >/dev/null
    printf 'KUBELET_EXTRA_ARGS=--node-ip=%s\n' "$NODE_IP" >/etc/default/kubelet
    systemctl enable kubelet
}

do_prepare() {
    require NODE_IP CLUSTER_ENDPOINT
    check_os
    configure_proxy
    configure_kernel
    install_containerd
    install_kubernetes_packages
    mkdir -p "$STATE_DIR"
    log "prepared $NODE_NAME ($NODE_IP)"
}

# --- control plane -------------------------------------------------------------------------

kubectl_admin() { kubectl --kubeconfig "$ADMIN_CONF" --request-timeout=60s "$@"; }

api_ready() { [[ -f $ADMIN_CONF ]] && kubectl_admin get --raw=/readyz >/dev/null 2>&1; }

joined() {
    # This node belongs to a cluster: kubelet has its credentials and runs.
    [[ -f /etc/kubernetes/kubelet.conf ]] && systemctl is-active --quiet kubelet
}

reset_node() {
    log "reset: kubeadm reset and the node's cluster state"
    kubeadm reset -f >&2 || true
    rm -rf /etc/cni/net.d /var/lib/etcd "$HOME/.kube"
    iptables -F && iptables -t nat -F && iptables -t mangle -F && iptables -X
}

install_calico() {
    local manifest="$STATE_DIR/calico-$CALICO_VERSION.yaml"
    if [[ ! -s $manifest ]]; then
        curl -fsSL --retry 5 --max-time 120 "$CALICO_MANIFEST" -o "$manifest.new"
        mv "$manifest.new" "$manifest"
    fi
    log "Calico $CALICO_VERSION for Pod network $POD_CIDR"
    sed -e 's|# - name: CALICO_IPV4POOL_CIDR|- name: CALICO_IPV4POOL_CIDR|' \
        -e "s|#   value: \"192.168.0.0/16\"|  value: \"$POD_CIDR\"|" "$manifest" |
        kubectl_admin apply -f - >&2
}

wait_node_ready() {
    log "waiting for node $NODE_NAME to be Ready"
    kubectl_admin wait --for=condition=Ready "node/$NODE_NAME" --timeout="${WAIT_SECONDS}s" >&2
}

do_init_master() {
    require NODE_IP CLUSTER_ENDPOINT POD_CIDR SERVICE_CIDR
    if api_ready; then
        log "the control plane already runs: kubeadm init skipped"
    else
        [[ -e /etc/kubernetes/manifests/kube-apiserver.yaml ]] && reset_node
        local sans
        sans="$NODE_IP,$(endpoint_host)"
        [[ -n $CLUSTER_EXTRA_SANS ]] && sans+=",$CLUSTER_EXTRA_SANS"
        log "kubeadm init behind $CLUSTER_ENDPOINT"
        kubeadm init --control-plane-endpoint "$CLUSTER_ENDPOINT" --upload-certs \
            --apiserver-advertise-address "$NODE_IP" --apiserver-cert-extra-sans "$sans" \
            --pod-network-cidr "$POD_CIDR" --service-cidr "$SERVICE_CIDR" \
            --node-name "$NODE_NAME" >&2
    fi
    install_calico
    wait_node_ready
}

do_join_info() {
    api_ready || die "no running control plane on $(hostname) to take join information from"
    local hash key token
    token=$(kubeadm token create --ttl 2h)
    hash=$(openssl x509 -pubkey -in /etc/kubernetes/pki/ca.crt |
        openssl pkey -pubin -outform der | openssl dgst -sha256 -hex | sed 's/^.* //')
    key=$(kubeadm init phase upload-certs --upload-certs 2>/dev/null | tail -n 1)
    printf 'JOIN_TOKEN=%s\nCA_CERT_HASH=sha256:%s\nCERTIFICATE_KEY=%s\n' "$token" "$hash" "$key"
}

do_join() {
    local role=$1 args
    require NODE_IP CLUSTER_ENDPOINT JOIN_TOKEN CA_CERT_HASH
    if joined; then
        log "$NODE_NAME already belongs to a cluster: kubeadm join skipped"
        return 0
    fi
    [[ -e /etc/kubernetes/pki/ca.crt || -e /etc/kubernetes/manifests ]] && reset_node
    args=(join "$CLUSTER_ENDPOINT" --token "$JOIN_TOKEN" --discovery-token-ca-cert-hash "$CA_CERT_HASH"
        --node-name "$NODE_NAME")
    if [[ $role == master ]]; then
        require CERTIFICATE_KEY
        args+=(--control-plane --certificate-key "$CERTIFICATE_KEY" --apiserver-advertise-address "$NODE_IP")
    fi
    log "kubeadm join $CLUSTER_ENDPOINT as a $role"
    kubeadm "${args[@]}" >&2
}

# --- the access vnfm registers as a VIM ----------------------------------------------------

vnfm_access_manifest() {
    # What vnfm needs to deploy CNFs and drain Nodes; not cluster-admin (no CRDs, webhooks,
    # cluster roles or certificates).
    cat <<'EOF'
apiVersion: v1
kind: ServiceAccount
metadata: {name: vnfm, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: vnfm-cnf-manager}
rules:
- apiGroups: ["", apps, batch, autoscaling, policy, networking.k8s.io, discovery.k8s.io]
  resources: ["*"]
  verbs: ["*"]
- apiGroups: [rbac.authorization.k8s.io]
  resources: [roles, rolebindings]
  verbs: ["*"]
- apiGroups: [storage.k8s.io]
  resources: [storageclasses]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: vnfm-cnf-manager}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: vnfm-cnf-manager}
subjects:
- {kind: ServiceAccount, name: vnfm, namespace: kube-system}
---
apiVersion: v1
kind: Secret
type: kubernetes.io/service-account-token
metadata:
  name: vnfm-token
  namespace: kube-system
  annotations: {kubernetes.io/service-account.name: vnfm}
EOF
}

do_vim_access() {
    require CLUSTER_ENDPOINT
    api_ready || die "no running control plane on $(hostname)"
    vnfm_access_manifest | kubectl_admin apply -f - >&2
    local token='' deadline=$((SECONDS + 120))
    until [[ -n $token ]]; do
        ((SECONDS < deadline)) || die "the token of service account kube-system/vnfm was not issued"
        token=$(kubectl_admin -n kube-system get secret vnfm-token -o 'jsonpath={.data.token}')
        [[ -n $token ]] || sleep 1
    done
    printf 'SERVER=https://%s\nCA_CERT=%s\nTOKEN=%s\n' "$CLUSTER_ENDPOINT" \
        "$(base64 -w 0 /etc/kubernetes/pki/ca.crt)" "$(printf '%s' "$token" | base64 -d)"
}

main() {
    [[ $# -eq 2 ]] || die "usage: $0 prepare|init-master|join-info|join-master|join-worker|vim-access|reset CONFIG"
    [[ $EUID -eq 0 ]] || die "must run as root"
    ACTION=$1
    read_config "$2"
    case $ACTION in
    prepare) do_prepare ;;
    init-master) do_init_master ;;
    join-info) do_join_info ;;
    join-master) do_join master ;;
    join-worker) do_join worker ;;
    vim-access) do_vim_access ;;
    reset) reset_node ;;
    *) die "unknown action $ACTION" ;;
    esac
}

main "$@"
