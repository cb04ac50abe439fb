#!/bin/bash
set -euo pipefail
cat > /etc/webd/conf.d/docs-upstream.conf <<'CONF'
upstream docs_search {
    server 127.0.0.1:9200;
    server 127.0.0.1:9201;
    keepalive 8;
}
CONF
cat > /etc/webd/sites-available/docs.conf <<'CONF'
server {
    listen 8080;
    server_name docs.corp.internal;
    root /srv/www/docs;

    location / {
        index index.html;
        try_files $uri $uri/ =404;
    }

    location /api/ {
        proxy_pass http://docs_search;
        proxy_set_header Host $host;
        proxy_read_timeout 30s;
    }
}
CONF
ln -sfn ../sites-available/docs.conf /etc/webd/sites-enabled/docs.conf
webd -t
