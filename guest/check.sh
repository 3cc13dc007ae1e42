#!/bin/sh
# The test run: every suite prints TAP; the host counts the results.

echo "devbpf: kselftest bpf_dev (as root, dropping to uid 1000 and 1001)"
dev_bpf_test

# Later suites run with the administrator's rule applied, as a deployed
# system would have it.
apply-dev-rule.sh

echo "devbpf: libbpf_get/put_bpf_permission() (as root, dropping to uid 1000 and 1001)"
libbpf_grant_test

echo "devbpf: bpftool as root, as alice (group bpf) and as bob"
bpftool.sh

echo "devbpf: the deployment files and the service they describe"
deploy.sh

echo "devbpf: race stress and fuzzing, as alice (group bpf)"
su alice -c "stress 10"
su alice -c "fuzz $(date +%s) 10"
