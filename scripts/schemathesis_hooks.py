"""Schemathesis hooks of scripts/schemathesis.sh (loaded by scripts/schemathesis.toml's `hooks`).

Only positive cases (data the document says is valid) are touched, and only for rules that the
document states but JSON Schema cannot express per parameter; each rule is read from the document
itself (src/http/openapi/document.ts, parameters.ts), never listed here:
- `x-opaque-token` on a parameter schema (`cursor`): only a `next_cursor` the API returned is valid,
  so a generated value is not valid data; positive cases carrying one are dropped. Negative cases
  (malformed cursors) still run, and every list's paging is tested with real cursors by npm test.
- `x-exclusive-parameters`: at most one of each set (GET /v1/events: after_sequence or cursor).
- `x-ordered-parameters`: the first must be earlier than the second (created_after < created_before).
- `x-max-entries` on a body property (`metadata`): entries in all levels together (the API counts
  nested keys and array items; JSON Schema counts one level).
- `x-public-host` on a body property (webhook `url`): the host must be a public address or resolve
  only to public addresses when the API checks it; this machine's DNS decides, as the API's does.
"""

import ipaddress
import socket
from datetime import date, datetime, timezone
from urllib.parse import urlsplit

import schemathesis


def _instant(text):
    try:
        if len(text) == 10:
            d = date.fromisoformat(text)
            return datetime(d.year, d.month, d.day, tzinfo=timezone.utc)
        return datetime.fromisoformat(text)
    except (TypeError, ValueError, OverflowError):
        return None


def _parameters(raw):
    for parameter in raw.get("parameters", []):
        if isinstance(parameter, dict) and "name" in parameter:
            yield parameter


def _entries(value):
    total, stack = 0, [value]
    while stack:
        current = stack.pop()
        children = list(current.values()) if isinstance(current, dict) else current if isinstance(current, list) else []
        total += len(children)
        stack.extend(children)
    return total


def _is_public(address):
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def _public_host(url):
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return True  # not a URL: the API refuses it, as the document does
    if not host:
        return True
    try:
        ipaddress.ip_address(host)
        return _is_public(host)
    except ValueError:
        pass
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, 443, proto=socket.IPPROTO_TCP)}
    except (OSError, UnicodeError):
        return False
    return bool(addresses) and all(_is_public(a) for a in addresses)


def _body_rules(schema, body):
    if not isinstance(schema, dict) or not isinstance(body, dict):
        return True
    for name, rule in (schema.get("properties") or {}).items():
        if name not in body or not isinstance(rule, dict):
            continue
        limit = rule.get("x-max-entries")
        if limit is not None and _entries(body[name]) > limit:
            return False
        if rule.get("x-public-host") and isinstance(body[name], str) and not _public_host(body[name]):
            return False
    return True


@schemathesis.hook
def filter_case(context, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return True
    raw = case.operation.definition.raw
    query = case.query or {}
    for parameter in _parameters(raw):
        if parameter.get("in") == "query" and parameter["name"] in query and (parameter.get("schema") or {}).get("x-opaque-token"):
            return False
    for names in raw.get("x-exclusive-parameters", []):
        if sum(1 for name in names if name in query) > 1:
            return False
    for first, second in raw.get("x-ordered-parameters", []):
        if first in query and second in query:
            a, b = _instant(str(query[first])), _instant(str(query[second]))
            if a is not None and b is not None and a >= b:
                return False
    body = ((raw.get("requestBody") or {}).get("content") or {}).get("application/json", {}).get("schema")
    return _body_rules(body, case.body)
