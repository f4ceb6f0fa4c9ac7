#!/usr/bin/env python3
"""Test vectors for crates/ibdscope-codec, made once by the reference
libraries on Debian 12 (the ones MariaDB 10.11's provider plugins link) and
committed.  Run from this folder: python3 make.py

original.bin    12,288 deterministic bytes: text of a small vocabulary
                (compresses well) then pseudo-random bytes (does not)
lz4.block       liblz4.so.1 (1.9.4)  LZ4_compress_default(src, dst, n, cap)
lzo.raw         liblzo2.so.2 (2.10)  lzo1x_1_15_compress(src, n, dst, &len, wrkmem)
snappy.raw      libsnappy.so.1 (1.1.9) snappy_compress(src, n, dst, &len)
lzma.xz         Python lzma (liblzma 5.4.1): lzma.compress(data, preset=6,
                check=CHECK_NONE), what lzma_easy_buffer_encode(6,
                LZMA_CHECK_NONE) writes
lzma-crc32.xz   the same with check=CHECK_CRC32
lzma-crc64.xz   the same with check=CHECK_CRC64
bzip2.bz2       Python bz2 (libbz2 1.0.8): bz2.compress(data, 1), what
                BZ2_bzBuffToBuffCompress(..., blockSize100k 1, 0, 0) writes
bzip2-9.bz2     bz2.compress(data * 30, 9): one 368,640-byte
                block of level 9 (tests the long-block path)
"""
import bz2
import ctypes
import lzma
import random

r = random.Random("ibdscope-codec-vectors")
words = ["page", "record", "index", "leaf", "extent", "segment", "lsn", "checksum"]
text = " ".join(r.choice(words) for _ in range(2000)).encode()[:8192]
data = text + bytes(r.getrandbits(8) for _ in range(4096))
assert len(data) == 12288
open("original.bin", "wb").write(data)

n = len(data)
cap = n * 2 + 1024

lz4 = ctypes.CDLL("liblz4.so.1")
dst = ctypes.create_string_buffer(cap)
k = lz4.LZ4_compress_default(data, dst, n, cap)
assert k > 0
open("lz4.block", "wb").write(dst.raw[:k])

lzo = ctypes.CDLL("liblzo2.so.2")
# lzo_init(): LZO_VERSION, sizeof short, int, long, lzo_uint32_t, lzo_uint,
# dict_t, char *, lzo_voidp, lzo_callback_t (x86-64)
assert lzo.__lzo_init_v2(0x20a0, 2, 4, 8, 4, 8, 8, 8, 8, 48) == 0
wrk = ctypes.create_string_buffer(32768 * 8)  # LZO1X_1_15_MEM_COMPRESS
out_len = ctypes.c_size_t(cap)
assert lzo.lzo1x_1_15_compress(data, ctypes.c_size_t(n), dst, ctypes.byref(out_len), wrk) == 0
open("lzo.raw", "wb").write(dst.raw[:out_len.value])

snappy = ctypes.CDLL("libsnappy.so.1")
out_len = ctypes.c_size_t(cap)
assert snappy.snappy_compress(data, ctypes.c_size_t(n), dst, ctypes.byref(out_len)) == 0
open("snappy.raw", "wb").write(dst.raw[:out_len.value])

open("lzma.xz", "wb").write(lzma.compress(data, preset=6, check=lzma.CHECK_NONE))
open("lzma-crc32.xz", "wb").write(lzma.compress(data, preset=6, check=lzma.CHECK_CRC32))
open("lzma-crc64.xz", "wb").write(lzma.compress(data, preset=6, check=lzma.CHECK_CRC64))
open("bzip2.bz2", "wb").write(bz2.compress(data, 1))
open("bzip2-9.bz2", "wb").write(bz2.compress(data * 30, 9))
