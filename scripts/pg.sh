#!/usr/bin/env bash
# A throwaway PostgreSQL server from Debian's packages (postgresql, which
# scripts/setup.sh installs), for the store's tests against a real server:
#
#   scripts/pg.sh start DIR    make a cluster in DIR, start it on a Unix
#                              socket in DIR (no TCP), print its URL
#   scripts/pg.sh stop DIR     stop it (DIR stays; rm -rf it after)
#
# .ci/run starts one and exports its URL as ROUNDBENCH_TEST_PG_URL; without
# that, tests/test_store.py starts one of its own in a temporary folder.
# As root, the server runs as Debian's postgres user (it refuses root).
set -euo pipefail
cmd=${1:?usage: scripts/pg.sh start|stop DIR}
dir=${2:?usage: scripts/pg.sh start|stop DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "pg.sh: no PostgreSQL server here (apt-get install postgresql)" >&2
  exit 3
fi
as=()
if [ "$(id -u)" -eq 0 ]; then
  id postgres >/dev/null 2>&1 || { echo "pg.sh: root, and no postgres user to run the server as" >&2; exit 3; }
  as=(runuser -u postgres --)
fi
case "$cmd" in
  start)
    mkdir -p "$dir"
    [ ${#as[@]} -eq 0 ] || chown postgres: "$dir"
    if [ ! -s "$dir/data/PG_VERSION" ]; then
      "${as[@]}" "$bin/initdb" -D "$dir/data" -U roundbench --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off" start >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://roundbench@/postgres?host=$dir"
    ;;
  stop)
    "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  *)
    echo "usage: scripts/pg.sh start|stop DIR" >&2
    exit 2
    ;;
esac
