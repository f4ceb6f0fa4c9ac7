//! The page-source seam: a MariaDB page_compressed or encrypted space, and
//! a MySQL encrypted space opened with its keyring, is read page by page,
//! decompressed or decrypted as each reader reaches it,
//! so no command allocates a copy of the file (the logical image the
//! structure commands once read). A global allocator records the largest
//! single allocation a command makes, the input's own bytes aside (read
//! by the test's host uncounted), and it must stay well under the file's
//! size on every fixture, structure command and thread count. (`records`
//! and `rows` build their output in buffers of up to 32 pages' text, as
//! large as these small files: they are measured on the bench inputs.)
// `GlobalAlloc` is an unsafe trait: the counting allocator below forwards
// every call to the system allocator unchanged and only records sizes.
#![allow(unsafe_code)]
#![allow(
    clippy::disallowed_macros,
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use ibdscope_core::crypt::mariadb::KeyFile;
use ibdscope_report::args::{Cmd, Format, Opts};
use ibdscope_report::host::Error;
use ibdscope_report::host::{Host, ReadHost, Source};
use ibdscope_report::run;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The system allocator, recording the largest allocation made outside
/// [`uncounted`].
struct Largest;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static UNCOUNTED: Cell<bool> = const { Cell::new(false) };
}

fn note(size: usize) {
    if !UNCOUNTED.try_with(Cell::get).unwrap_or(true) {
        LARGEST.fetch_max(size, Ordering::Relaxed);
    }
}

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Largest = Largest;

/// Runs `f` with its allocations on this thread not counted.
fn uncounted<T>(f: impl FnOnce() -> T) -> T {
    UNCOUNTED.with(|c| c.set(true));
    let r = f();
    UNCOUNTED.with(|c| c.set(false));
    r
}

/// Reads files whole, as [`ReadHost`] does, without counting the buffer.
#[derive(Debug)]
struct Uncounted;

impl Host for Uncounted {
    fn open(&self, path: &Path, threads: usize) -> Result<Box<dyn Source>, Error> {
        uncounted(|| ReadHost.open(path, threads))
    }
}

/// One run at a time: the largest allocation is process-wide.
static RUNS: Mutex<()> = Mutex::new(());

/// One test at a time: what another test's thread allocates between runs
/// (its output captured, its files read) is counted too.
static TESTS: Mutex<()> = Mutex::new(());

/// The largest allocation `cmd` makes on `file` with `threads` threads.
fn largest(cmd: Cmd, file: &str, keyed: bool, threads: usize) -> usize {
    let path = ibdscope_testkit::root().join(file);
    largest_via(cmd, path, Arc::new(Uncounted), keyed, threads)
}

/// The largest allocation `cmd` makes on `path` opened through `host`.
fn largest_via(
    cmd: Cmd,
    path: std::path::PathBuf,
    host: Arc<dyn Host>,
    keyed: bool,
    threads: usize,
) -> usize {
    let _one = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let mut opts = Opts {
        threads,
        key_file: keyed.then(keys),
        ..Opts::new(cmd, vec![path], Format::Text, host)
    };
    opts.color = ibdscope_report::args::Color::Never;
    LARGEST.store(0, Ordering::Relaxed);
    let _ = run(&opts, &mut std::io::sink());
    LARGEST.load(Ordering::Relaxed)
}

fn keys() -> KeyFile {
    let root = ibdscope_testkit::root();
    let text = std::fs::read(root.join("fixtures/keys/test-keys.txt")).unwrap();
    KeyFile::parse(&text, b"").unwrap()
}

#[test]
fn no_command_copies_a_compressed_or_encrypted_space() {
    let _one = TESTS.lock().unwrap_or_else(|e| e.into_inner());
    let files: &[(&str, bool)] = &[
        ("fixtures/mariadb1011/pagecomp.ibd", false),
        ("fixtures/mariadb1011-crc32/pagecomp.ibd", false),
        ("fixtures/mariadb1011-pc/pc_lz4.ibd", false),
        ("fixtures/crypt/cbc/pagecomp.ibd", true),
        ("fixtures/crypt/crc32-ctr/ai_int.ibd", true),
    ];
    type C = (&'static str, fn() -> Cmd);
    let cmds: &[C] = &[
        ("extents", || Cmd::Extents),
        ("segments", || Cmd::Segments),
        ("lists", || Cmd::Lists),
        ("indexes", || Cmd::Indexes),
        ("fill", || Cmd::Fill),
    ];
    for &(file, keys) in files {
        let len = std::fs::metadata(ibdscope_testkit::root().join(file))
            .unwrap()
            .len() as usize;
        for &(name, cmd) in cmds {
            for threads in [1, 2] {
                let big = largest(cmd(), file, keys, threads);
                assert!(
                    big < len / 4,
                    "{name} on {file} ({threads} threads): an allocation of {big} bytes, \
                     the file is {len}"
                );
            }
        }
    }
}

#[test]
fn no_command_copies_a_space_opened_with_its_keyring() {
    // The Percona 8.0 files of the corpus and the keyring of the server
    // that wrote them (../shared/corpus/MANIFEST.md): every page but page 0
    // of both is encrypted. They are small (112 and 72 KiB): a command's
    // largest allocation is one of its own, whatever the file (the table of
    // kept pages, 32 KiB; the SDI's inflate buffer, 36 KiB), under two
    // thirds of these files; the decrypted image was the file's size.
    let _one = TESTS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(dir) = ibdscope_testkit::corpus() else {
        return;
    };
    let dir = dir.join("percona-8.0");
    let raw = std::fs::read(dir.join("percona80_keyring_file")).unwrap();
    let files = [
        "percona80_encrypted_secret_data.ibd",
        "percona80_encrypted_compressed.ibd",
    ];
    type C = (&'static str, fn() -> Cmd);
    let cmds: &[C] = &[
        ("check", || Cmd::Check),
        ("types", || Cmd::Types),
        ("info", || Cmd::Info),
        ("extents", || Cmd::Extents),
        ("segments", || Cmd::Segments),
        ("lists", || Cmd::Lists),
        ("indexes", || Cmd::Indexes),
        ("fill", || Cmd::Fill),
    ];
    for file in files {
        let path = dir.join(file);
        let len = std::fs::metadata(&path).unwrap().len() as usize;
        for &(name, cmd) in cmds {
            for threads in [1, 2] {
                let keyring = ibdscope_report::decrypt::Keyring::parse(&raw).unwrap();
                let host = ibdscope_report::decrypt::DecryptHost::new(
                    Arc::new(Uncounted),
                    keyring,
                    ibdscope_core::Options::default(),
                );
                let big = largest_via(cmd(), path.clone(), Arc::new(host), false, threads);
                assert!(
                    big < len * 2 / 3,
                    "{name} on {file} ({threads} threads): an allocation of {big} bytes, \
                     the file is {len}"
                );
            }
        }
    }
}
