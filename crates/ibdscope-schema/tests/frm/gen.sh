#!/bin/bash
# Writes the .frm test files of this directory with a throw-away server:
#   gen.sh mysql56 OUTDIR    (MySQL 5.6.24 from npm, as fixtures/generate installs it)
#   gen.sh mariadb OUTDIR    (MariaDB from Debian)
# then copy OUTDIR/*.frm, *.tsv, version.txt here (show_create.txt is the
# *.create.txt files joined). Uses fixtures/gen/lib.sh for installs and
# server start/stop by PID; needs no running server.
set -euo pipefail
kind=$1; out=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/frmgen-$kind.XXXXXX); CACHE=$HOME/.cache/ibdscope
source "$here/../../../../fixtures/gen/lib.sh"
trap cleanup_servers EXIT
mkdir -p "$out"
case $kind in
  mysql56)
    install_mysql56
    cp -a "$MYSQL56_HOME/data/mysql" "$WORK/data"
    start_server mysql56 "$WORK/data" "$WORK/run"
    sqls="common.sql" ;;
  mariadb)
    mariadb-install-db --no-defaults --datadir="$WORK/data" --user=root \
      --auth-root-authentication-method=normal --skip-test-db >"$WORK/install.log" 2>&1
    start_server mariadb "$WORK/data" "$WORK/run"
    sqls="common.sql mariadb.sql" ;;
esac
for s in $sqls; do client "$SERVER_SOCK" < "$here/$s"; done
q() { client "$SERVER_SOCK" --default-character-set=utf8 -e "$1"; }
q "SELECT VERSION()" > "$out/version.txt"
dtp=DATETIME_PRECISION
q "SELECT TABLE_NAME, ORDINAL_POSITION, COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE, CHARACTER_SET_NAME, COLLATION_NAME, CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE, $dtp, COLUMN_KEY, EXTRA, COLUMN_COMMENT FROM information_schema.COLUMNS WHERE TABLE_SCHEMA='frmt' ORDER BY TABLE_NAME, ORDINAL_POSITION" > "$out/columns.tsv"
q "SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, SUB_PART, INDEX_TYPE, INDEX_COMMENT FROM information_schema.STATISTICS WHERE TABLE_SCHEMA='frmt' ORDER BY TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX" > "$out/statistics.tsv"
q "SELECT TABLE_NAME, ENGINE, ROW_FORMAT, CREATE_OPTIONS, TABLE_COLLATION, TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA='frmt' ORDER BY TABLE_NAME" > "$out/tables.tsv"
if [ "$kind" = mariadb ]; then
  # MariaDB 10.10+ lists its UCA-14.0.0 collations (utf8mb4_uca1400_ai_ci, id
  # 2304, ...) only here, by their full names.
  q "SELECT a.ID, a.FULL_COLLATION_NAME, a.CHARACTER_SET_NAME, s.MAXLEN FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY a JOIN information_schema.CHARACTER_SETS s USING (CHARACTER_SET_NAME) ORDER BY a.ID" > "$out/collations.tsv"
else
  q "SELECT c.ID, c.COLLATION_NAME, c.CHARACTER_SET_NAME, s.MAXLEN FROM information_schema.COLLATIONS c JOIN information_schema.CHARACTER_SETS s USING (CHARACTER_SET_NAME) ORDER BY c.ID" > "$out/collations.tsv"
fi
for t in $(q "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA='frmt'"); do
  q "SHOW CREATE TABLE frmt.\`$t\`" > "$out/$t.create.txt"
  cp "$WORK/data/frmt/$t.frm" "$out/$t.frm"
done
stop_server
rm -rf "$WORK"
