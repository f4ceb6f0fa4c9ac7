//! Opening input files: read-only, memory-mapped, never written (the
//! report crate's [`Host`] for the binary).
//!
//! What the world may do to a file while we read it, and what happens:
//! - it is not a regular file (a FIFO, a socket, a terminal or other
//!   character device): refused at once with "not a regular file", without
//!   blocking (it is opened `O_NONBLOCK`, then its type is looked at);
//! - it is a block device (a raw disk, an LVM snapshot): read as a file of
//!   the device's size;
//! - it shrinks while mapped: reads past the new end see zeros instead of
//!   killing the process with SIGBUS ([`crate::guard`]);
//! - its size or modification time move during the run: when the input is
//!   dropped this is a [`Change`], which the run reports (exit 2).

use crate::error::{describe, Error as CliError, ErrorKind};
use crate::guard::Guard;
use ibdscope_report::host::Error;
use ibdscope_report::host::{Change, Host, Source, Unit, UNSWEPT_BYTES};
use memmap2::Mmap;
use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// What an input's file looked like when it was opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

/// The bytes of one input file.
pub struct Input {
    /// Guards the map against SIGBUS; dropped before the map.
    guard: Option<Guard>,
    bytes: Bytes,
    threads: usize,
    /// Holes of a sparse file (byte ranges that read as zeros).
    holes: Vec<std::ops::Range<usize>>,
    /// Where the change, if any, is told when the input is dropped (one
    /// per file: a joined input has several).
    watch: Vec<Watch>,
    /// A file of at most [`UNSWEPT_BYTES`] keeps its mappings
    /// ([`MapHost::keeping_small_files_mapped`]).
    keep_small: bool,
}

enum Bytes {
    /// A mapped file.
    Mapped(Mmap),
    /// Several files mapped side by side ([`open_joined`]).
    Joined(joined::JoinedMap),
    /// An empty file (a zero-length map is not allowed).
    Empty,
}

/// The open file, its stamp at open, and the host's list of changes.
struct Watch {
    path: PathBuf,
    file: File,
    at_open: Stamp,
    block: bool,
    changes: Arc<Mutex<Vec<Change>>>,
}

impl Input {
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match &self.bytes {
            Bytes::Mapped(m) => m,
            Bytes::Joined(j) => j.bytes(),
            Bytes::Empty => &[],
        }
    }
}

impl Input {
    /// Drops the mappings of bytes `offset..offset + len` (whole 4 KiB
    /// pages inside it), which a pass has finished with: the kernel keeps
    /// the file's pages in its cache, a later read maps them again, and
    /// the process keeps only the pages it is reading mapped (its RSS stays
    /// flat however big the file), and unmapping at exit finds little.
    pub fn release(&self, offset: usize, len: usize) {
        if let Bytes::Joined(j) = &self.bytes {
            j.release(offset, len);
            return;
        }
        let Bytes::Mapped(map) = &self.bytes else {
            return;
        };
        // A file the space's window never sweeps is its own bound: its
        // mappings are kept, where dropping a fold's shards would only
        // make the next pass fault them in again.
        if self.keep_small && map.len() <= UNSWEPT_BYTES {
            return;
        }
        let page = 4096;
        let start = offset.div_ceil(page) * page;
        let end = offset.saturating_add(len).min(map.len()) / page * page;
        if end <= start {
            return;
        }
        // SAFETY: the map is a read-only shared mapping of a file.
        // MADV_DONTNEED on such a mapping only drops page-table entries:
        // the page cache keeps the data, and a later read maps the same
        // file bytes again (it never discards data, as it would for a
        // private writable mapping), so any read after this, even of these
        // bytes, is still valid.
        #[cfg(unix)]
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
        };
    }
}

impl Input {
    /// Reads bytes `offset..offset + len` of the file in and maps them,
    /// in one call (`MADV_POPULATE_READ`, Linux 5.14+; elsewhere nothing):
    /// the kernel reads a cold range in large requests (its read-ahead
    /// around the first page), where a walk that follows a chain would
    /// fault its pages in one small read at a time, and maps a warm one
    /// without a fault per page. (`MADV_WILLNEED` would read it without
    /// mapping it, but into small page-cache folios, which every later
    /// pass then maps 64 KiB per fault instead of a folio at a time.)
    pub fn read_ahead(&self, offset: usize, len: usize) {
        let Bytes::Mapped(map) = &self.bytes else {
            return;
        };
        let start = offset / 4096 * 4096;
        let end = offset.saturating_add(len).min(map.len());
        if end <= start {
            return;
        }
        // A range the page cache holds whole is left to the faults of the
        // pages actually read: mapping a warm MiB in one call costs more
        // (about 125 µs here) than the few faults a walk that reads a page
        // or two of it takes, and a cold one is what read-ahead is for.
        #[cfg(target_os = "linux")]
        if !cached(&map[start..end]) {
            let _ = map.advise_range(memmap2::Advice::PopulateRead, start, end - start);
        }
    }
}

/// Whether `bytes` (a page-aligned slice of a file mapping) reads as
/// cached: its first and last 4 KiB pages are in the page cache
/// (`mincore`, one page each: a call over the whole MiB costs about as
/// much as the faults it would spare). A cold file's chunk is read ahead
/// whole; one the kernel's own read-ahead or an earlier pass brought in
/// has both ends cached. False where it cannot tell.
#[cfg(target_os = "linux")]
fn cached(bytes: &[u8]) -> bool {
    extern "C" {
        fn mincore(addr: *mut std::ffi::c_void, len: usize, vec: *mut u8) -> i32;
    }
    const PAGE: usize = 4096;
    let last = bytes.len().saturating_sub(1) / PAGE * PAGE;
    [0, last].iter().all(|&at| {
        let Some(page) = bytes.get(at..) else {
            return false;
        };
        let mut v = 0u8;
        // SAFETY: `page` starts at a multiple of 4 KiB inside a live
        // mapping (the caller's slice starts at one, of a mapping that
        // starts at one) and holds at least one byte; mincore reads the
        // page tables and writes one byte for the one page asked.
        let r = unsafe { mincore(page.as_ptr().cast_mut().cast(), 1, &mut v) };
        r == 0 && v & 1 == 1
    })
}

/// Below this, unmapping on one thread costs less than starting threads.
const PARALLEL_UNMAP_BYTES: usize = 64 << 20;

impl Drop for Input {
    /// Unmapping a big map is serial work in the kernel (one page-table
    /// entry per 4 KiB, about 25 ms per GiB here): drop the entries of
    /// slices of it on several threads first, so `munmap` finds little.
    fn drop(&mut self) {
        self.tell_change();
        let Bytes::Mapped(map) = &self.bytes else {
            return;
        };
        let len = map.len();
        let threads = self.threads.min(len / PARALLEL_UNMAP_BYTES);
        if threads < 2 {
            return;
        }
        let page = 4096;
        let slice = (len / threads).div_ceil(page) * page;
        let me = &*self;
        std::thread::scope(|s| {
            for k in 0..threads {
                let start = k * slice;
                let part = slice.min(len.saturating_sub(start));
                if part == 0 {
                    break;
                }
                let _ =
                    std::thread::Builder::new().spawn_scoped(s, move || me.release(start, part));
            }
        });
    }
}

impl Input {
    /// Compares the file with its stamp at open and tells the host if it
    /// moved or shrank under the map.
    fn tell_change(&mut self) {
        let zero_filled = self.guard.as_ref().is_some_and(Guard::faulted);
        for w in std::mem::take(&mut self.watch) {
            Self::tell_one(w, zero_filled);
        }
    }

    fn tell_one(w: Watch, zero_filled: bool) {
        let now = stamp(&w.file, w.block).ok();
        let (len_now, modified) = match now {
            Some(n) => (Some(n.len), n.modified != w.at_open.modified),
            None => (None, false),
        };
        if zero_filled || len_now != Some(w.at_open.len) || modified {
            let c =
                Change::new(w.path, w.at_open.len, len_now, modified).with_zero_filled(zero_filled);
            if let Ok(mut list) = w.changes.lock() {
                list.push(c);
            }
        }
    }
}

/// The size and modification time of an open file; a block device's size
/// is its end.
fn stamp(file: &File, block: bool) -> io::Result<Stamp> {
    let meta = file.metadata()?;
    let len = if block {
        let mut f = file;
        f.seek(SeekFrom::End(0))?
    } else {
        meta.len()
    };
    Ok(Stamp {
        len,
        modified: if block { None } else { meta.modified().ok() },
    })
}

/// What kind of file an input is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Regular,
    Directory,
    Fifo,
    Socket,
    CharDevice,
    BlockDevice,
}

fn kind(meta: &Metadata) -> Kind {
    let t = meta.file_type();
    if t.is_dir() {
        return Kind::Directory;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Kind::Fifo;
        }
        if t.is_socket() {
            return Kind::Socket;
        }
        if t.is_char_device() {
            return Kind::CharDevice;
        }
        if t.is_block_device() {
            return Kind::BlockDevice;
        }
    }
    Kind::Regular
}

/// Why a file of this kind is not read, if it is not.
fn not_readable(kind: Kind) -> Option<&'static str> {
    match kind {
        Kind::Regular | Kind::BlockDevice => None,
        Kind::Directory => Some("is a directory, not a tablespace file"),
        Kind::Fifo => Some("not a regular file (a FIFO or pipe)"),
        Kind::Socket => Some("not a regular file (a socket)"),
        Kind::CharDevice => Some("not a regular file (a character device)"),
    }
}

/// Opens without blocking: a FIFO with no writer would block `open` forever.
fn open_nonblocking(path: &Path) -> io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        /// O_NONBLOCK on Linux (x86_64, aarch64 and the other generic ABIs).
        const O_NONBLOCK: i32 = 0o4000;
        o.custom_flags(O_NONBLOCK);
    }
    o.open(path)
}

/// Opens `path` read-only and maps it; `threads` may unmap it; a change
/// seen when the input is dropped goes to `changes`. With `streams`, `-`
/// (standard input) and a pipe are read to their end first
/// ([`spool`]).
fn open(
    path: &Path,
    threads: usize,
    changes: &Arc<Mutex<Vec<Change>>>,
    streams: bool,
) -> Result<Input, Error> {
    let err = |what: String| Error::open(path, io::Error::other(what));
    if streams && path == Path::new("-") {
        let file = spool(io::stdin().lock()).map_err(|e| err(format!("standard input: {e}")))?;
        return map_spooled(file, threads).map_err(|e| err(describe(&e)));
    }
    let file = open_nonblocking(path).map_err(|e| err(describe(&e)))?;
    let meta = file.metadata().map_err(|e| err(describe(&e)))?;
    let kind = kind(&meta);
    if streams && kind == Kind::Fifo {
        let file = spool(Patient(file)).map_err(|e| err(format!("reading the pipe: {e}")))?;
        return map_spooled(file, threads).map_err(|e| err(describe(&e)));
    }
    if let Some(what) = not_readable(kind) {
        return Err(err(what.into()));
    }
    let block = kind == Kind::BlockDevice;
    let at_open = stamp(&file, block).map_err(|e| err(describe(&e)))?;
    let len = usize::try_from(at_open.len).map_err(|_| {
        err(format!(
            "{} bytes is more than this machine can map",
            at_open.len
        ))
    })?;
    let bytes = if len == 0 {
        Bytes::Empty
    } else {
        // SAFETY: the map is read-only and its bytes are treated as
        // untrusted input: every read is bounds-checked by the library, so
        // any content is safe. A file truncated while mapped would raise
        // SIGBUS on a read past its new end; the guard registered below
        // turns that into zeros and a reported change (crate::guard).
        let map = unsafe { memmap2::MmapOptions::new().len(len).map(&file) }
            .map_err(|e| err(describe(&e)))?;
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Sequential);
        Bytes::Mapped(map)
    };
    let guard = match &bytes {
        Bytes::Mapped(m) => Some(Guard::new(m.as_ptr(), m.len())),
        Bytes::Joined(_) | Bytes::Empty => None,
    };
    let holes = if block { Vec::new() } else { holes(&file, len) };
    let input = Input {
        guard,
        bytes,
        threads,
        holes,
        watch: vec![Watch {
            path: path.to_path_buf(),
            file,
            at_open,
            block,
            changes: Arc::clone(changes),
        }],
        keep_small: false,
    };
    hold_for_tests();
    Ok(input)
}

/// Opens `paths` read-only as one input, their bytes one after the other
/// (the system tablespace's data files): an address range as long as all
/// of them is reserved, then each file is mapped into its place
/// ([`joined`]), so nothing is copied and the commands read one slice. A
/// file that is not a regular file is refused as [`open`] refuses it.
/// Where the files cannot be placed side by side (a file before the last
/// whose length is not a multiple of 4 KiB; not Linux), `None`: the caller
/// copies them.
fn open_joined(
    paths: &[PathBuf],
    threads: usize,
    changes: &Arc<Mutex<Vec<Change>>>,
) -> Result<Option<Input>, Error> {
    let mut files = Vec::new();
    let mut watch = Vec::new();
    for path in paths {
        let err = |what: String| Error::open(path, io::Error::other(what));
        let file = open_nonblocking(path).map_err(|e| err(describe(&e)))?;
        let meta = file.metadata().map_err(|e| err(describe(&e)))?;
        if let Some(what) = not_readable(kind(&meta)) {
            return Err(err(what.into()));
        }
        let block = kind(&meta) == Kind::BlockDevice;
        let at_open = stamp(&file, block).map_err(|e| err(describe(&e)))?;
        let len = usize::try_from(at_open.len).map_err(|_| {
            err(format!(
                "{} bytes is more than this machine can map",
                at_open.len
            ))
        })?;
        files.push((file.try_clone().map_err(|e| err(describe(&e)))?, len));
        watch.push(Watch {
            path: path.clone(),
            file,
            at_open,
            block,
            changes: Arc::clone(changes),
        });
    }
    let Some(map) = joined::JoinedMap::new(&files) else {
        return Ok(None);
    };
    let mut holes = Vec::new();
    let mut start = 0usize;
    for (f, len) in &files {
        holes.extend(
            self::holes(f, *len)
                .into_iter()
                .map(|h| h.start.saturating_add(start)..h.end.saturating_add(start)),
        );
        start = start.saturating_add(*len);
    }
    let guard = Some(Guard::new(map.bytes().as_ptr(), map.bytes().len()));
    Ok(Some(Input {
        guard,
        bytes: Bytes::Joined(map),
        threads,
        holes,
        watch,
        keep_small: false,
    }))
}

/// Files mapped side by side in one reserved address range.
mod joined {
    use std::fs::File;

    /// The map: `len` bytes at `ptr`, each file at the sum of the lengths
    /// before it.
    pub struct JoinedMap {
        ptr: *mut u8,
        len: usize,
    }

    // SAFETY: the map is read-only and lives until the value is dropped;
    // sharing a pointer to immutable bytes between threads is safe.
    unsafe impl Send for JoinedMap {}
    // SAFETY: as above: nothing writes through it.
    unsafe impl Sync for JoinedMap {}

    #[cfg(target_os = "linux")]
    mod sys {
        use std::ffi::c_void;
        pub const PROT_NONE: i32 = 0;
        pub const PROT_READ: i32 = 1;
        pub const MAP_SHARED: i32 = 0x01;
        pub const MAP_PRIVATE: i32 = 0x02;
        pub const MAP_FIXED: i32 = 0x10;
        pub const MAP_ANONYMOUS: i32 = 0x20;
        pub const MAP_NORESERVE: i32 = 0x4000;
        pub const MADV_DONTNEED: i32 = 4;
        extern "C" {
            pub fn mmap(
                addr: *mut c_void,
                len: usize,
                prot: i32,
                flags: i32,
                fd: i32,
                off: i64,
            ) -> *mut c_void;
            pub fn munmap(addr: *mut c_void, len: usize) -> i32;
            pub fn madvise(addr: *mut c_void, len: usize, advice: i32) -> i32;
        }
    }

    /// The smallest page the kernel maps (a file is placed at a multiple).
    const PAGE: usize = 4096;

    impl JoinedMap {
        /// Maps `files` (each with its length) side by side; `None` when
        /// they cannot be (a length before the last not a multiple of
        /// [`PAGE`], an empty total, a refused map, not Linux).
        #[cfg(target_os = "linux")]
        pub fn new(files: &[(File, usize)]) -> Option<JoinedMap> {
            use std::os::unix::io::AsRawFd;
            let (last, before) = files.split_last()?;
            if before.iter().any(|(_, l)| l % PAGE != 0 || *l == 0) {
                return None;
            }
            let len = before
                .iter()
                .try_fold(last.1, |a, (_, l)| a.checked_add(*l))?;
            if len == 0 {
                return None;
            }
            // SAFETY: a fresh anonymous PROT_NONE reservation at an address
            // the kernel picks: it overlaps nothing of ours.
            let base = unsafe {
                sys::mmap(
                    std::ptr::null_mut(),
                    len,
                    sys::PROT_NONE,
                    sys::MAP_PRIVATE | sys::MAP_ANONYMOUS | sys::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            if base as isize == -1 || base.is_null() {
                return None;
            }
            let map = JoinedMap {
                ptr: base.cast::<u8>(),
                len,
            };
            let mut at = 0usize;
            for (f, l) in files {
                if *l > 0 {
                    // SAFETY: `at..at + l` lies inside the reservation above,
                    // which this value owns (MAP_FIXED replaces only it); the
                    // file is mapped read-only and shared: its bytes are
                    // untrusted input, read through bounds-checked slices.
                    let p = unsafe {
                        sys::mmap(
                            base.cast::<u8>().add(at).cast(),
                            *l,
                            sys::PROT_READ,
                            sys::MAP_SHARED | sys::MAP_FIXED,
                            f.as_raw_fd(),
                            0,
                        )
                    };
                    // SAFETY: pointer arithmetic inside the reservation.
                    if p != unsafe { base.cast::<u8>().add(at).cast() } {
                        return None;
                    }
                }
                at += l;
            }
            Some(map)
        }

        #[cfg(not(target_os = "linux"))]
        pub fn new(_files: &[(File, usize)]) -> Option<JoinedMap> {
            None
        }

        /// The files' bytes.
        pub fn bytes(&self) -> &[u8] {
            // SAFETY: `ptr..ptr + len` is mapped readable for as long as
            // `self` lives (every part is a file mapping; a file that
            // shrinks is guarded like a single map, crate::guard).
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }

        /// Drops the mappings of whole 4 KiB pages inside
        /// `offset..offset + len` (see `Input::release`).
        pub fn release(&self, offset: usize, len: usize) {
            let start = offset.div_ceil(PAGE) * PAGE;
            let end = offset.saturating_add(len).min(self.len) / PAGE * PAGE;
            if end <= start {
                return;
            }
            // SAFETY: MADV_DONTNEED on shared read-only file mappings only
            // drops page-table entries; a later read maps the same bytes.
            #[cfg(target_os = "linux")]
            let _ = unsafe {
                sys::madvise(self.ptr.add(start).cast(), end - start, sys::MADV_DONTNEED)
            };
        }
    }

    impl Drop for JoinedMap {
        fn drop(&mut self) {
            // SAFETY: the range this value reserved and mapped, unmapped
            // once; no slice of it outlives `self`.
            #[cfg(target_os = "linux")]
            let _ = unsafe { sys::munmap(self.ptr.cast(), self.len) };
        }
    }
}

/// A stream's bytes in a file of our own: a temporary file, removed from
/// its folder at once (`$TMPDIR`, or /tmp), so the space it takes is freed
/// when the run ends. The kernel's page cache holds it, not our memory,
/// and every command can then read the stream as it reads a file.
fn spool(mut from: impl io::Read) -> io::Result<File> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir();
    let mut last = None;
    for _ in 0..100 {
        let name = dir.join(format!(
            ".ibdscope-stream-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        match OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&name)
        {
            Ok(mut f) => {
                let _ = std::fs::remove_file(&name);
                io::copy(&mut from, &mut f)?;
                return Ok(f);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary file")))
}

/// A pipe opened without blocking, read as a blocking one: when its writer
/// has nothing yet, wait a little and read again; its end is the writer's.
struct Patient(File);

impl io::Read for Patient {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                r => return r,
            }
        }
    }
}

/// Maps a spooled stream (it is ours: no change to watch for).
fn map_spooled(file: File, threads: usize) -> io::Result<Input> {
    let len = usize::try_from(file.metadata()?.len()).map_err(io::Error::other)?;
    if len == 0 {
        return Err(io::Error::other(
            "the stream ended before its first byte (nothing was written to it)",
        ));
    }
    // SAFETY: a read-only map of a file only this process holds (it has no
    // name), whose bytes are untrusted input like any other.
    let bytes = Bytes::Mapped(unsafe { memmap2::MmapOptions::new().len(len).map(&file) }?);
    let holes = holes(&file, len);
    Ok(Input {
        guard: None,
        bytes,
        threads,
        holes,
        watch: Vec::new(),
        keep_small: false,
    })
}

/// Holes shorter than this are not worth skipping (sixteen of the
/// largest pages; an extent never written is a megabyte or more).
const MIN_HOLE: usize = 256 << 10;
/// Holes kept per file: a file more fragmented than this has its later
/// holes read like data.
const MAX_HOLES: usize = 1 << 16;

/// The holes of a sparse file (`SEEK_DATA` / `SEEK_HOLE`): every hole at
/// least [`MIN_HOLE`] long, less at most its first `MIN_HOLE / 2` bytes,
/// at most [`MAX_HOLES`] of them. After a stretch of data the next hole is
/// looked for from the next multiple of `MIN_HOLE / 2` past the data's
/// end, where any hole that long still reaches: a file with a short hole
/// in every page (MariaDB's page_compressed pages, each punched after its
/// payload) costs two calls per `MIN_HOLE / 2` bytes, not two per page
/// (28,672 calls, a tenth of `check`'s CPU on a 224 MiB LZ4 table). A
/// file system that does not tell reports none.
#[cfg(target_os = "linux")]
fn holes(file: &File, len: usize) -> Vec<std::ops::Range<usize>> {
    use std::os::unix::io::AsRawFd;
    const SEEK_DATA: i32 = 3;
    const SEEK_HOLE: i32 = 4;
    const GRID: usize = MIN_HOLE / 2;
    extern "C" {
        fn lseek(fd: i32, offset: i64, whence: i32) -> i64;
    }
    let fd = file.as_raw_fd();
    let seek = |at: usize, whence: i32| -> Option<usize> {
        let at = i64::try_from(at).ok()?;
        // SAFETY: lseek on a descriptor this function's caller owns; it
        // moves only the descriptor's offset, which nothing else uses
        // (the file is read through its map).
        let r = unsafe { lseek(fd, at, whence) };
        usize::try_from(r).ok()
    };
    let mut holes = Vec::new();
    let mut at = 0;
    while at < len && holes.len() < MAX_HOLES {
        // The next data at or after `at`; none (ENXIO): a hole to the end.
        let data = seek(at, SEEK_DATA).unwrap_or(len).min(len);
        if data >= at.saturating_add(GRID) {
            holes.push(at..data);
        }
        if data >= len {
            break;
        }
        match seek(data, SEEK_HOLE) {
            // A hole of MIN_HOLE or more starting at `h` holds the next
            // multiple of GRID at or after `h` and GRID bytes after it.
            Some(h) if h > data => at = h.div_ceil(GRID).saturating_mul(GRID),
            _ => break,
        }
    }
    holes
}

#[cfg(not(target_os = "linux"))]
fn holes(_file: &File, _len: usize) -> Vec<std::ops::Range<usize>> {
    Vec::new()
}

/// A test hook: with `IBDSCOPE_TEST_HOLD=DIR`, after each file is opened
/// and mapped the binary creates `DIR/opened-K` (K = 0, 1, …) and waits
/// (30 s at most) until `DIR/go-K` exists, so a test can change the file at
/// exactly that moment. It never touches the input.
fn hold_for_tests() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let Some(dir) = std::env::var_os("IBDSCOPE_TEST_HOLD") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let k = NEXT.fetch_add(1, Ordering::Relaxed);
    if std::fs::write(dir.join(format!("opened-{k}")), b"").is_err() {
        return;
    }
    let go = dir.join(format!("go-{k}"));
    for _ in 0..3000 {
        if go.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The binary's host: files are memory-mapped read-only and watched for
/// changes while they are read.
#[derive(Debug, Default)]
pub struct MapHost {
    changes: Arc<Mutex<Vec<Change>>>,
    streams: bool,
    keep_small: bool,
}

impl MapHost {
    /// A host; with `streams`, `-` and pipes named on the command line are
    /// read (commands that walk directories never read a pipe they meet).
    pub fn new(streams: bool) -> MapHost {
        MapHost {
            changes: Arc::default(),
            streams,
            keep_small: false,
        }
    }

    /// The same host, keeping a file of at most [`UNSWEPT_BYTES`] mapped
    /// whole (the shards its folds hand back are not released): for a
    /// command that reads the file again after its first pass (a walk, a
    /// map, a page), where dropping the mappings of a small file only
    /// makes the next read fault them in again. A command that reads the
    /// file once (`check`, `types`, `info`, `lsn`) releases as it goes:
    /// its threads drop the mappings while they fold, where a whole file
    /// left mapped is unmapped on one thread at exit.
    pub fn keeping_small_files_mapped(mut self, keep: bool) -> MapHost {
        self.keep_small = keep;
        self
    }
}

impl Host for MapHost {
    fn open(&self, path: &Path, threads: usize) -> Result<Box<dyn Source>, Error> {
        let mut input = open(path, threads, &self.changes, self.streams)?;
        input.keep_small = self.keep_small;
        crate::progress::meter().opened(path, input.bytes().len() as u64);
        Ok(Box::new(input))
    }

    fn open_joined(&self, paths: &[PathBuf], threads: usize) -> Result<Box<dyn Source>, Error> {
        match open_joined(paths, threads, &self.changes)? {
            Some(input) => {
                if let Some(first) = paths.first() {
                    crate::progress::meter().opened(first, input.bytes().len() as u64);
                }
                Ok(Box::new(input))
            }
            None => {
                let mut bytes = Vec::new();
                for p in paths {
                    bytes.extend_from_slice(self.open(p, threads)?.bytes());
                }
                Ok(Box::new(bytes))
            }
        }
    }

    fn progress(&self, unit: Unit, done: u64, total: u64) {
        crate::progress::meter().update(unit, done, total);
    }

    fn changes(&self) -> Vec<Change> {
        self.changes
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default()
    }
}

impl Source for Input {
    fn bytes(&self) -> &[u8] {
        Input::bytes(self)
    }

    fn release(&self, offset: usize, len: usize) {
        Input::release(self, offset, len);
    }

    fn read_ahead(&self, offset: usize, len: usize) {
        Input::read_ahead(self, offset, len);
    }

    fn zero_ranges(&self) -> &[std::ops::Range<usize>] {
        &self.holes
    }
}

/// The largest keyring file read (real ones hold a few keys: bytes to
/// kilobytes).
const KEYRING_MAX: u64 = 16 << 20;

/// Reads and parses the keyring at `path` (`--keyring`). Its bytes are
/// read into one buffer sized before the read (no reallocation leaves a
/// copy behind), parsed by the library, then wiped; neither they nor the
/// keys are ever printed. A keyring whose SHA-256 digest does not match
/// its records is used with a warning (the server does not check it when
/// it loads the file either).
pub fn load_keyring(path: &Path) -> Result<ibdscope_report::decrypt::Keyring, CliError> {
    use std::io::Read;
    let shown = ibdscope_report::names::path(path);
    let err = |kind: ErrorKind| CliError::at(kind, path);
    let read_err = |e: io::Error| err(ErrorKind::KeyringRead(describe(&e)));
    let mut file = File::open(path).map_err(read_err)?;
    let len = file.metadata().map_err(read_err)?.len();
    if len > KEYRING_MAX {
        return Err(err(ErrorKind::KeyringTooLarge(len)));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).saturating_add(1));
    let read = (&mut file).take(KEYRING_MAX).read_to_end(&mut bytes);
    let parsed = read.map_err(read_err).and_then(|_| {
        ibdscope_report::decrypt::Keyring::parse(&bytes)
            .map_err(|e| err(ErrorKind::KeyringParse(Box::new(e))))
    });
    ibdscope_report::decrypt::wipe(&mut bytes);
    let keyring = parsed?;
    if !keyring.digest_ok {
        // Through the one writer to stderr (a closed stderr is no panic).
        ibdscope_report::diag::write(format_args!(
            "ibdscope: {shown}: warning: the keyring's SHA-256 digest does not match its key \
             records (damaged or edited); its keys are used as they are\n"
        ));
    }
    Ok(keyring)
}

/// Reads at most `max` bytes of `path` into one buffer sized before the
/// read (no reallocation leaves a copy behind); the caller wipes it.
fn read_secret_file(path: &Path, max: usize) -> Result<Vec<u8>, CliError> {
    use std::io::Read;
    let err = |e: &io::Error| CliError::at(ErrorKind::SecretRead(describe(e)), path);
    let mut file = File::open(path).map_err(|e| err(&e))?;
    let len = file.metadata().map_err(|e| err(&e))?.len();
    let cap = usize::try_from(len).unwrap_or(max).min(max);
    let mut bytes = Vec::with_capacity(cap.saturating_add(1));
    let read = (&mut file)
        .take(u64::try_from(max).unwrap_or(u64::MAX))
        .read_to_end(&mut bytes);
    if let Err(e) = read {
        ibdscope_report::decrypt::wipe(&mut bytes);
        return Err(err(&e));
    }
    Ok(bytes)
}

/// A path given as bytes (after `FILE:`).
#[cfg(unix)]
fn bytes_path(p: &[u8]) -> PathBuf {
    PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(p))
}

#[cfg(not(unix))]
fn bytes_path(p: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(p).into_owned())
}

/// Reads and parses the MariaDB key file at `path` (`--key-file`), with
/// the password given (`--key-file-key`, `FILE:path` read as the plugin
/// reads it) or read from a file (`--key-file-key-file`). The file's
/// bytes, the password and the decrypted text are wiped once parsed;
/// nothing of them is printed.
pub fn load_key_file(
    path: &Path,
    key: Option<&[u8]>,
    key_file: Option<&Path>,
) -> Result<ibdscope_report::args::KeyFile, CliError> {
    use ibdscope_report::args::{password_from_file, KeyFile, MAX_KEY_FILE_SIZE};
    let from_file = match (key.and_then(|k| k.strip_prefix(b"FILE:")), key_file) {
        (Some(p), _) => Some(bytes_path(p)),
        (None, Some(p)) => Some(p.to_path_buf()),
        (None, None) => None,
    };
    let password = match from_file {
        Some(p) => {
            let mut raw = read_secret_file(&p, 257)?;
            let pw = password_from_file(&raw)
                .map_err(|e| CliError::at(ErrorKind::Password(Box::new(e)), &p));
            ibdscope_report::decrypt::wipe(&mut raw);
            Some(pw?)
        }
        None => None,
    };
    let given = key.filter(|k| !k.starts_with(b"FILE:"));
    let pw: &[u8] = password
        .as_ref()
        .map(|s| s.bytes())
        .or(given)
        .unwrap_or(b"");
    let mut bytes = read_secret_file(path, MAX_KEY_FILE_SIZE)?;
    let parsed = KeyFile::parse(&bytes, pw);
    ibdscope_report::decrypt::wipe(&mut bytes);
    parsed.map_err(|e| CliError::at(ErrorKind::KeyFile(Box::new(e)), path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_maps_unmap_on_several_threads_and_stay_readable_until_then() {
        // A sparse file over the threshold: slices unmapped on 3 threads.
        let path = std::env::temp_dir().join(format!("ibdscope-input-{}", std::process::id()));
        let len = 2 * PARALLEL_UNMAP_BYTES as u64 + 12345;
        let f = File::create(&path).expect("scratch file");
        f.set_len(len).expect("set_len");
        drop(f);
        for threads in [1, 3] {
            let input = open(&path, threads, &Arc::default(), false).expect("open");
            let bytes = input.bytes();
            assert_eq!(bytes.len() as u64, len);
            let step = 1 << 20;
            assert!(bytes.iter().step_by(step).all(|&b| b == 0));
            drop(input);
        }
        std::fs::remove_file(&path).expect("remove");
    }

    #[test]
    fn holes_of_a_sparse_file_are_found_and_data_is_not() {
        use std::io::Write;
        let path = std::env::temp_dir().join(format!("ibdscope-holes-{}", std::process::id()));
        let mut f = File::create(&path).expect("scratch file");
        f.write_all(&[7u8; 65536]).expect("head");
        let len = 64usize << 20;
        f.set_len(len as u64).expect("set_len");
        f.seek(SeekFrom::Start((len - 65536) as u64)).expect("seek");
        f.write_all(&[7u8; 65536]).expect("tail");
        drop(f);
        let input = open(&path, 1, &Arc::default(), false).expect("open");
        let holes = input.zero_ranges().to_vec();
        std::fs::remove_file(&path).expect("remove");
        if cfg!(target_os = "linux") && !holes.is_empty() {
            // Whatever the file system's block, the hole lies inside the
            // zeros and covers most of them.
            assert_eq!(holes.len(), 1, "{holes:?}");
            assert!(holes[0].start >= 65536 && holes[0].end <= len - 65536);
            assert!(holes[0].len() >= len / 2, "{holes:?}");
        } else {
            eprintln!("the file system here does not report holes; nothing checked");
        }
    }
}
