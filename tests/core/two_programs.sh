#!/bin/sh
# Run a smartmap program in each rank, then a second one in rank 0 (as
# `sh -c './app; ./app'` does): the second cannot join the job.
"$@" || exit
if [ "$SMARTMAP_RANK" = 0 ]; then exec "$@"; fi
