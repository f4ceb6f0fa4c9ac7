//! How a name is shown: a file's path, or a name read from a file (an
//! index, table or column name from an SDI, a `.frm` or a DDL statement).
//!
//! In text a name never carries a control character to the terminal: C0
//! and C1 controls, DEL and the bidirectional overrides are written as
//! escapes (`\n`, `\t`, `\r`, `\x1b`, `\u{85}`, `\u{202e}`), and bytes that
//! are not UTF-8 as `\xff`; every other character is itself. JSON escapes
//! control characters by itself; a path that is not UTF-8 is written as
//! its lossy string plus `<key>_bytes`, the exact bytes
//! (`ibdscope-report`'s `Json::kv_path`).

use std::fmt;
use std::path::Path;

/// A name as text shows it (its `Display` escapes, see the module).
#[derive(Clone, Copy)]
pub struct Shown<'a>(&'a [u8]);

/// A path as text shows it.
pub fn path(p: &Path) -> Shown<'_> {
    Shown(path_bytes(p))
}

/// A name (read from a file) as text shows it.
pub fn name(s: &str) -> Shown<'_> {
    Shown(s.as_bytes())
}

/// The exact bytes of a path.
#[cfg(unix)]
pub fn path_bytes(p: &Path) -> &[u8] {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str().as_bytes()
}

/// The exact bytes of a path (its encoding where it is not Unicode).
#[cfg(not(unix))]
pub fn path_bytes(p: &Path) -> &[u8] {
    p.as_os_str().as_encoded_bytes()
}

/// A character text must not print as itself.
fn hidden(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for chunk in self.0.utf8_chunks() {
            let valid = chunk.valid();
            let mut rest = valid;
            while let Some(i) = rest.find(hidden) {
                f.write_str(rest.get(..i).unwrap_or(""))?;
                let Some(c) = rest.get(i..).and_then(|r| r.chars().next()) else {
                    break;
                };
                match c {
                    '\n' => f.write_str("\\n")?,
                    '\t' => f.write_str("\\t")?,
                    '\r' => f.write_str("\\r")?,
                    c if (c as u32) < 0x80 => write!(f, "\\x{:02x}", c as u32)?,
                    c => write!(f, "\\u{{{:x}}}", c as u32)?,
                }
                rest = rest.get(i.saturating_add(c.len_utf8())..).unwrap_or("");
            }
            f.write_str(rest)?;
            for b in chunk.invalid() {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bad_bytes_are_escaped() {
        let s = |b: &[u8]| Shown(b).to_string();
        assert_eq!(s(b"t.ibd"), "t.ibd");
        assert_eq!(s(b"a\x1b[31mb"), "a\\x1b[31mb");
        assert_eq!(s(b"a\nb\tc\rd\x7f"), "a\\nb\\tc\\rd\\x7f");
        assert_eq!(s(b"x\xffy"), "x\\xffy");
        assert_eq!(s("é\u{85}\u{202e}ü".as_bytes()), "é\\u{85}\\u{202e}ü");
    }
}
