//! A streaming JSON writer, by hand (the project ships no JSON crate).
//! Commas and nesting are tracked; strings are escaped per RFC 8259.

use std::fmt;
use std::io::{self, Write};

/// Writes one JSON value to `w`, streaming.
pub struct Json<'w> {
    w: &'w mut dyn Write,
    /// One entry per open container: has it got a member yet?
    stack: Vec<bool>,
    /// A key was just written; the next value follows it directly.
    after_key: bool,
}

impl<'w> Json<'w> {
    /// A writer onto `w`.
    pub fn new(w: &'w mut dyn Write) -> Self {
        Json {
            w,
            stack: Vec::new(),
            after_key: false,
        }
    }

    /// The underlying writer, for raw text between documents (a newline
    /// after each JSON Lines object, or text and CSV output).
    pub fn writer(&mut self) -> &mut dyn Write {
        &mut *self.w
    }

    fn sep(&mut self) -> io::Result<()> {
        if self.after_key {
            self.after_key = false;
            return Ok(());
        }
        if let Some(has) = self.stack.last_mut() {
            if *has {
                self.w.write_all(b",")?;
            }
            *has = true;
        }
        Ok(())
    }

    /// `{`
    pub fn obj(&mut self) -> io::Result<&mut Self> {
        self.sep()?;
        self.w.write_all(b"{")?;
        self.stack.push(false);
        Ok(self)
    }
    /// `[`
    pub fn arr(&mut self) -> io::Result<&mut Self> {
        self.sep()?;
        self.w.write_all(b"[")?;
        self.stack.push(false);
        Ok(self)
    }
    /// `}`
    pub fn end_obj(&mut self) -> io::Result<&mut Self> {
        self.stack.pop();
        self.w.write_all(b"}")?;
        Ok(self)
    }
    /// `]`
    pub fn end_arr(&mut self) -> io::Result<&mut Self> {
        self.stack.pop();
        self.w.write_all(b"]")?;
        Ok(self)
    }
    /// An object key.
    pub fn key(&mut self, k: &str) -> io::Result<&mut Self> {
        self.sep()?;
        write_str(self.w, k)?;
        self.w.write_all(b":")?;
        self.after_key = true;
        Ok(self)
    }
    /// A string value.
    pub fn str(&mut self, v: &str) -> io::Result<&mut Self> {
        self.sep()?;
        write_str(self.w, v)?;
        Ok(self)
    }
    /// A string value from anything displayable, escaped as it streams.
    pub fn display(&mut self, v: &dyn fmt::Display) -> io::Result<&mut Self> {
        self.sep()?;
        self.w.write_all(b"\"")?;
        let mut esc = Escape {
            w: &mut *self.w,
            err: None,
        };
        if fmt::write(&mut esc, format_args!("{v}")).is_err() {
            return Err(esc
                .err
                .unwrap_or_else(|| io::Error::other("formatting failed")));
        }
        self.w.write_all(b"\"")?;
        Ok(self)
    }
    /// `"key": display`.
    pub fn kv_display(&mut self, k: &str, v: &dyn fmt::Display) -> io::Result<&mut Self> {
        self.key(k)?.display(v)
    }
    /// A value given as JSON text already checked to be one document
    /// (the SDI as the server wrote it).
    pub fn raw(&mut self, json: &[u8]) -> io::Result<&mut Self> {
        self.sep()?;
        self.w.write_all(json)?;
        Ok(self)
    }
    /// A number value.
    pub fn num(&mut self, v: impl Into<u64>) -> io::Result<&mut Self> {
        self.sep()?;
        write!(self.w, "{}", v.into())?;
        Ok(self)
    }
    /// A decimal number with `digits` fraction digits (`null` if not finite).
    pub fn float(&mut self, v: f64, digits: usize) -> io::Result<&mut Self> {
        self.sep()?;
        if v.is_finite() {
            write!(self.w, "{v:.digits$}")?;
        } else {
            self.w.write_all(b"null")?;
        }
        Ok(self)
    }
    /// A boolean value.
    pub fn bool(&mut self, v: bool) -> io::Result<&mut Self> {
        self.sep()?;
        self.w.write_all(if v { b"true" } else { b"false" })?;
        Ok(self)
    }
    /// `null`.
    pub fn null(&mut self) -> io::Result<&mut Self> {
        self.sep()?;
        self.w.write_all(b"null")?;
        Ok(self)
    }
    /// A number or `null`.
    pub fn opt_num(&mut self, v: Option<u64>) -> io::Result<&mut Self> {
        match v {
            Some(v) => self.num(v),
            None => self.null(),
        }
    }
    /// `"index_id": N, "index_name": "NAME"` (null when no definition
    /// names it).
    pub fn kv_index(
        &mut self,
        a: &ibdscope::analysis::Analysis<'_>,
        id: ibdscope_core::IndexId,
    ) -> io::Result<&mut Self> {
        self.kv_num("index_id", id.0)?.key("index_name")?;
        match a.index_name(id) {
            Some(n) => self.str(n),
            None => self.null(),
        }
    }

    /// `"key": "value"`.
    pub fn kv_str(&mut self, k: &str, v: &str) -> io::Result<&mut Self> {
        self.key(k)?.str(v)
    }
    /// `"key": path` as a string; a path that is not UTF-8 is written
    /// lossily (U+FFFD) and followed by `"key_bytes": [its exact bytes]`.
    pub fn kv_path(&mut self, k: &str, p: &std::path::Path) -> io::Result<&mut Self> {
        let bytes = ibdscope::names::path_bytes(p);
        match std::str::from_utf8(bytes) {
            Ok(s) => self.kv_str(k, s),
            Err(_) => {
                self.kv_str(k, &String::from_utf8_lossy(bytes))?;
                self.key(&format!("{k}_bytes"))?.arr()?;
                for &b in bytes {
                    self.num(b)?;
                }
                self.end_arr()
            }
        }
    }
    /// `"key": number`.
    pub fn kv_num(&mut self, k: &str, v: impl Into<u64>) -> io::Result<&mut Self> {
        self.key(k)?.num(v)
    }
    /// `"key": bool`.
    pub fn kv_bool(&mut self, k: &str, v: bool) -> io::Result<&mut Self> {
        self.key(k)?.bool(v)
    }
}

struct Escape<'a> {
    w: &'a mut dyn Write,
    err: Option<io::Error>,
}

impl fmt::Write for Escape<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        escape(self.w, s).map_err(|e| {
            self.err = Some(e);
            fmt::Error
        })
    }
}

/// Writes `s` as a JSON string.
pub fn write_str(w: &mut dyn Write, s: &str) -> io::Result<()> {
    w.write_all(b"\"")?;
    escape(w, s)?;
    w.write_all(b"\"")
}

/// Writes the escaped body of a JSON string.
fn escape(w: &mut dyn Write, s: &str) -> io::Result<()> {
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let esc: Option<&str> = match c {
            '"' => Some("\\\""),
            '\\' => Some("\\\\"),
            '\n' => Some("\\n"),
            '\r' => Some("\\r"),
            '\t' => Some("\\t"),
            // C0 controls must be escaped; DEL and C1 controls are, so
            // that no name carries one raw to a terminal.
            c if (c as u32) < 0x20 || ('\u{7f}'..='\u{9f}').contains(&c) => None,
            _ => continue,
        };
        w.write_all(s.as_bytes().get(start..i).unwrap_or_default())?;
        match esc {
            Some(e) => w.write_all(e.as_bytes())?,
            None => write!(w, "\\u{:04x}", c as u32)?,
        }
        start = i.saturating_add(c.len_utf8());
    }
    w.write_all(s.as_bytes().get(start..).unwrap_or_default())
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
mod tests {
    use super::*;

    #[test]
    fn nesting_and_escapes() {
        let mut out = Vec::new();
        let mut j = Json::new(&mut out);
        j.obj().unwrap();
        j.kv_str("a\"b", "x\ny\u{1}").unwrap();
        j.key("list").unwrap().arr().unwrap();
        j.num(1u32)
            .unwrap()
            .num(2u32)
            .unwrap()
            .obj()
            .unwrap()
            .end_obj()
            .unwrap();
        j.end_arr().unwrap();
        j.kv_bool("t", true).unwrap();
        j.end_obj().unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a\"b":"x\ny\u0001","list":[1,2,{}],"t":true}"#
        );
    }
}
