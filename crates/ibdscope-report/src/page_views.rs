//! What `page`, `records` and `pages` show alike: a record's flags, size,
//! next pointer and JSON object (`records`' columns, `page`'s record
//! list), and a page's checksum status and MariaDB key version (`pages`'
//! columns, `page`'s header).

use crate::json::Json;
use crate::line;
use ibdscope_core::checksum::Verdict;
use ibdscope_core::layout::RecExtent;
use ibdscope_core::record::Chain;
use ibdscope_core::space::PageProblem;
use ibdscope_core::{PageFacts, PageNo, Rec, RecPage, Tablespace};
use std::fmt;
use std::io::{self, Write as _};

/// A record's info bits as words joined by `sep`, or `none` when none is
/// set.
pub struct Flags<'a>(pub &'a Rec, pub &'a str, pub &'a str);

impl fmt::Display for Flags<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.0.header;
        // At most "deleted,min_rec,version,instant" with a short separator:
        // built on the stack so that padding applies.
        let mut buf = [0u8; 64];
        let mut len = 0;
        let mut put = |s: &str| {
            for &b in s.as_bytes() {
                if let Some(slot) = buf.get_mut(len) {
                    *slot = b;
                    len = len.saturating_add(1);
                }
            }
        };
        let mut first = true;
        for (on, word) in [
            (h.is_deleted(), "deleted"),
            (h.is_min_rec(), "min_rec"),
            (h.is_versioned(), "version"),
            (h.is_instant(), "instant"),
        ] {
            if on {
                if !first {
                    put(self.1);
                }
                put(word);
                first = false;
            }
        }
        if first {
            put(self.2);
        }
        f.pad(std::str::from_utf8(buf.get(..len).unwrap_or(&[])).unwrap_or(""))
    }
}

/// The chain's word in output.
pub fn chain_word(c: Chain) -> &'static str {
    match c {
        Chain::User => "user",
        Chain::Free => "garbage",
    }
}

/// The size column: exact bytes, or `<=N` for an upper bound (padded,
/// formatted on the stack).
pub struct Size(pub RecExtent);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.end.saturating_sub(self.0.start);
        let mut buf = [0u8; 16];
        let mut cur = io::Cursor::new(&mut buf[..]);
        let prefix = if self.0.exact { "" } else { "<=" };
        let _ = write!(cur, "{prefix}{n}");
        let len = usize::try_from(cur.position()).unwrap_or(0);
        f.pad(std::str::from_utf8(buf.get(..len).unwrap_or(&[])).unwrap_or(""))
    }
}

/// A record's next pointer as an absolute offset; nothing for none.
pub struct Next<'a>(pub &'a RecPage<'a>, pub &'a Rec, pub &'a str);

impl fmt::Display for Next<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let next = self
            .1
            .header
            .next_origin(usize::from(self.1.origin), self.0.logical_size() as usize);
        let mut buf = [0u8; 16];
        let mut cur = io::Cursor::new(&mut buf[..]);
        let _ = match next {
            Some(v) => write!(cur, "{v}"),
            None => write!(cur, "{}", self.2),
        };
        let len = usize::try_from(cur.position()).unwrap_or(0);
        f.pad(std::str::from_utf8(buf.get(..len).unwrap_or(&[])).unwrap_or(""))
    }
}

/// Writes one record as a JSON object's members (the caller opens and
/// closes the object).
pub fn json_record(
    j: &mut Json<'_>,
    rp: &RecPage<'_>,
    rec: &Rec,
    chain: Chain,
    ext: RecExtent,
) -> io::Result<()> {
    let h = &rec.header;
    let page = rp.bytes();
    j.kv_num("offset", rec.origin)?
        .kv_num("heap_no", h.heap_no)?
        .kv_str("chain", chain_word(chain))?
        .kv_str("type", rec.rec_type.name())?;
    j.kv_bool("deleted", h.is_deleted())?
        .kv_bool("min_rec", h.is_min_rec())?
        .kv_bool("version", h.is_versioned())?
        .kv_bool("instant", h.is_instant())?;
    j.kv_num("n_owned", h.n_owned)?.key("next")?.opt_num(
        h.next_origin(usize::from(rec.origin), rp.logical_size() as usize)
            .map(|n| n as u64),
    )?;
    j.kv_num("start", ext.start)?
        .kv_num("end", ext.end)?
        .kv_num("size", ext.end.saturating_sub(ext.start))?
        .kv_bool("exact", ext.exact)?;
    if ext.exact && rec.header.format == ibdscope_core::RecFormat::Redundant {
        j.key("fields")?.arr()?;
        let origin = usize::from(rec.origin);
        for fld in rec.fields(page) {
            if fld.null {
                j.null()?;
            } else {
                let a = origin.saturating_add(usize::from(fld.start));
                let b = origin.saturating_add(usize::from(fld.end));
                hex_value(j, page.get(a..b).unwrap_or(&[]))?;
            }
        }
        j.end_arr()?.key("external")?.arr()?;
        for (i, fld) in rec.fields(page).enumerate() {
            if fld.external {
                j.num(i as u64)?;
            }
        }
        j.end_arr()?;
    } else {
        let end = usize::from(ext.end);
        j.key("data")?;
        hex_value(j, page.get(usize::from(rec.origin)..end).unwrap_or(&[]))?;
    }
    Ok(())
}

/// `bytes` as a JSON string of lowercase hex (hex digits need no escaping), built at once.
fn hex_value(j: &mut Json<'_>, bytes: &[u8]) -> io::Result<()> {
    let mut buf = Vec::with_capacity(bytes.len().saturating_mul(2).saturating_add(2));
    buf.push(b'"');
    line::hex(&mut buf, bytes);
    buf.push(b'"');
    j.raw(&buf)?;
    Ok(())
}

/// The checksum status of a page as one word, e.g. `crc32`, `empty`, `BAD`,
/// `unverifiable-encrypted`; `+problems` when other checks failed.
pub struct Status(pub PageFacts, pub bool);

impl Status {
    /// The status of page `f` of `ts` (a doublewrite copy's page number and
    /// space id are not problems).
    pub fn of(ts: &ibdscope_core::Tablespace<'_>, f: &PageFacts) -> Status {
        Status(*f, ts.page_problems(f).any(|p| p != PageProblem::Checksum))
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.verdict {
            Verdict::Valid(a) => f.write_str(a.name())?,
            Verdict::Empty => f.write_str("empty")?,
            Verdict::Mismatch => f.write_str("BAD")?,
            Verdict::BadCompressedSize => f.write_str("BAD-size")?,
            Verdict::Unverifiable(why) => {
                write!(f, "unverifiable-{}", crate::findings::why_word(why))?
            }
            other => write!(f, "{other}")?,
        }
        if self.1 {
            f.write_str("+problems")?;
        }
        Ok(())
    }
}

/// Where a MariaDB encrypted space's pages carry their key version
/// (`buf_page_get_key_version`: bytes 0..4 under full_crc32, 26..30
/// otherwise); `None` for a space without crypt data on page 0.
#[derive(Clone, Copy)]
pub struct KeyVersions(Option<bool>);

impl KeyVersions {
    /// The key version places of `ts`.
    pub fn of_space(ts: &Tablespace<'_>) -> KeyVersions {
        use ibdscope_core::crypt::mariadb::{space_crypt_data, CryptDataRead};
        KeyVersions(match space_crypt_data(ts) {
            CryptDataRead::Present(_) => {
                Some(ts.scheme() == ibdscope_core::checksum::Scheme::FullCrc32)
            }
            _ => None,
        })
    }

    /// Whether the space has MariaDB crypt data.
    pub fn present(self) -> bool {
        self.0.is_some()
    }

    /// Page `n`'s key version (0: stored unencrypted). `None` outside a
    /// MariaDB encrypted space, and for page 0, which the server never
    /// encrypts (`fil_space_encrypt_valid_page_type`) and whose bytes
    /// 26..30 are the flush LSN.
    pub fn of(self, ts: &Tablespace<'_>, n: PageNo) -> Option<u32> {
        let full = self.0?;
        if n.0 == 0 {
            return None;
        }
        Some(
            ts.page(n)
                .map_or(0, |p| ibdscope_core::crypt::mariadb::key_version(p, full)),
        )
    }
}
