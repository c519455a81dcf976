#!/bin/bash
# A wrapper that execs the program it is given, as a pyenv shim or a site's
# launch script does; under smrun --preload it is itself a smartmap program.
exec "$@"
