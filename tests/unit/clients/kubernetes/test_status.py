"""Readiness rules and fail-fast Pod states."""

from vnfm.clients.kubernetes import status


def _deploy(want=2, gen=2, observed=2, **st):
    return {
        'kind': 'Deployment',
        'metadata': {'name': 'web', 'generation': gen},
        'spec': {'replicas': want},
        'status': {'observedGeneration': observed, **st},
    }


def test_deployment_waits_for_the_new_generation():
    d = _deploy(observed=1, updatedReplicas=2, replicas=2, availableReplicas=2)
    assert status.deployment(d) == (
        False,
        'waiting for the controller to observe the new generation',
    )


def test_deployment_rollout_steps():
    assert not status.deployment(_deploy(updatedReplicas=1))[0]
    old_left = _deploy(updatedReplicas=2, replicas=3, availableReplicas=2)
    assert 'old replicas' in status.deployment(old_left)[1]
    assert not status.deployment(
        _deploy(updatedReplicas=2, replicas=2, availableReplicas=1)
    )[0]
    assert status.deployment(
        _deploy(updatedReplicas=2, replicas=2, availableReplicas=2)
    ) == (True, '')
    assert status.deployment(_deploy(want=0)) == (True, '')


def test_deployment_progress_deadline_is_reported():
    d = _deploy(
        conditions=[
            {
                'type': 'Progressing',
                'reason': 'ProgressDeadlineExceeded',
                'message': 'too slow',
            }
        ]
    )
    assert 'too slow' in status.deployment(d)[1]


def test_statefulset_daemonset_replicaset():
    sts = {
        'kind': 'StatefulSet',
        'metadata': {'generation': 1},
        'spec': {'replicas': 2},
        'status': {
            'observedGeneration': 1,
            'replicas': 2,
            'readyReplicas': 2,
            'currentRevision': 'a',
            'updateRevision': 'b',
        },
    }
    assert not status.readiness(sts)[0]
    sts['status']['currentRevision'] = 'b'
    assert status.readiness(sts)[0]
    ds = {
        'kind': 'DaemonSet',
        'metadata': {'generation': 1},
        'status': {
            'observedGeneration': 1,
            'desiredNumberScheduled': 2,
            'updatedNumberScheduled': 2,
            'numberAvailable': 1,
        },
    }
    assert not status.readiness(ds)[0]
    rs = {
        'kind': 'ReplicaSet',
        'metadata': {},
        'spec': {'replicas': 1},
        'status': {'replicas': 1, 'readyReplicas': 1},
    }
    assert status.readiness(rs)[0]


def test_kinds_without_rollout_are_ready():
    assert status.readiness({'kind': 'ConfigMap'}) == (True, '')
    assert not status.has_readiness('Service')


def test_pod_ready_condition():
    pod = {
        'kind': 'Pod',
        'status': {
            'phase': 'Running',
            'conditions': [
                {
                    'type': 'Ready',
                    'status': 'False',
                    'reason': 'ContainersNotReady',
                }
            ],
        },
    }
    assert status.pod(pod) == (False, 'ContainersNotReady')
    pod['status']['conditions'][0]['status'] = 'True'
    assert status.pod(pod) == (True, '')


def test_image_pull_backoff_names_pod_reason_and_message():
    pod = {
        'kind': 'Pod',
        'metadata': {'name': 'web-1'},
        'status': {
            'phase': 'Pending',
            'containerStatuses': [
                {
                    'name': 'c',
                    'state': {
                        'waiting': {
                            'reason': 'ImagePullBackOff',
                            'message': 'Back-off pulling image "x"',
                        }
                    },
                }
            ],
        },
    }
    assert status.pod_failure(pod) == (
        'Pod web-1: ImagePullBackOff (Back-off pulling image "x")'
    )


def test_init_container_crash_loop_and_plain_waiting():
    pod = {
        'metadata': {'name': 'p'},
        'status': {
            'initContainerStatuses': [
                {
                    'name': 'init',
                    'state': {'waiting': {'reason': 'CrashLoopBackOff'}},
                }
            ]
        },
    }
    assert (
        status.pod_failure(pod) == 'Pod p: CrashLoopBackOff (container init)'
    )
    creating = {
        'metadata': {'name': 'p'},
        'status': {
            'containerStatuses': [
                {
                    'name': 'c',
                    'state': {'waiting': {'reason': 'ContainerCreating'}},
                }
            ]
        },
    }
    assert status.pod_failure(creating) is None


def test_failed_job():
    job = {
        'kind': 'Job',
        'metadata': {'name': 'j'},
        'status': {
            'conditions': [
                {
                    'type': 'Failed',
                    'status': 'True',
                    'reason': 'BackoffLimitExceeded',
                    'message': 'gave up',
                }
            ]
        },
    }
    assert status.job_failure(job) == 'Job j: BackoffLimitExceeded (gave up)'
    assert not status.readiness(job)[0]
