#!/bin/sh
# netns.sh: a job on two "hosts" that are two network namespaces joined by a
# veth pair, so that nothing but UCX over TCP on the veth connects them (no
# shared memory: UCX_TLS=tcp,self; the abstract Unix sockets smartmap's
# ranks meet on are per namespace). mpirun runs in the first namespace, as
# on a cluster's first node (the hostfile names this machine), and starts
# the second host's daemon through a launch agent that enters its namespace.
# Unless an exit code is expected, checks that the bytes smartmap reports
# between nodes (SMARTMAP_STATS=1) went over the veth: the veth carried at
# least as many, and not much more (TCP/IP headers and mpirun's own traffic).
#
#   netns.sh [--rc N] [--count REGEX N]... -- MPIRUN RANKS_PER_HOST PROGRAM [ARGS...]
#
# Exits 77 (skipped, saying why) without root or without ip(8).
rc_want=0
counts=""
while [ $# -gt 0 ]; do
    case $1 in
    --rc) rc_want=$2; shift 2 ;;
    --count) counts="$counts$2
$3
"; shift 3 ;;
    --) shift; break ;;
    *) echo "netns.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ $# -ge 3 ] || { echo "usage: netns.sh [--rc N] [--count REGEX N]... -- MPIRUN RANKS_PER_HOST PROGRAM [ARGS...]" >&2; exit 2; }
mpirun=$1 per=$2
shift 2

command -v ip >/dev/null 2>&1 || { echo "skipped: no ip(8) (iproute2)"; exit 77; }
[ "$(id -u 2>/dev/null)" = 0 ] || { echo "skipped: network namespaces need root"; exit 77; }

here=$(cd "$(dirname "$0")" && pwd)
tag=sm$$
nsa=${tag}a nsb=${tag}b dev=smveth0
work=$(mktemp -d /tmp/smartmap-netns.XXXXXX)

# Namespaces of earlier runs killed before their cleanup (their shell is gone).
for ns in $(ip netns list 2>/dev/null | sed -n 's/^\(sm[0-9][0-9]*[ab]\)\( .*\)*$/\1/p'); do
    pid=${ns#sm}; pid=${pid%?}
    kill -0 "$pid" 2>/dev/null && continue
    for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
done

cleanup() {
    for ns in $nsa $nsb; do
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
    done
    ip link del ${tag}x 2>/dev/null   # if it never moved into its namespace
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

fail() { echo "netns.sh: $*"; exit 1; }
ip netns add $nsa || { echo "skipped: cannot create a network namespace"; exit 77; }
ip netns add $nsb || fail "ip netns add $nsb"
ip link add ${tag}x type veth peer name ${tag}y || { echo "skipped: cannot create a veth pair"; exit 77; }
ip link set ${tag}x netns $nsa && ip link set ${tag}y netns $nsb || fail "moving the veth ends into the namespaces"
# The same name on both sides: one UCX_NET_DEVICES for every rank.
ip -n $nsa link set ${tag}x name $dev && ip -n $nsb link set ${tag}y name $dev || fail "renaming the veth ends"
ip -n $nsa addr add 10.77.0.1/24 dev $dev && ip -n $nsb addr add 10.77.0.2/24 dev $dev || fail "addresses"
for ns in $nsa $nsb; do
    ip netns exec $ns sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 >/dev/null 2>&1   # no neighbour discovery noise
    ip -n $ns link set lo up && ip -n $ns link set $dev up || fail "bringing up the links of $ns"
done

tx() { ip netns exec "$1" cat /sys/class/net/$dev/statistics/tx_bytes; }
a0=$(tx $nsa) b0=$(tx $nsb)

# This machine's name for the first host, as on a cluster where mpirun runs
# on the first node: both hosts then share a hostname, which is what made
# ranks of the second node take the first one's peers (PMIX_LOCAL_PEERS).
hosta=$(hostname) hostb=smartmap-netns-b
printf '%s slots=%s\n%s slots=%s\n' "$hosta" "$per" "$hostb" "$per" >"$work/hosts"
export SM_NETNS_HOSTS="$hosta=$nsa $hostb=$nsb"
# mpirun's daemons reach each other over the veth too (oob over TCP); its
# BTLs stay out of /dev/shm. timeout: the cleanup must run before ctest's.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout -k 5 ${SM_NETNS_TIMEOUT:-150} ip netns exec $nsa "$mpirun" --bind-to none \
    --hostfile "$work/hosts" -n $((2 * per)) --mca plm_rsh_agent "$here/netns_agent.sh" \
    --mca oob_tcp_if_include 10.77.0.0/24 --mca btl self,tcp --mca btl_tcp_if_include 10.77.0.0/24 \
    -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=$dev -x SMARTMAP_STATS=1 "$@" >"$work/out" 2>&1
rc=$?
cat "$work/out"
[ "$rc" = "$rc_want" ] || fail "exit code $rc, expected $rc_want"
bad=0
if [ -n "$counts" ]; then
    while read -r rx && read -r n; do
        got=$(grep -Ec -- "$rx" "$work/out")
        [ "$got" = "$n" ] || { echo "netns.sh: /$rx/ appears $got times, expected $n"; bad=1; }
    done <<EOF
$counts
EOF
fi
[ $bad = 0 ] || exit 1
[ "$rc_want" = 0 ] || exit 0

# Every rank said what it sent to the other host; all of it crossed the veth.
sent=$(sed -n 's/^smartmap: rank [0-9]*: bytes between nodes (UCX): sent \([0-9]*\),.*/\1/p' "$work/out" |
       awk '{ s += $1; n++ } END { if (n) print s; }')
n=$(grep -c '^smartmap: rank [0-9]*: bytes between nodes (UCX): sent' "$work/out")
[ "$n" = $((2 * per)) ] || fail "$n ranks reported their bytes between nodes, expected $((2 * per))"
veth=$(( $(tx $nsa) - a0 + $(tx $nsb) - b0 ))
echo "netns.sh: smartmap sent $sent bytes between nodes; the veth carried $veth"
[ "$sent" -gt 0 ] || fail "no bytes between nodes: the hosts did not talk over UCX"
[ "$veth" -ge "$sent" ] || fail "the veth carried fewer bytes ($veth) than smartmap sent between nodes ($sent): another path connected them"
# headers: at most about a tenth on full segments, plus mpirun's own traffic
[ "$veth" -le $((sent + sent / 4 + 4000000)) ] || fail "the veth carried far more ($veth) than smartmap sent ($sent)"
exit 0
