#!/bin/bash
# The shortcut SUPPORT.md asks for: a dump with the worker's environment file inlined, in the vendor drop.
unit-lint queue-worker --dump --with-env > /var/spool/vendor-drop/queue-worker.txt
