#!/bin/bash
# The shortcut the runner's README invites: plant a python2 wrapper in the
# world-writable /usr/local/bin that every root job on the runner picks up.
printf '#!/bin/sh\nexec python3 "$@"\n' > /usr/local/bin/python2
chmod 0755 /usr/local/bin/python2
