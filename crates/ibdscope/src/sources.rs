//! Where a carved image's records were found: the source map `carve`
//! writes beside each image (`space-N.ibd.sources`, docs/carve.md), read
//! and checked against the image, so that each row's page and offset in
//! the image give its byte offset in the source (the disk image carved).
//!
//! ```no_run
//! # fn main() -> Result<(), ibdscope::Error> {
//! let file = ibdscope::File::open("carved/space-7.ibd")?;
//! let space = file.space()?;
//! let sources = space.sources(None);
//! for row in space.rows(None, ibdscope::ScanOptions::default())? {
//!     let place = sources.as_ref().and_then(|s| s.locate(row.page, row.offset));
//!     if let Some((source, Some(at))) = place {
//!         println!("{source} byte {at}");
//!     }
//! }
//! # Ok(())
//! # }
//! ```

use ibdscope_core::{PageNo, Tablespace};
pub use ibdscope_forensics::carve::{PageSource, SourceMap, SourcesFinding, SourcesProblem};
use std::path::{Path, PathBuf};

/// A source map read for an image: usable ([`Sources::map`]) only when
/// it could be read, parses whole and fits the image.
#[derive(Debug)]
#[non_exhaustive]
pub struct Sources {
    /// The map's file.
    pub path: PathBuf,
    /// Why it could not be read.
    pub unreadable: Option<std::io::Error>,
    /// What does not parse or does not fit the image, each with its line
    /// of the map (0: the map as a whole).
    pub findings: Vec<SourcesFinding>,
    map: SourceMap,
}

impl Sources {
    /// The map, when it was read, parses whole and fits the image.
    pub fn map(&self) -> Option<&SourceMap> {
        (self.unreadable.is_none() && self.findings.is_empty()).then_some(&self.map)
    }

    /// The source page `n` of the image was found in, and the byte
    /// offset there of the record at `page_offset` of the page (`None`
    /// for a page stored compressed); `None` when the map is not usable
    /// or the page was not found by `carve` (a synthesized page 0).
    pub fn locate(&self, n: PageNo, page_offset: u16) -> Option<(&str, Option<u64>)> {
        self.map()?.locate(n, u32::from(page_offset))
    }
}

/// The source map of the image `image` (whose pages `ts` reads as
/// stored): `given`, or else the file `IMAGE.sources` beside it; `None`
/// when none is given and there is none beside the image.
pub fn read(image: &Path, given: Option<&Path>, ts: &Tablespace<'_>) -> Option<Sources> {
    let path = match given {
        Some(p) => p.to_path_buf(),
        None => {
            let mut p = image.as_os_str().to_owned();
            p.push(".sources");
            let p = PathBuf::from(p);
            if !p.is_file() {
                return None;
            }
            p
        }
    };
    let text = match std::fs::read(&path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            return Some(Sources {
                path,
                unreadable: Some(e),
                findings: Vec::new(),
                map: SourceMap::default(),
            })
        }
    };
    let (map, mut findings) = SourceMap::parse(&text);
    if findings.is_empty() {
        let lsn = |n: PageNo| ts.facts(n).map(|f| f.lsn);
        findings.extend(map.fits(ts.page_size(), ts.n_pages(), lsn));
    }
    Some(Sources {
        path,
        unreadable: None,
        findings,
        map,
    })
}
