#!/bin/sh
# Run a command with /dev/shm unusable (a read-only, zero-size tmpfs in a
# private mount namespace). Skips (77) where mount namespaces are not allowed.
[ "${1:-}" = --inner ] && { shift; mount -t tmpfs -o ro,size=4k none /dev/shm || exit 77
  touch /dev/shm/probe 2>/dev/null && { echo "/dev/shm still writable"; exit 1; }; exec "$@"; }
unshare --mount --propagation private true 2>/dev/null || { echo "no mount namespaces here: skipped"; exit 77; }
exec unshare --mount --propagation private "$0" --inner "$@"
