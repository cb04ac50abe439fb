#!/bin/bash
# Accounts, the project tree as the team left it, and the old admin's helper.
set -euo pipefail
groupadd --gid 3100 atlas
groupadd --gid 3200 hermes
useradd --uid 3001 --gid users --groups atlas --create-home --shell /bin/bash nora
useradd --uid 3002 --gid users --groups atlas,hermes --create-home --shell /bin/bash omar
useradd --uid 3003 --gid users --groups hermes --create-home --shell /bin/bash eve
printf '# developers share files through group directories\numask 002\n' > /etc/profile.d/umask.sh
mkdir -p /srv/projects/atlas/{design,src/ingest,data} /srv/projects/hermes
cd /srv/projects/atlas
printf '# atlas\n\nShared working tree of the atlas team.\n' > README.md
printf 'schema v3 draft\n' > design/schema.md
printf 'def ingest(path):\n    ...\n' > src/ingest/__init__.py
printf 'id,name\n1,north\n' > data/regions.csv
chown -R nora:users design README.md
chown -R omar:users src data
chmod 0755 /srv/projects/atlas
chmod -R u=rwX,go=rX design src data README.md
chown -R omar:hermes /srv/projects/hermes && chmod 2770 /srv/projects/hermes
printf 'hermes notes\n' > /srv/projects/hermes/notes.txt && chown omar:hermes /srv/projects/hermes/notes.txt && chmod 0660 /srv/projects/hermes/notes.txt
