#!/bin/sh
# Regenerates the gallery pictures from the fixtures:
#   cargo build --release && sh docs/gallery/make.sh
set -eu
cd "$(dirname "$0")/../.."
bin=${IBDSCOPE:-target/release/ibdscope}
out=docs/gallery
for server in mysql56 mariadb1011; do
    small="fixtures/$server/ai_int.ibd fixtures/$server/seq_int.ibd fixtures/$server/ulid_char26.ibd fixtures/$server/uuid_bin16.ibd fixtures/$server/uuid_char36.ibd"
    for metric in extents lsn fill; do
        # shellcheck disable=SC2086
        "$bin" compare --metric $metric $small --out "$out/$server-compare-$metric.png" >/dev/null
    done
    for cmd in extents lsn fill; do
        "$bin" $cmd "fixtures/$server/uuid_char36_large.ibd" --out "$out/$server-large-$cmd.png" >/dev/null
    done
done
# The README's first picture, by the command the README shows.
"$bin" compare --metric lsn fixtures/mysql56/ai_int.ibd fixtures/mysql56/seq_int.ibd \
    fixtures/mysql56/ulid_char26.ibd fixtures/mysql56/uuid_char36.ibd --out docs/key-order-lsn.png >/dev/null
# plotters writes quickly compressed PNGs; optipng (Debian: optipng) makes
# them about five times smaller, losslessly.
if command -v optipng >/dev/null; then optipng -quiet -o2 "$out"/*.png; fi
ls -l "$out"
