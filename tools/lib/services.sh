# shellcheck shell=bash
# Start the local services vnfm's tests and demo use, when they are down; sourced by
# tools/run-tests and tools/demo, which define log and die first.
#
#   source tools/lib/services.sh
#   start_postgresql; start_rabbitmq

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
    # wait_port PORT WHAT SECONDS: poll until PORT accepts connections or the deadline passes.
    local port=$1 what=$2 deadline=$((SECONDS + $3))
    until port_open "$port"; do
        ((SECONDS < deadline)) || die "$what is still not listening on 127.0.0.1:$port after $3s"
        sleep 0.5
    done
}

start_postgresql() {
    port_open 5432 && return 0
    log "starting PostgreSQL"
    local version
    version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1)
    [[ -n $version ]] || die "PostgreSQL is not installed (apt-get install postgresql)"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start ||
        die "PostgreSQL $version did not start"
    wait_port 5432 PostgreSQL 60
}

start_rabbitmq() {
    port_open 5672 && return 0
    log "starting RabbitMQ"
    command -v rabbitmq-server >/dev/null || die "RabbitMQ is not installed (apt-get install rabbitmq-server)"
    rabbitmq-server -detached || die "RabbitMQ did not start"
    # await_startup fails until the node answers at all: retry it within one deadline.
    local deadline=$((SECONDS + 120))
    until timeout 30 rabbitmqctl --timeout 20 await_startup >/dev/null 2>&1; do
        ((SECONDS < deadline)) || die "RabbitMQ did not finish starting within 120s"
        sleep 1
    done
    wait_port 5672 RabbitMQ 30
}
