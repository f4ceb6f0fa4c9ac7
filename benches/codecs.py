#!/usr/bin/env python3
"""The reference side of the codec benchmark (benches/run-codecs drives it
through ibdscope-codec-bench; see benches/README.md).  Python 3 standard
library only: each codec is the Debian library MariaDB 10.11's provider
plugin links, called through ctypes with the arguments the server passes
(storage/innobase/fil/fil0pagecompress.cc, fil_page_compress_low and
fil_page_decompress_low):

  zlib    libz.so.1       compress2(level 6)        / uncompress
  lz4     liblz4.so.1     LZ4_compress_default      / LZ4_decompress_safe
  lzo     liblzo2.so.2    lzo1x_1_15_compress       / lzo1x_decompress_safe
  lzma    liblzma.so.5    lzma_easy_buffer_encode(6, LZMA_CHECK_NONE)
                                                    / lzma_stream_buffer_decode
  bzip2   libbz2.so.1.0   BZ2_bzBuffToBuffCompress(blockSize100k 1)
                                                    / BZ2_bzBuffToBuffDecompress(small 1)
  snappy  libsnappy.so.1  snappy_compress           / snappy_uncompress

  codecs.py compress DIR     DIR/plain/*.bin -> DIR/<codec>/*.bin
  codecs.py time DIR MS [CODECS]
                             decompress every DIR/<codec>/<size>-*.bin in a
                             loop for MS milliseconds per codec and size;
                             prints one line per case:
                             RESULT codec size bytes_out cpu_ns calls call_ns
                             (cpu_ns: the time the thread ran on a CPU,
                             from /proc/thread-self/schedstat)
  codecs.py pages DIR MS [CODECS]
                             the page_compressed bench file's own pages:
                             DIR/pages/<codec>.bin holds each page's payload
                             as the server hands it to the library (u32
                             little-endian length, then the bytes), and
                             <codec>.check the first pages' logical bytes
                             (checked first); decompresses the pages in file
                             order, again from the first when all are done,
                             for MS milliseconds per codec; prints
                             RESULT codec pages bytes_out cpu_ns calls call_ns

call_ns is the cost of one call through Python and ctypes, measured on the
same function with an input it rejects at once (lz4, lzo, snappy: a zero
length).  For zlib, lzma and bzip2 such a call does real work (the library
allocates its state first), so the lz4 figure stands for them.  The driver
subtracts calls * call_ns from the time: the reference is timed as the C
library alone, which favours it.
"""
import ctypes
import gc
import lzma
import os
import sys
import time
import zlib

C = ctypes
CODECS = ["zlib", "lz4", "lzo", "lzma", "bzip2", "snappy"]


def libs():
    z = C.CDLL("libz.so.1")
    z.uncompress.argtypes = [C.c_char_p, C.POINTER(C.c_ulong), C.c_char_p, C.c_ulong]
    lz4 = C.CDLL("liblz4.so.1")
    lz4.LZ4_decompress_safe.argtypes = [C.c_char_p, C.c_char_p, C.c_int, C.c_int]
    lz4.LZ4_compress_default.argtypes = [C.c_char_p, C.c_char_p, C.c_int, C.c_int]
    lzo = C.CDLL("liblzo2.so.2")
    # lzo_init(): LZO_VERSION and the sizes of short, int, long,
    # lzo_uint32_t, lzo_uint, dict_t, char *, lzo_voidp, lzo_callback_t (x86-64)
    assert lzo.__lzo_init_v2(0x20A0, 2, 4, 8, 4, 8, 8, 8, 8, 48) == 0
    lzo.lzo1x_decompress_safe.argtypes = [
        C.c_char_p, C.c_size_t, C.c_char_p, C.POINTER(C.c_size_t), C.c_void_p]
    lzo.lzo1x_1_15_compress.argtypes = [
        C.c_char_p, C.c_size_t, C.c_char_p, C.POINTER(C.c_size_t), C.c_char_p]
    xz = C.CDLL("liblzma.so.5")
    xz.lzma_stream_buffer_decode.argtypes = [
        C.POINTER(C.c_uint64), C.c_uint32, C.c_void_p, C.c_char_p, C.POINTER(C.c_size_t),
        C.c_size_t, C.c_char_p, C.POINTER(C.c_size_t), C.c_size_t]
    bz = C.CDLL("libbz2.so.1.0")
    bz.BZ2_bzBuffToBuffDecompress.argtypes = [
        C.c_char_p, C.POINTER(C.c_uint), C.c_char_p, C.c_uint, C.c_int, C.c_int]
    bz.BZ2_bzBuffToBuffCompress.argtypes = [
        C.c_char_p, C.POINTER(C.c_uint), C.c_char_p, C.c_uint, C.c_int, C.c_int, C.c_int]
    sn = C.CDLL("libsnappy.so.1")
    sn.snappy_uncompress.argtypes = [C.c_char_p, C.c_size_t, C.c_char_p, C.POINTER(C.c_size_t)]
    sn.snappy_compress.argtypes = [C.c_char_p, C.c_size_t, C.c_char_p, C.POINTER(C.c_size_t)]
    return z, lz4, lzo, xz, bz, sn


def compress(d):
    z, lz4, lzo, xz, bz, sn = libs()
    plain = sorted(f for f in os.listdir(os.path.join(d, "plain")) if f.endswith(".bin"))
    for c in CODECS:
        os.makedirs(os.path.join(d, c), exist_ok=True)
    for name in plain:
        data = open(os.path.join(d, "plain", name), "rb").read()
        n = len(data)
        cap = 2 * n + 1024
        dst = C.create_string_buffer(cap)
        out = {}
        out["zlib"] = zlib.compress(data, 6)  # compress2(level 6)
        k = lz4.LZ4_compress_default(data, dst, n, cap)
        assert k > 0
        out["lz4"] = dst.raw[:k]
        wrk = C.create_string_buffer(32768 * 8)  # LZO1X_1_15_MEM_COMPRESS
        ln = C.c_size_t(cap)
        assert lzo.lzo1x_1_15_compress(data, n, dst, C.byref(ln), wrk) == 0
        out["lzo"] = dst.raw[:ln.value]
        # lzma_easy_buffer_encode(6, LZMA_CHECK_NONE, ...) writes what this writes.
        out["lzma"] = lzma.compress(data, preset=6, check=lzma.CHECK_NONE)
        ln32 = C.c_uint(cap)
        assert bz.BZ2_bzBuffToBuffCompress(dst, C.byref(ln32), data, n, 1, 0, 0) == 0
        out["bzip2"] = dst.raw[:ln32.value]
        ln = C.c_size_t(cap)
        assert sn.snappy_compress(data, n, dst, C.byref(ln)) == 0
        out["snappy"] = dst.raw[:ln.value]
        for c, b in out.items():
            open(os.path.join(d, c, name), "wb").write(b)


def decoders():
    """codec -> (prepare(data, n) -> call, reject(n) -> call): a call
    decompresses one buffer and returns the bytes written (checked)."""
    z, lz4, lzo, xz, bz, sn = libs()

    def zlib_(src, n, dst=None):
        dst = C.create_string_buffer(n) if dst is None else dst
        ln = C.c_ulong(n)
        f = z.uncompress
        p = C.byref(ln)
        k = len(src)

        def call():
            ln.value = n
            f(dst, p, src, k)
            return dst.raw if ln.value == n else b""
        return call, dst

    def lz4_(src, n, dst=None):
        dst = C.create_string_buffer(n) if dst is None else dst
        f = lz4.LZ4_decompress_safe
        k = len(src)

        def call():
            return f(src, dst, k, n)
        return call, dst

    def lzo_(src, n, dst=None):
        dst = C.create_string_buffer(n) if dst is None else dst
        ln = C.c_size_t(n)
        f = lzo.lzo1x_decompress_safe
        p = C.byref(ln)
        k = len(src)

        def call():
            ln.value = n
            return f(src, k, dst, p, None)
        return call, dst

    def lzma_(src, n, dst=None):
        dst = C.create_string_buffer(n) if dst is None else dst
        mem = C.c_uint64(2**64 - 1)
        ip = C.c_size_t(0)
        op = C.c_size_t(0)
        f = xz.lzma_stream_buffer_decode
        pm, pi, po = C.byref(mem), C.byref(ip), C.byref(op)
        k = len(src)

        def call():
            ip.value = 0
            op.value = 0
            return f(pm, 0, None, src, pi, k, dst, po, n)
        return call, dst

    def bzip2_small(src, n, dst=None):
        dst = C.create_string_buffer(n) if dst is None else dst
        ln = C.c_uint(n)
        f = bz.BZ2_bzBuffToBuffDecompress
        p = C.byref(ln)
        k = len(src)

        def call():
            ln.value = n
            return f(dst, p, src, k, 1, 0)
        return call, dst

    def bzip2_fast(src, n, dst=None):
        dst = C.create_string_buffer(n) if dst is None else dst
        ln = C.c_uint(n)
        f = bz.BZ2_bzBuffToBuffDecompress
        p = C.byref(ln)
        k = len(src)

        def call():
            ln.value = n
            return f(dst, p, src, k, 0, 0)
        return call, dst

    def snappy_(src, n, dst=None):
        dst = C.create_string_buffer(n) if dst is None else dst
        ln = C.c_size_t(n)
        f = sn.snappy_uncompress
        p = C.byref(ln)
        k = len(src)

        def call():
            ln.value = n
            return f(src, k, dst, p)
        return call, dst

    return {
        "zlib": zlib_, "lz4": lz4_, "lzo": lzo_, "lzma": lzma_,
        # MariaDB decompresses with small=1; small=0 is libbz2's faster path.
        "bzip2": bzip2_small, "bzip2-fast": bzip2_fast, "snappy": snappy_,
    }


def cpu_ns():
    """Nanoseconds this thread has run on a CPU (the scheduler's count, so
    time spent waiting for a CPU on a busy machine is not counted)."""
    with open("/proc/thread-self/schedstat") as f:
        return int(f.read().split()[0])


def call_cost(make):
    """ns of one call that the library rejects at once (a zero length)."""
    call, _ = make(b"", 16384)
    best = None
    for _ in range(5):
        t0 = cpu_ns()
        for _ in range(20000):
            call()
        t = (cpu_ns() - t0) / 20000
        best = t if best is None else min(best, t)
    return best


def time_all(d, ms, only=None):
    dec = decoders()
    costs = {c: call_cost(dec[c]) for c in ("lz4", "lzo", "snappy")}
    gc.disable()
    for codec in ["zlib", "lz4", "lzo", "lzma", "bzip2", "bzip2-fast", "snappy"]:
        folder = codec.split("-")[0]
        if only and folder not in only:
            continue
        cost = costs.get(codec, costs["lz4"])
        names = sorted(os.listdir(os.path.join(d, folder)))
        for size in sorted({n.split("-")[0] for n in names}):
            calls = []
            for name in names:
                if not name.startswith(size + "-"):
                    continue
                plain = open(os.path.join(d, "plain", name), "rb").read()
                src = open(os.path.join(d, folder, name), "rb").read()
                call, dst = dec[codec](src, len(plain))
                call()
                assert dst.raw == plain, (codec, name)
                calls.append(call)
            per = len(plain)
            done = 0
            c0 = cpu_ns()
            deadline = time.perf_counter_ns() + ms * 1_000_000
            while True:
                for call in calls:
                    call()
                done += len(calls)
                if time.perf_counter_ns() >= deadline:
                    break
            used = cpu_ns() - c0
            print(f"RESULT {codec} {size} {done * per} {used} {done} {cost:.0f}", flush=True)


def time_pages(d, ms, only=None):
    dec = decoders()
    costs = {c: call_cost(dec[c]) for c in ("lz4", "lzo", "snappy")}
    n = 16384
    for codec in ["zlib", "lz4", "lzo", "lzma", "bzip2", "bzip2-fast", "snappy"]:
        folder = codec.split("-")[0]
        path = os.path.join(d, "pages", folder + ".bin")
        if (only and folder not in only) or not os.path.exists(path):
            continue
        cost = costs.get(codec, costs["lz4"])
        raw = open(path, "rb").read()
        check = open(os.path.join(d, "pages", folder + ".check"), "rb").read()
        dst = C.create_string_buffer(n)
        calls = []
        at = 0
        while at < len(raw):
            k = int.from_bytes(raw[at:at + 4], "little")
            src = raw[at + 4:at + 4 + k]
            at += 4 + k
            call, _ = dec[codec](src, n, dst)
            if len(calls) * n < len(check):
                call()
                assert dst.raw == check[len(calls) * n:(len(calls) + 1) * n], (codec, len(calls))
            calls.append(call)
        del raw
        gc.disable()
        done = 0
        c0 = cpu_ns()
        deadline = time.perf_counter_ns() + ms * 1_000_000
        stop = False
        while not stop:
            for i in range(0, len(calls), 64):
                for call in calls[i:i + 64]:
                    call()
                done += len(calls[i:i + 64])
                if time.perf_counter_ns() >= deadline:
                    stop = True
                    break
        used = cpu_ns() - c0
        gc.enable()
        print(f"RESULT {codec} pages {done * n} {used} {done} {cost:.0f}", flush=True)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "compress":
        compress(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "pages":
        time_pages(sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",") if len(sys.argv) > 4 else None)
    elif len(sys.argv) >= 4 and sys.argv[1] == "time":
        time_all(sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",") if len(sys.argv) > 4 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
