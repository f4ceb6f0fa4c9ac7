//! Opening input files: read-only, memory-mapped, never written (the
//! report crate's [`Host`] for the binary).

use ibdscope_report::host::{Host, OpenError, Source};
use memmap2::Mmap;
use std::fs::File;
use std::io;
use std::path::Path;

/// The bytes of one input file.
pub enum Input {
    /// A mapped file, and the threads that may unmap it.
    Mapped(Mmap, usize),
    /// An empty file (a zero-length map is not allowed).
    Empty,
}

impl Input {
    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Input::Mapped(m, _) => m,
            Input::Empty => &[],
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
        let Input::Mapped(map, _) = self else {
            return;
        };
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

/// Below this, unmapping on one thread costs less than starting threads.
const PARALLEL_UNMAP_BYTES: usize = 64 << 20;

impl Drop for Input {
    /// Unmapping a big map is serial work in the kernel (one page-table
    /// entry per 4 KiB, about 25 ms per GiB here): drop the entries of
    /// slices of it on several threads first, so `munmap` finds little.
    fn drop(&mut self) {
        let Input::Mapped(map, threads) = &*self else {
            return;
        };
        let len = map.len();
        let threads = (*threads).min(len / PARALLEL_UNMAP_BYTES);
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

/// Opens `path` read-only and maps it; `threads` may unmap it.
pub fn open(path: &Path, threads: usize) -> Result<Input, OpenError> {
    let err = |what: String| OpenError {
        path: path.to_path_buf(),
        what,
    };
    let file = File::open(path).map_err(|e| err(describe(&e)))?;
    let meta = file.metadata().map_err(|e| err(describe(&e)))?;
    if meta.is_dir() {
        return Err(err("is a directory, not a tablespace file".into()));
    }
    if meta.len() == 0 {
        return Ok(Input::Empty);
    }
    // SAFETY: the map is read-only and its bytes are treated as untrusted
    // input: every read is bounds-checked by the library, so any content is
    // safe. What a map cannot guard against is another process truncating
    // the file while we read it, which makes the kernel raise SIGBUS (as
    // ripgrep documents for its own maps in searcher/mmap.rs); tablespace
    // files under inspection are copies or belong to a stopped server, and
    // the risk is the same for every mmap-based reader.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| err(describe(&e)))?;
    #[cfg(unix)]
    let _ = map.advise(memmap2::Advice::Sequential);
    Ok(Input::Mapped(map, threads))
}

/// The binary's host: files are memory-mapped read-only.
#[derive(Debug)]
pub struct MapHost;

impl Host for MapHost {
    fn open(&self, path: &Path, threads: usize) -> Result<Box<dyn Source>, OpenError> {
        open(path, threads).map(|i| Box::new(i) as Box<dyn Source>)
    }
}

impl Source for Input {
    fn bytes(&self) -> &[u8] {
        Input::bytes(self)
    }

    fn release(&self, offset: usize, len: usize) {
        Input::release(self, offset, len);
    }
}

fn describe(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
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
            let input = open(&path, threads).expect("open");
            let bytes = input.bytes();
            assert_eq!(bytes.len() as u64, len);
            let step = 1 << 20;
            assert!(bytes.iter().step_by(step).all(|&b| b == 0));
            drop(input);
        }
        std::fs::remove_file(&path).expect("remove");
    }
}
