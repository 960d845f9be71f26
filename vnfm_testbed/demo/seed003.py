"""Seed 003's sample packages (cnf_update_v1/v2): the facts the demo and the
tests share about them."""

# The manifests instantiate applies (lcm-kubernetes-def-files).
DEF_FILES = [
    f'Files/kubernetes/{n}.yaml'
    for n in (
        'configmap_1',
        'configmap_3',
        'secret_1',
        'secret_3',
        'pod_env',
        'pod_volume',
        'deployment',
        'replicaset',
        'daemonset',
    )
]
# What cnf_update_v2 changes (seed 003's sample_param_file.json).
CONFIG_PATHS = [
    'Files/kubernetes/configmap_1.yaml',
    'Files/kubernetes/secret_1.yaml',
]
