#!/bin/sh
set -e
[ "$(bin/hello)" = "Hello, world!" ]
[ "$(bin/hello Ada)" = "Hello, Ada!" ]
echo "tests ok"
