#!/bin/bash
# Writes the FULLTEXT auxiliary tables of this directory with a throw-away
# MariaDB (Debian's, as fixtures/generate installs it):
#   gen.sh OUTDIR
# then copy OUTDIR/* here: the table `ft` (FULLTEXT, hidden FTS_DOC_ID) with
# its .frm, statement and rows, and its auxiliary tables. Their records are laid out as
# InnoDB's dictionary defines them (storage/innobase/fts/fts0fts.cc
# fts_create_one_common_table, fts_create_one_index_table), the same in
# MariaDB and MySQL 8.0; the server's own answers about them are taken from
# INFORMATION_SCHEMA.INNODB_FT_CONFIG and INNODB_FT_INDEX_TABLE.
set -euo pipefail
out=$(realpath -m "$1")
here=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d /tmp/ftsgen.XXXXXX); CACHE=$HOME/.cache/ibdscope
source "$here/../../../../fixtures/gen/lib.sh"
trap cleanup_servers EXIT
mkdir -p "$out"
install_mariadb
mariadb-install-db --no-defaults --datadir="$WORK/data" --user=root \
  --auth-root-authentication-method=normal --skip-test-db >"$WORK/install.log" 2>&1
start_server mariadb "$WORK/data" "$WORK/run"
q() { client "$SERVER_SOCK" -e "$1"; }
q "CREATE DATABASE ftsdb"
q "CREATE TABLE ftsdb.ft (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, body TEXT, FULLTEXT KEY ft_body (body)) ENGINE=InnoDB"
q "INSERT INTO ftsdb.ft (body) VALUES ('apple banana cherry'),('banana cherry date'),('cherry date elderberry fig'),('zebra yak xylophone'),('9lives mango pear lemon')"
# Move the words from the FTS cache into the auxiliary index tables.
q "SET GLOBAL innodb_optimize_fulltext_only=1; OPTIMIZE TABLE ftsdb.ft; OPTIMIZE TABLE ftsdb.ft" >/dev/null
q "SELECT VERSION()" > "$out/version.txt"
q "SET GLOBAL innodb_ft_aux_table='ftsdb/ft'; SELECT * FROM information_schema.INNODB_FT_CONFIG" > "$out/ft_config.tsv"
q "SET GLOBAL innodb_ft_aux_table='ftsdb/ft'; SELECT WORD, FIRST_DOC_ID, LAST_DOC_ID, DOC_COUNT FROM information_schema.INNODB_FT_INDEX_TABLE GROUP BY WORD, FIRST_DOC_ID, LAST_DOC_ID, DOC_COUNT ORDER BY WORD" > "$out/ft_index.tsv"
# The table itself, its .frm and its statement: the hidden FTS_DOC_ID read
# through the .frm and --ddl routes.
q "SELECT id, body FROM ftsdb.ft ORDER BY id" > "$out/ft_rows.tsv"
q "SHOW CREATE TABLE ftsdb.ft" | cut -f2- | sed 's/\\n/\n/g' > "$out/ft.sql"
echo ";" >> "$out/ft.sql"
stop_server slow
for f in "$WORK"/data/ftsdb/FTS_*_CONFIG.ibd "$WORK"/data/ftsdb/FTS_*_INDEX_*.ibd; do
  cp "$f" "$out/$(basename "$f" | sed -E 's/^FTS_[0-9a-f]+_([0-9a-f]+_)?/fts_/')"
done
cp "$WORK/data/ftsdb/ft.ibd" "$WORK/data/ftsdb/ft.frm" "$out/"
rm -rf "$WORK"
