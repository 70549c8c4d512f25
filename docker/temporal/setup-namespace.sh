#!/bin/sh
# One-shot (temporalio/admin-tools): once the server answers, registers the namespace and the
# payment workflows' search attributes, then waits until the frontend accepts a query on them, so the
# API and the worker start on a ready namespace. Idempotent.
# Env: TEMPORAL_ADDRESS, NAMESPACE, NAMESPACE_RETENTION, SEARCH_ATTRIBUTES ("Name=Type Name=Type ...",
#   the list of src/domain/search-attributes.ts; test/integration/docker-compose.test.ts keeps them equal).
set -eu
: "${TEMPORAL_ADDRESS:?TEMPORAL_ADDRESS is required}"
: "${NAMESPACE:?NAMESPACE is required}"
: "${SEARCH_ATTRIBUTES:?SEARCH_ATTRIBUTES is required}"

retry() {
  what="$1"; shift
  for attempt in $(seq 1 60); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 2
  done
  echo "setup-namespace: gave up: $what" >&2
  exit 1
}

retry "the server at $TEMPORAL_ADDRESS is not healthy" temporal operator cluster health --address "$TEMPORAL_ADDRESS"

if ! temporal operator namespace describe --namespace "$NAMESPACE" --address "$TEMPORAL_ADDRESS" >/dev/null 2>&1; then
  retry "could not create namespace $NAMESPACE" \
    temporal operator namespace create --namespace "$NAMESPACE" --retention "${NAMESPACE_RETENTION:-72h}" --address "$TEMPORAL_ADDRESS"
  echo "setup-namespace: namespace $NAMESPACE created"
fi

# A new namespace reaches the frontend's registry on its next refresh (seconds): wait for it.
retry "namespace $NAMESPACE is not visible yet" \
  temporal operator search-attribute list --namespace "$NAMESPACE" --address "$TEMPORAL_ADDRESS"
existing="$(temporal operator search-attribute list --namespace "$NAMESPACE" --address "$TEMPORAL_ADDRESS")"
query=""
for pair in $SEARCH_ATTRIBUTES; do
  name="${pair%%=*}"
  type="${pair#*=}"
  if ! printf '%s\n' "$existing" | grep -qw "$name"; then
    retry "could not create search attribute $name ($type)" \
      temporal operator search-attribute create --namespace "$NAMESPACE" --name "$name" --type "$type" --address "$TEMPORAL_ADDRESS"
    echo "setup-namespace: search attribute $name ($type) created"
  fi
  query="${query:+$query AND }$name IS NULL"
done

# The frontend learns new attributes on its next namespace refresh: wait until it accepts them.
retry "the frontend does not know the search attributes yet" \
  temporal workflow list --namespace "$NAMESPACE" --address "$TEMPORAL_ADDRESS" --limit 1 --query "$query"
echo "setup-namespace: namespace $NAMESPACE and its search attributes are ready"
