#!/bin/bash
# DevStack plugin of vnfm: install, configure (RabbitMQ, the database, keystone), migrate the
# database, register the nfv-orchestration endpoint, run vnfm-api and vnfm-conductor.

# Save trace setting
_XTRACE_VNFM=$(set +o | grep xtrace)
set -o xtrace

function install_vnfm {
    setup_develop $VNFM_DIR
    if [[ $VNFM_INSTALL_CLIENT == True ]]; then
        pip_install 'python-tackerclient>=2.0'
    fi
}

function configure_vnfm {
    sudo install -d -o $STACK_USER $VNFM_CONF_DIR $VNFM_STATE_PATH
    rm -f $VNFM_CONF

    iniset $VNFM_CONF DEFAULT state_path $VNFM_STATE_PATH
    iniset $VNFM_CONF DEFAULT host $(hostname)
    iniset_rpc_backend vnfm $VNFM_CONF
    iniset $VNFM_CONF database connection $(database_connection_url vnfm)

    iniset $VNFM_CONF api host_ip $VNFM_SERVICE_LISTEN_ADDRESS
    iniset $VNFM_CONF api port $VNFM_SERVICE_PORT
    iniset $VNFM_CONF api public_endpoint ${VNFM_ENDPOINT%/}
    iniset $VNFM_CONF api auth_strategy keystone
    configure_keystone_authtoken_middleware $VNFM_CONF vnfm

    # One key for every vnfm-api and vnfm-conductor (they refuse to start
    # without it): what one process encrypts, the others must decrypt.
    iniset $VNFM_CONF crypto keys "$(vnfm_crypto_key)"
    iniset $VNFM_CONF infra enabled_infra_drivers $VNFM_ENABLED_INFRA_DRIVERS
    if [[ -n "$VNFM_OUTBOUND_ALLOWED_NETWORKS" ]]; then
        iniset $VNFM_CONF outbound allowed_networks $VNFM_OUTBOUND_ALLOWED_NETWORKS
    fi
}

# The shared Fernet key: VNFM_CRYPTO_KEY when set (give every node of a
# multi-node DevStack the same one), else one generated at the first stack
# and kept in $VNFM_CONF_DIR/crypto-key for later runs.
function vnfm_crypto_key {
    local file=$VNFM_CONF_DIR/crypto-key
    if [[ -n "$VNFM_CRYPTO_KEY" ]]; then
        echo "$VNFM_CRYPTO_KEY"
        return
    fi
    if [[ ! -s $file ]]; then
        (umask 077 && $PYTHON -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())' >$file)
    fi
    cat $file
}

function create_vnfm_accounts {
    create_service_user "vnfm" "admin"
    get_or_create_service "vnfm" "nfv-orchestration" "VNF manager (ETSI NFV SOL002/003/005)"
    get_or_create_endpoint "nfv-orchestration" "$REGION_NAME" "$VNFM_ENDPOINT"
}

function init_vnfm {
    recreate_database vnfm
    $(get_python_exec_prefix)/vnfm-db-manage --config-file $VNFM_CONF upgrade
}

function start_vnfm {
    local bin
    bin=$(get_python_exec_prefix)
    run_process vnfm-api "$bin/vnfm-api --config-file $VNFM_CONF"
    run_process vnfm-conductor "$bin/vnfm-conductor --config-file $VNFM_CONF"
    if is_service_enabled vnfm-api; then
        echo "Waiting for vnfm-api at $VNFM_ENDPOINT"
        if ! wait_for_service $SERVICE_TIMEOUT $VNFM_ENDPOINT; then
            die $LINENO "vnfm-api did not start"
        fi
    fi
}

function stop_vnfm {
    stop_process vnfm-api
    stop_process vnfm-conductor
}

function cleanup_vnfm {
    sudo rm -rf $VNFM_CONF_DIR $VNFM_STATE_PATH
}

if is_service_enabled vnfm-api vnfm-conductor; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing vnfm"
        install_vnfm
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring vnfm"
        configure_vnfm
        if is_service_enabled keystone; then
            create_vnfm_accounts
        fi
        init_vnfm
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        echo_summary "Starting vnfm"
        start_vnfm
    fi

    if [[ "$1" == "unstack" ]]; then
        stop_vnfm
    fi

    if [[ "$1" == "clean" ]]; then
        cleanup_vnfm
    fi
fi

# Restore xtrace
$_XTRACE_VNFM
