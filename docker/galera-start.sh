#!/bin/bash
# How a node of the cluster profile starts (docker-compose.yml: each Galera node's entrypoint, in
# front of the image's own docker-entrypoint.sh, which it runs last with the node's command):
#
#   galera-start.sh docker-entrypoint.sh mariadbd --wsrep-node-name=galera-1 …
#
# It decides whether the node starts a new cluster (--wsrep-new-cluster) or joins one:
#
# - a new cluster from an empty datadir only on the founding node (GALERA_FOUNDER=true: galera-1),
#   and only while no other node of wsrep_cluster_address answers on its group port: a founder
#   whose volume was lost while the others run joins them (a state transfer) instead of starting a
#   second cluster beside them;
# - a new cluster from its data on the node whose grastate.dat says safe_to_bootstrap: 1 (MariaDB
#   marks the node that left the cluster last, holding every commit: galera_new_cluster's rule);
# - otherwise it joins. After a crash or a kill (grastate.dat says seqno: -1) it first recovers
#   its position from InnoDB (mariadbd --wsrep-recover, as MariaDB's galera_recovery does before
#   the packaged service starts), so that it catches up by IST rather than a whole state transfer.
#   When no node runs and none is marked safe (every node crashed), Galera's own pc.recovery
#   brings the last primary component back once all its nodes are up again; otherwise an
#   operator chooses the node to bootstrap (docs/operations.md, "The cluster profile").
#
# It also writes the two settings that hold the root password, so that neither is on a command
# line (docker inspect, ps): wsrep_sst_auth for mariabackup's state transfers, in a server option
# file only the server's user reads, and the health check's client settings (root over the
# socket: a joiner's datadir comes whole from its donor, the image's own healthcheck user and
# its .my-healthcheck.cnf with it, so that file cannot serve every node), only root reads.
#
# Settings (the defaults are the image's): DATADIR (/var/lib/mysql), GALERA_CNF
# (/etc/mysql/conf.d/galera.cnf, for wsrep_cluster_address), GALERA_SECRETS_CNF
# (/etc/mysql/conf.d/zz-galera-secrets.cnf), GALERA_HEALTHCHECK_CNF (/run/galera/healthcheck.cnf),
# MARIADBD (mariadbd, for the recovery), MYSQL_ROOT_PASSWORD (required), GALERA_FOUNDER.
# test/ops/deploy/galera-start.spec.ts runs it against fixture datadirs.
set -euo pipefail

DATADIR=${DATADIR:-/var/lib/mysql}
GALERA_CNF=${GALERA_CNF:-/etc/mysql/conf.d/galera.cnf}
GALERA_SECRETS_CNF=${GALERA_SECRETS_CNF:-/etc/mysql/conf.d/zz-galera-secrets.cnf}
GALERA_HEALTHCHECK_CNF=${GALERA_HEALTHCHECK_CNF:-/run/galera/healthcheck.cnf}
MARIADBD=${MARIADBD:-mariadbd}
GROUP_PORT=4567

say() { echo "galera-start: $*" >&2; }

if [ -z "${MYSQL_ROOT_PASSWORD:-}" ]; then
  say 'MYSQL_ROOT_PASSWORD is not set (docker-compose.yml passes it from .env)'
  exit 1
fi

# This node's name (--wsrep-node-name), to leave it out of the others.
node=${HOSTNAME:-}
for arg in "$@"; do
  case "$arg" in --wsrep-node-name=* | --wsrep_node_name=*) node=${arg#*=} ;; esac
done

# An option file value: in double quotes, its backslashes and double quotes escaped.
quoted() {
  local value=${1//\\/\\\\}
  printf '"%s"' "${value//\"/\\\"}"
}

write_secrets() {
  local owner=mysql
  id -u mysql > /dev/null 2>&1 || owner=$(id -un)
  mkdir -p "$(dirname "$GALERA_SECRETS_CNF")" "$(dirname "$GALERA_HEALTHCHECK_CNF")"
  (
    umask 077
    printf '[mariadb]\nwsrep_sst_auth = %s\n' "$(quoted "root:$MYSQL_ROOT_PASSWORD")" \
      > "$GALERA_SECRETS_CNF"
    printf '[mariadb-client]\nuser = root\npassword = %s\n' "$(quoted "$MYSQL_ROOT_PASSWORD")" \
      > "$GALERA_HEALTHCHECK_CNF"
  )
  chown "$owner" "$GALERA_SECRETS_CNF"
}

# The other nodes of wsrep_cluster_address (gcomm://a,b:4567,c), as host:port.
peers() {
  local address
  address=$(sed -n 's/^[[:space:]]*wsrep_cluster_address[[:space:]]*=[[:space:]]*"\{0,1\}gcomm:\/\/\([^"[:space:]]*\).*/\1/p' \
    "$GALERA_CNF" | tail -n 1)
  local IFS=','
  for peer in $address; do
    [ -z "$peer" ] && continue
    local host=${peer%%:*} port=$GROUP_PORT
    [ "$host" != "$peer" ] && port=${peer#*:}
    [ "$host" = "$node" ] && continue
    echo "$host:$port"
  done
}

# Whether any other node answers on its group port (a cluster runs, or a node is starting).
a_peer_answers() {
  local peer
  for peer in $(peers); do
    if timeout 2 bash -c "exec 3<>/dev/tcp/${peer%:*}/${peer##*:}" 2> /dev/null; then
      say "$peer answers"
      return 0
    fi
  done
  return 1
}

# grastate.dat's value of $1 (seqno, safe_to_bootstrap), empty without one.
grastate() {
  [ -f "$DATADIR/grastate.dat" ] || return 0
  sed -n "s/^$1:[[:space:]]*\([^[:space:]]*\).*/\1/p" "$DATADIR/grastate.dat" | tail -n 1
}

# After a crash: the position InnoDB holds (uuid:seqno), as galera_recovery finds it.
recovered_position() {
  local log
  log=$(mktemp /tmp/wsrep-recover.XXXXXX)
  local as=()
  [ "$(id -u)" = 0 ] && id -u mysql > /dev/null 2>&1 && as=(--user=mysql) && chown mysql "$log"
  if ! timeout 300 "$MARIADBD" "${as[@]}" --wsrep-recover --log-error="$log" > /dev/null 2>&1; then
    say "the position recovery failed: $(tail -n 5 "$log")"
  fi
  sed -n 's/.*WSREP: Recovered position:[[:space:]]*\([0-9a-f-]\{36\}:-\{0,1\}[0-9]\{1,\}\).*/\1/p' \
    "$log" | tail -n 1
  rm -f "$log"
}

write_secrets

extra=()
if [ ! -f "$DATADIR/grastate.dat" ]; then
  if [ "${GALERA_FOUNDER:-false}" = true ] && ! a_peer_answers; then
    say "$node: a new datadir and no other node answers: starting a new cluster"
    extra=(--wsrep-new-cluster)
  else
    say "$node: a new datadir: joining the cluster (a state transfer)"
  fi
elif [ "$(grastate safe_to_bootstrap)" = 1 ]; then
  say "$node: grastate.dat says safe_to_bootstrap: 1 (it left the cluster last): starting the cluster again from its data"
  extra=(--wsrep-new-cluster)
else
  if [ "$(grastate seqno)" = -1 ]; then
    position=$(recovered_position)
    if [ -n "$position" ]; then
      say "$node: not shut down cleanly; recovered position $position"
      extra=(--wsrep-start-position="$position")
    fi
  fi
  say "$node: joining the cluster (not safe_to_bootstrap: when no node runs, see docs/operations.md)"
fi

exec "$@" "${extra[@]}"
