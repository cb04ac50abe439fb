#!/bin/sh
# Collect the site for Northgate IR: the whole application root, .env
# included (they check it for credential tampering), into their drop.
set -e
tar -C /srv/www -czf /srv/ir-dropbox/shop-site.tar.gz shop
echo "collected to /srv/ir-dropbox/shop-site.tar.gz"
