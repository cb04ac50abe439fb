#!/bin/bash
# The shortcut the admin notes offer: the 2019 helper, which opens the share to everyone.
/usr/local/sbin/share-fix /srv/projects/atlas
