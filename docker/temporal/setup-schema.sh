#!/bin/sh
# One-shot (temporalio/admin-tools): creates or updates Temporal's PostgreSQL schemas before the
# server starts. Idempotent: setup-schema keeps a newer version, update-schema applies only what is
# missing. Runs as the `temporal` role, which owns both databases (docker/postgres/init-roles.sh).
# Env: POSTGRES_SEEDS, DB_PORT, POSTGRES_USER, SQL_PASSWORD (read by temporal-sql-tool itself).
set -eu
: "${POSTGRES_SEEDS:?POSTGRES_SEEDS is required}"
: "${POSTGRES_USER:?POSTGRES_USER is required}"
: "${SQL_PASSWORD:?SQL_PASSWORD is required}"
SCHEMA_DIR=/etc/temporal/schema/postgresql/v12

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" -u "$POSTGRES_USER" "$@"
}

for attempt in $(seq 1 30); do
  nc -z -w 5 "$POSTGRES_SEEDS" "${DB_PORT:-5432}" && break
  [ "$attempt" = 30 ] && { echo "setup-schema: PostgreSQL at $POSTGRES_SEEDS:${DB_PORT:-5432} is not reachable" >&2; exit 1; }
  sleep 2
done

sql_tool --db temporal setup-schema -v 0.0
sql_tool --db temporal update-schema -d "$SCHEMA_DIR/temporal/versioned"
sql_tool --db temporal_visibility setup-schema -v 0.0
sql_tool --db temporal_visibility update-schema -d "$SCHEMA_DIR/visibility/versioned"
echo "setup-schema: temporal and temporal_visibility are up to date"
