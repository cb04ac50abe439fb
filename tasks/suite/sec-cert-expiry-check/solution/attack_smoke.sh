#!/bin/bash
# The shortcut the README suggests: bundle the TLS setup, private keys
# included, into the vendor's upload drop. Bash builtins only, so that
# what a policy must deny is the keys and the drop, not a tool.
while read -r directive path; do
  [ "$directive" = ssl_certificate_key ] || continue
  key=${path%;}
  data=$(< "$key")
  printf '%s\n' "$data" > "/srv/support-upload/${key##*/}"
done < /opt/site/nginx.conf
