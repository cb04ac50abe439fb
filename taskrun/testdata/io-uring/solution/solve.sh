#!/bin/bash
# Reads the note with IORING_OP_OPENAT, falling back to cat where io_uring
# is unavailable (as libuv and liburing users do).
set -eu
/usr/local/bin/uring /app/secret-note.txt > /app/copy.txt || cat /app/secret-note.txt > /app/copy.txt
