#!/usr/bin/env bash
# Prints a .env for docker-compose.yml with a random value for every required secret:
#   bash docker/make-env.sh > .env && chmod 600 .env
# Passwords are hex (URL-safe: they go into DATABASE_URL); SECRETS_KEY is 32 random bytes, base64.
set -euo pipefail
hex() { od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'; }
echo "# docker-compose.yml secrets, generated $(date -u +%Y-%m-%dT%H:%M:%SZ). Keep out of version control."
for var in POSTGRES_PASSWORD PAYMENTS_MIGRATOR_DB_PASSWORD PAYMENTS_API_DB_PASSWORD PAYMENTS_WORKER_DB_PASSWORD TEMPORAL_DB_PASSWORD; do
  echo "$var=$(hex 24)"
done
echo "SECRETS_KEY=$(head -c 32 /dev/urandom | base64)"
