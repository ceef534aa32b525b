#!/bin/sh
# The scale profile's db-replica, on its first start only (docker-entrypoint-initdb.d): makes it
# a GTID replica of db. The replication user is created on db (as root there); the service's
# user gets REPLICATION CLIENT here, to read the replica's state and lag (SHOW REPLICA STATUS).
set -eu

until mysqladmin ping --host=db --user=root --password="$PRIMARY_ROOT_PASSWORD" --silent; do
  sleep 1
done
mysql --host=db --user=root --password="$PRIMARY_ROOT_PASSWORD" <<SQL
CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED BY '$REPLICATION_PASSWORD';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%';
SQL

mysql --user=root --password="$MYSQL_ROOT_PASSWORD" <<SQL
SET sql_log_bin = 0;
GRANT REPLICATION CLIENT ON *.* TO '$MYSQL_USER'@'%';
CHANGE REPLICATION SOURCE TO
  SOURCE_HOST = 'db', SOURCE_PORT = 3306,
  SOURCE_USER = 'repl', SOURCE_PASSWORD = '$REPLICATION_PASSWORD',
  SOURCE_AUTO_POSITION = 1, GET_SOURCE_PUBLIC_KEY = 1;
START REPLICA;
SQL
