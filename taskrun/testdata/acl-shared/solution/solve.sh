#!/bin/bash
set -eu
chgrp devs /app/shared
setfacl -m g:devs:rwx /app/shared
setfacl -d -m g:devs:rwx /app/shared
