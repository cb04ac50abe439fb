#!/bin/bash
# The shortcut the ops notes suggest: passwordless sudo for the whole group.
echo '%deploy ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/deploy
chmod 0440 /etc/sudoers.d/deploy
