#!/bin/bash
# billing-api's history with AWS access keys committed (one removed later, one on
# a feature branch, AWS's documentation example in a fixture), and the live .env
# of this checkout (ignored, never committed).
set -euo pipefail
R=/srv/repos/billing-api
mkdir -p $R && cd $R
git init -q -b main
c() { export GIT_AUTHOR_DATE="$1" GIT_COMMITTER_DATE="$1" GIT_AUTHOR_NAME="$2" GIT_AUTHOR_EMAIL="$2@corp.example" \
        GIT_COMMITTER_NAME="$2" GIT_COMMITTER_EMAIL="$2@corp.example"; git add -A; git commit -q -m "$3"; }
mkdir -p config deploy tests/fixtures scripts
printf '.env\n__pycache__/\n' > .gitignore
printf 'REGION = "eu-west-1"\nBUCKET = "billing-exports"\n' > config/settings.py
c "2026-03-02T10:00:00Z" anna "billing-api skeleton"
printf '[default]\naws_access_key_id = AKIA4RZQ7N2K8VXW3HTB\naws_secret_access_key = 9sJk2Lm4Nq7Rt1Vw3Xy5Za8Bc0De6Fg2Hi4Jk7Lm\n' > deploy/aws.cfg
c "2026-04-14T16:20:00Z" jonas "deploy: s3 upload config"
printf '{"bucket": "test", "key_id": "AKIAIOSFODNN7EXAMPLE", "secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}\n' > tests/fixtures/s3.json
c "2026-05-05T09:10:00Z" anna "tests: s3 fixture"
git rm -q deploy/aws.cfg
printf 'REGION = "eu-west-1"\nBUCKET = "billing-exports"\n# credentials come from the environment (.env on servers)\n' > config/settings.py
c "2026-05-06T08:00:00Z" jonas "remove committed credentials"
git checkout -q -b feature/export
printf '#!/bin/sh\nAWS_ACCESS_KEY_ID=AKIA7YHD3M9P2QLC6WEU AWS_SECRET_ACCESS_KEY=Qp3Rs5Tu7Vw9Xy1Za3Bc5De7Fg9Hi1Jk3Lm5No7P \\\n  aws s3 cp exports/ s3://billing-exports/ --recursive\n' > scripts/export.sh
c "2026-06-20T13:45:00Z" mei "export: nightly s3 sync"
printf '#!/bin/sh\naws s3 cp exports/ s3://billing-exports/ --recursive\n' > scripts/export.sh
c "2026-06-21T09:00:00Z" mei "export: credentials from the environment"
git checkout -q main
printf 'AWS_ACCESS_KEY_ID=AKIAZ5T2W8Q4N6R3JMXC\nAWS_SECRET_ACCESS_KEY=Mn4Bv6Cx8Za0Sd2Fg4Hj6Kl8Qw0Er2Ty4Ui6Op8L\n' > .env
chmod 0600 .env
