#!/usr/bin/env python3
"""Writes inflate_vectors.txt: inputs compressed by a real zlib (CPython's),
covering every DEFLATE block type and zlib's strategies. Run once; the
output is committed and read by crates/ibdscope-codec/src/inflate.rs's tests."""
import os
import random
import zlib

r = random.Random(20261122)
lines = [
    "# Inflate test vectors made by CPython's zlib %s (runtime %s), seed 20261122,"
    % (zlib.ZLIB_VERSION, zlib.ZLIB_RUNTIME_VERSION),
    "# by make_inflate_vectors.py. name hex(plain) hex(zlib stream)",
]


def add(name, data, level=6, strategy=zlib.Z_DEFAULT_STRATEGY, wbits=15, mem=8):
    c = zlib.compressobj(level, zlib.DEFLATED, wbits, mem, strategy)
    z = c.compress(data) + c.flush()
    assert zlib.decompress(z) == data
    lines.append("%s %s %s" % (name, data.hex(), z.hex()))


text = b"InnoDB stores the SDI of a table as zlib-compressed JSON. " * 40
cols = b",".join(
    b'{"name":"c%d","type":%d,"is_nullable":%s}'
    % (i, r.randrange(1, 30), b"true" if i % 2 else b"false")
    for i in range(60)
)
sdi = (
    b'{"mysqld_version_id":80403,"dd_version":80300,"sdi_version":80019,'
    b'"dd_object_type":"Table","dd_object":{"name":"t","columns":[' + cols + b"]}}"
)
rnd = bytes(r.randrange(256) for _ in range(3000))
skew = bytes(r.choice(b"aaaaaaaabbbbccd\x00\x00\x00\xff") for _ in range(5000))
big = bytes(r.choice(b"ACGT") for _ in range(24000)) + text
add("empty", b"")
add("one", b"x")
add("text_l1", text, 1)
add("text_l9", text, 9)
add("sdi_l6", sdi, 6)
add("stored_random", rnd, 0)
add("random_l6", rnd, 6)
add("fixed_text", text, 6, zlib.Z_FIXED)
add("huffman_only", skew, 6, zlib.Z_HUFFMAN_ONLY)
add("rle", skew, 6, zlib.Z_RLE)
add("window_512", text + skew, 6, zlib.Z_DEFAULT_STRATEGY, 9)
add("big_multiblock", big, 6, zlib.Z_DEFAULT_STRATEGY, 15, 1)
add("long_matches", b"\x00" * 12000 + b"\x01" * 300, 9)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inflate_vectors.txt")
with open(out, "w") as f:
    f.write("\n".join(lines) + "\n")
