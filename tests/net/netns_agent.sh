#!/bin/sh
# netns_agent.sh: mpirun's launch agent (plm_rsh_agent) for netns.sh: runs
# the command meant for a host inside the network namespace that stands for
# it. SM_NETNS_HOSTS lists "host=namespace" pairs.
host=$1
shift
for pair in $SM_NETNS_HOSTS; do
    if [ "${pair%%=*}" = "$host" ]; then
        # mpirun hands a command line for a remote shell, as to ssh
        exec ip netns exec "${pair#*=}" /bin/sh -c "$*"
    fi
done
echo "netns_agent.sh: no namespace for host '$host' (SM_NETNS_HOSTS=$SM_NETNS_HOSTS)" >&2
exit 1
