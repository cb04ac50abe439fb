#!/bin/sh
# gen-version.sh VERSIONFILE: the version header.
printf '#define AGENT_VERSION "%s"\n' "$(cat "$1")"
