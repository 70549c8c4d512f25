#!/usr/bin/env bash
# Creates the per-service database roles of docker-compose.yml (see roles.sql) and Temporal's two
# databases. The postgres image runs it once, on a new data volume, from /docker-entrypoint-initdb.d;
# it is idempotent, so on an existing volume run it by hand (it also re-sets the passwords):
#   docker compose exec postgresql bash /docker-entrypoint-initdb.d/10-init-roles.sh
# Env (from docker-compose.yml): POSTGRES_USER, POSTGRES_DB, PAYMENTS_MIGRATOR_DB_PASSWORD,
#   PAYMENTS_API_DB_PASSWORD, PAYMENTS_WORKER_DB_PASSWORD, TEMPORAL_DB_PASSWORD; ROLES_SQL (default: roles.sql beside this script).
set -euo pipefail

for var in PAYMENTS_MIGRATOR_DB_PASSWORD PAYMENTS_API_DB_PASSWORD PAYMENTS_WORKER_DB_PASSWORD TEMPORAL_DB_PASSWORD; do
  if [ -z "${!var:-}" ]; then
    echo "init-roles.sh: $var is not set" >&2
    exit 1
  fi
done

DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
APP_DB="${POSTGRES_DB:-payments}"
psql_as_superuser() { psql -v ON_ERROR_STOP=1 --no-psqlrc --quiet --username "${POSTGRES_USER:-postgres}" "$@"; }

psql_as_superuser --dbname "$APP_DB" -f "${ROLES_SQL:-$DIR/roles.sql}"

# Passwords go through psql variables (quoted by psql), never through the command line of a query.
psql_as_superuser --dbname "$APP_DB" \
  -v migrator_pw="$PAYMENTS_MIGRATOR_DB_PASSWORD" -v api_pw="$PAYMENTS_API_DB_PASSWORD" \
  -v worker_pw="$PAYMENTS_WORKER_DB_PASSWORD" -v temporal_pw="$TEMPORAL_DB_PASSWORD" <<'SQL'
ALTER ROLE payments_migrator PASSWORD :'migrator_pw';
ALTER ROLE payments_api PASSWORD :'api_pw';
ALTER ROLE payments_worker PASSWORD :'worker_pw';
ALTER ROLE temporal PASSWORD :'temporal_pw';
SQL

# Temporal's databases, owned by its role (so it owns their `public` schema and can run
# temporal-sql-tool's setup-schema/update-schema), closed to every other role.
for db in temporal temporal_visibility; do
  psql_as_superuser --dbname "$APP_DB" -v db="$db" <<'SQL'
SELECT format('CREATE DATABASE %I OWNER temporal', :'db') WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = :'db') \gexec
SELECT format('ALTER DATABASE %I OWNER TO temporal', :'db') \gexec
SELECT format('REVOKE ALL ON DATABASE %I FROM PUBLIC', :'db') \gexec
SQL
done
echo "init-roles.sh: roles payments_migrator, payments_api, payments_worker and temporal are ready"
