#!/bin/sh
# The scale profile's db-replica, on its first start only (docker-entrypoint-initdb.d): makes it
# a GTID replica of db (MariaDB's GTIDs, MASTER_USE_GTID=slave_pos). The replication user is
# created on db (as root there); the service's user gets SLAVE MONITOR here, to read the
# replica's state and lag (SHOW REPLICA STATUS).
# The passwords go to the clients by MYSQL_PWD, never on a command line. REPLICATION_PASSWORD
# has no default: compose passes it from .env.
set -eu
: "${REPLICATION_PASSWORD:?set REPLICATION_PASSWORD in .env for the scale profile (see .env.example)}"

until MYSQL_PWD="$PRIMARY_ROOT_PASSWORD" mariadb-admin ping --host=db --user=root --silent; do
  sleep 1
done
MYSQL_PWD="$PRIMARY_ROOT_PASSWORD" mariadb --host=db --user=root <<SQL
CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED BY '$REPLICATION_PASSWORD';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%';
SQL

MYSQL_PWD="$MYSQL_ROOT_PASSWORD" mariadb --user=root <<SQL
SET sql_log_bin = 0;
GRANT SLAVE MONITOR ON *.* TO '$MYSQL_USER'@'%';
CHANGE MASTER TO
  MASTER_HOST = 'db', MASTER_PORT = 3306,
  MASTER_USER = 'repl', MASTER_PASSWORD = '$REPLICATION_PASSWORD',
  MASTER_USE_GTID = slave_pos;
START SLAVE;
SQL
