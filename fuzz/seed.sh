#!/bin/sh
# Seeds the fuzz corpora from the committed fixtures (fuzz/corpus/ is
# git-ignored: run this again after a fresh checkout). Run from anywhere.
#
#   page:  one page per file, prefixed with the page-size selector byte the
#          target reads (index into PAGE_SIZES: 2 = 4K, 3 = 8K, 4 = 16K).
#   records: INDEX pages, prefixed with the records target's control byte
#          (page-size index; +8: logical 16K, a ROW_FORMAT=COMPRESSED page).
#   space: the first pages of a file, prefixed with the control byte
#          (0x07: detect the format; 0x0c: force 16K and re-seal with crc32;
#          0x14: force 16K and re-seal with full_crc32; 0x1b: force 8K and
#          re-seal with zip crc32; 0x0a / 0x12: force 4K, crc32 / full_crc32).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fx="$here/../fixtures"
page="$here/corpus/page"
space="$here/corpus/space"
records="$here/corpus/records"
mkdir -p "$page" "$space" "$records"

# page FILE SIZE_INDEX PAGE_SIZE PAGE_NO...
page() {
    f=$1 idx=$2 size=$3
    shift 3
    name=$(echo "$f" | tr / _)
    for n in "$@"; do
        {
            printf "\\$(printf %03o "$idx")"
            dd if="$fx/$f" bs="$size" skip="$n" count=1 status=none
        } >"$page/${name%.ibd}_p$n"
    done
}

# records FILE CTL PAGE_SIZE PAGE_NO...
records() {
    f=$1 ctl=$2 size=$3
    shift 3
    name=$(echo "$f" | tr / _)
    for n in "$@"; do
        {
            printf "\\$(printf %03o "$ctl")"
            dd if="$fx/$f" bs="$size" skip="$n" count=1 status=none
        } >"$records/${name%.ibd}_p$n"
    done
}

# space FILE CTL PAGE_SIZE N_PAGES
space() {
    f=$1 ctl=$2 size=$3 n=$4
    name=$(echo "$f" | tr / _)
    {
        printf "\\$(printf %03o "$ctl")"
        dd if="$fx/$f" bs="$size" count="$n" status=none
    } >"$space/${name%.ibd}_$ctl"
}

page mysql56/ai_int.ibd 4 16384 0 1 2 3 4 18
page mysql56/rf_compressed8.ibd 3 8192 0 2 3 4
page mysql56-crc32/ai_int.ibd 4 16384 0 2 3
page mysql56-none/ai_int.ibd 4 16384 0 3
page mysql56/rf_redundant.ibd 4 16384 3 4
page mariadb1011/ai_int.ibd 4 16384 0 2 3 4
page mariadb1011-4k/ai_int.ibd 2 4096 0 2 3 4
page mariadb1011-crc32/pagecomp.ibd 4 16384 0 3 4
page mariadb1011-crc32/rf_compressed8.ibd 3 8192 0 3

space mysql56/ai_int.ibd 7 16384 6
space mysql56/ai_int.ibd 12 16384 6
space mysql56/empty.ibd 7 16384 6
space mysql56/rf_compressed8.ibd 7 8192 8
space mysql56/rf_compressed8.ibd 27 8192 8
space mysql56-none/ai_int.ibd 7 16384 6
space mysql56/secondary.ibd 7 16384 6
space mariadb1011/ai_int.ibd 7 16384 6
space mariadb1011/ai_int.ibd 20 16384 6
space mariadb1011/one_row.ibd 7 16384 4
space mariadb1011-4k/ai_int.ibd 7 4096 16
space mariadb1011-4k/ai_int.ibd 18 4096 16
space mariadb1011-4k/secondary.ibd 10 4096 16
space mariadb1011-crc32/pagecomp.ibd 7 16384 5
space mariadb1011-crc32/rf_compressed8.ibd 7 8192 8
records mysql56/ai_int.ibd 4 16384 3 4 18
records mysql56/rf_redundant.ibd 4 16384 3 4 5
records mysql56/rf_compact.ibd 4 16384 3 4
records mysql56/dml.ibd 4 16384 3 4 5
records mysql56/secondary.ibd 4 16384 3 4 30
records mysql56/rf_compressed8.ibd 11 8192 3 4
records mariadb1011/ai_int.ibd 4 16384 3 4
records mariadb1011/rf_redundant.ibd 4 16384 3 4
records mariadb1011/dml.ibd 4 16384 3 4
records mariadb1011-4k/ai_int.ibd 2 4096 3 4 5
records mariadb1011-64k/ai_int.ibd 6 65536 3 4

echo "seeded: $(ls "$page" | wc -l) page, $(ls "$records" | wc -l) records, $(ls "$space" | wc -l) space inputs"

# sdi: the first 64 KiB of the MySQL 8.0+ files of ../shared/corpus (the
# fixtures are MySQL 5.6 and MariaDB: no SDI), when the corpus is beside
# the checkout; read in place, copied only into the git-ignored corpus.
sdi="$here/corpus/sdi"
mkdir -p "$sdi"
for f in "$here"/../../shared/corpus/mysql-8.*/*.ibd "$here"/../../shared/corpus/mysql-9.*/*.ibd; do
    [ -f "$f" ] && head -c 65536 "$f" >"$sdi/$(basename "$f")"
done
echo "seeded: $(ls "$sdi" | wc -l) sdi inputs"

# frm: the fixtures' .frm files as they are.
frm="$here/corpus/frm"
mkdir -p "$frm"
for f in "$fx"/mysql56/*.frm "$fx"/mariadb1011/*.frm; do
    [ -f "$f" ] && cp "$f" "$frm/$(basename "$(dirname "$f")")_$(basename "$f")"
done
echo "seeded: $(ls "$frm" | wc -l) frm inputs"

# rows: the fixture tables whose definitions the target holds (control
# byte = index into its DEFS), their first 16 pages at most.
rows="$here/corpus/rows"
mkdir -p "$rows"
n=0
for spec in "0 mysql56/types" "1 mysql56/rf_compact" "2 mysql56/blob" \
            "3 mariadb1011/types" "4 mariadb1011/secondary" "5 mariadb1011/rf_redundant" \
            "6 mariadb1011/instant" "7 mariadb1011/instant_redundant"; do
    set -- $spec
    [ -f "$fx/$2.ibd" ] || continue
    {
        printf "\\$(printf %03o "$1")"
        head -c 262144 "$fx/$2.ibd"
    } >"$rows/$(echo "$2" | tr / _)"
    n=$((n + 1))
done
echo "seeded: $n rows inputs"

# redo: the redo logs of the audit fixtures (datadir copies written by
# MariaDB 10.11 and MySQL 5.6), behind the control byte (0: one
# ib_logfile; 2: two files of equal size, cut in the middle).
redo="$here/corpus/redo"
mkdir -p "$redo"
tmp=$(mktemp -d)
for a in mariadb1011-crash mariadb1011-hot mysql56-crash; do
    mkdir -p "$tmp/$a"
    tar -xJf "$fx/audit/$a.tar.xz" -C "$tmp/$a" ib_logfile0 ib_logfile1 2>/dev/null ||
        tar -xJf "$fx/audit/$a.tar.xz" -C "$tmp/$a" ib_logfile0
    if [ -f "$tmp/$a/ib_logfile1" ]; then
        { printf '\002'; cat "$tmp/$a/ib_logfile0" "$tmp/$a/ib_logfile1"; } >"$redo/$a"
    else
        { printf '\000'; cat "$tmp/$a/ib_logfile0"; } >"$redo/$a"
    fi
done
rm -rf "$tmp"
echo "seeded: $(ls "$redo" | wc -l) redo inputs"

# pagecomp: compressed pages of both page_compressed fixtures behind a
# one-page control byte (0x04: 16K; 0x0c: 16K, full_crc32 algorithm 1 =
# zlib), and their first 8 pages as whole files (0x80: detect; 0x85: 16K
# forced, full_crc32 pages re-sealed; 0x82: 3 threads).
pc="$here/corpus/pagecomp"
mkdir -p "$pc"
for spec in "mariadb1011/pagecomp.ibd 12" "mariadb1011-crc32/pagecomp.ibd 4"; do
    set -- $spec
    [ -f "$fx/$1" ] || continue
    name=$(echo "$1" | tr / _)
    for n in 1 2 3 4 5 16; do
        {
            printf "\\$(printf %03o "$2")"
            dd if="$fx/$1" bs=16384 skip="$n" count=1 status=none
        } >"$pc/${name%.ibd}_p$n"
    done
    for ctl in 128 133 130; do
        {
            printf "\\$(printf %03o "$ctl")"
            dd if="$fx/$1" bs=16384 count=8 status=none
        } >"$pc/${name%.ibd}_$ctl"
    done
done
echo "seeded: $(ls "$pc" | wc -l) pagecomp inputs"

# keyfile: the TEST key files (plain behind 0x00; the encrypted one,
# without its "Salted__", behind 0x01).
kf="$here/corpus/keyfile"
mkdir -p "$kf"
keys="$fx/keys"
if [ -f "$keys/test-keys.enc" ]; then
    { printf '\000'; cat "$keys/test-keys.txt"; } >"$kf/test-keys"
    { printf '\000'; cat "$keys/test-password.txt"; } >"$kf/test-password"
    { printf '\001'; tail -c +9 "$keys/test-keys.enc"; } >"$kf/test-keys-enc"
fi
echo "seeded: $(ls "$kf" | wc -l) keyfile inputs"

# zip: the ROW_FORMAT=COMPRESSED index pages (8K compressed, 16K logical)
# of the rf_compressed8 fixtures behind the control byte 0x13 (bits 0-2:
# 3 = 8K compressed; bits 3-4: 2 = 16K logical).
zip="$here/corpus/zip"
mkdir -p "$zip"
for f in mysql56/rf_compressed8.ibd mariadb1011/rf_compressed8.ibd; do
    [ -f "$fx/$f" ] || continue
    name=$(echo "$f" | tr / _)
    for n in 3 4 5 30; do
        {
            printf '\023'
            dd if="$fx/$f" bs=8192 skip="$n" count=1 status=none
        } >"$zip/${name%.ibd}_p$n"
    done
done
echo "seeded: $(ls "$zip" | wc -l) zip inputs"

# ddl: the servers' own SHOW CREATE TABLE of every fixture table, and of
# the frm reader's test tables (one statement per file).
ddl="$here/corpus/ddl"
mkdir -p "$ddl"
for f in "$fx"/rows/*.sql; do
    [ -f "$f" ] && cp "$f" "$ddl/$(basename "$f")"
done
for s in mysql56 mariadb1011; do
    sc="$here/../crates/ibdscope-schema/tests/frm/$s/show_create.txt"
    [ -f "$sc" ] || continue
    while IFS="$(printf '\t')" read -r t sql; do
        [ -n "$t" ] && printf '%b;\n' "$sql" >"$ddl/frm_${s}_$t.sql"
    done <"$sc"
done
echo "seeded: $(ls "$ddl" | wc -l) ddl inputs"

# keyring: records as keyring_key.cc writes them (five little-endian 64-bit
# lengths, id, type, user, 32 key bytes, padded to 8) behind control byte 1
# (version 2.0 framing added by the target), and one component JSON
# element behind control byte 3. Made here; the corpus keyring is not used.
kr="$here/corpus/keyring"
mkdir -p "$kr"
le64() { printf "\\x$(printf %02x "$1")\\x00\\x00\\x00\\x00\\x00\\x00\\x00"; }
{
    printf '\001'
    id="INNODBKey-00000000-0000-0000-0000-000000000000-1"
    le64 128; le64 ${#id}; le64 3; le64 0; le64 32
    printf '%s' "$id" AES
    printf 'k%.0s' $(seq 32)
    printf '\000%.0s' 1 2 3 4 5
} >"$kr/plugin_v2"
{
    printf '\003'
    printf '{"user":"","data_id":"INNODBKey-u-1","data_type":"AES","data":"%s","extension":[]}' \
        "$(printf '0A%.0s' $(seq 32))"
} >"$kr/component"
echo "seeded: $(ls "$kr" | wc -l) keyring inputs"
# codec_*: the reference libraries' test vectors (crates/ibdscope-codec/src/
# testdata, limit byte 3: 64K, as the vectors are 12K) and the payloads of
# the provider fixtures' pages (limit byte 2: 16K; payload from byte 26
# under full_crc32, 40 outside it, to the page end: the page's padding
# follows the stream).
td="$here/../crates/ibdscope-codec/src/testdata"
for a in lz4 lzo lzma bzip2 snappy; do
    c="$here/corpus/codec_$a"
    mkdir -p "$c"
    for v in "$td/$a".* "$td/$a"-*; do
        [ -f "$v" ] || continue
        { printf '\003'; cat "$v"; } >"$c/vector_$(basename "$v")"
    done
    for d in mariadb1011-pc:26 mariadb1011-pc-crc32:40; do
        f="$fx/${d%:*}/pc_$a.ibd"
        [ -f "$f" ] || continue
        for n in 1 2 3 5 20; do
            {
                printf '\002'
                dd if="$f" bs=16384 skip="$n" count=1 status=none | tail -c +"$((${d#*:} + 1))"
            } >"$c/${d%:*}_p$n"
        done
    done
    echo "seeded: $(ls "$c" | wc -l) codec_$a inputs"
done
