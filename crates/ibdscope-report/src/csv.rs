//! CSV fields (RFC 4180), the one quoting rule of every CSV output.
//!
//! A field is written as it is unless it holds a comma, a double quote,
//! CR or LF, or is empty: then it is enclosed in double quotes, each quote
//! inside doubled. An empty unquoted field is "no value" (NULL, no index);
//! `""` is the empty string. Numbers and fixed words are written bare.
//!
//! A name read from a file (an index name, a path) is written as text
//! shows it ([`ibdscope::names`]: control characters, bidirectional overrides
//! and bytes that are not UTF-8 escaped), then quoted by the same rule, so
//! that no name can end a field or a row, or carry a control character to
//! a terminal. Data (`rows`' values) is written exactly ([`Field`]).

use ibdscope::names::{self, Shown};
use std::fmt::{self, Write as _};
use std::path::Path;

/// A string as one CSV field (see the module).
pub struct Field<'a>(pub &'a str);

impl fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if needs_quotes(self.0.as_bytes()) {
            quoted(f, self.0)
        } else {
            f.write_str(self.0)
        }
    }
}

/// Appends `s` to `out` as one CSV field.
pub fn push(out: &mut String, s: &str) {
    if !needs_quotes(s.as_bytes()) {
        out.push_str(s);
        return;
    }
    // Writing to a String cannot fail.
    let _ = write!(out, "{}", Field(s));
}

/// A name read from a file, as text shows it, as one CSV field.
pub fn name(s: &str) -> Name<'_> {
    Name {
        shown: names::name(s),
        quote: shown_needs_quotes(s.as_bytes()),
    }
}

/// A path, as text shows it, as one CSV field.
pub fn path(p: &Path) -> Name<'_> {
    Name {
        shown: names::path(p),
        quote: shown_needs_quotes(names::path_bytes(p)),
    }
}

/// An optional name: the name, or an empty unquoted field (no name).
pub fn opt_name(s: Option<&str>) -> OptName<'_> {
    OptName(s.map(name))
}

/// See [`name`] and [`path`].
pub struct Name<'a> {
    shown: Shown<'a>,
    /// Whether the text form needs quotes, read from the bytes themselves.
    quote: bool,
}

impl fmt::Display for Name<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.quote {
            quoted(f, self.shown)
        } else {
            write!(f, "{}", self.shown)
        }
    }
}

/// See [`opt_name`].
pub struct OptName<'a>(Option<Name<'a>>);

impl fmt::Display for OptName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(n) => n.fmt(f),
            None => Ok(()),
        }
    }
}

/// A number, or an empty field for none.
pub struct Opt<T>(pub Option<T>);

impl<T: fmt::Display> fmt::Display for Opt<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(v) => v.fmt(f),
            None => Ok(()),
        }
    }
}

/// A decimal number with a fixed number of fraction digits, or an empty
/// field when it is not finite (JSON's `null`).
pub struct Float(pub f64, pub usize);

impl fmt::Display for Float {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_finite() {
            write!(f, "{:.*}", self.1, self.0)
        } else {
            Ok(())
        }
    }
}

fn needs_quotes(b: &[u8]) -> bool {
    b.is_empty() || b.iter().any(|c| matches!(c, b',' | b'"' | b'\n' | b'\r'))
}

/// Whether the text form of `b` needs quotes: it escapes CR and LF, never
/// a comma or a quote.
fn shown_needs_quotes(b: &[u8]) -> bool {
    b.is_empty() || b.iter().any(|c| matches!(c, b',' | b'"'))
}

/// `"v"` with each quote in `v` doubled, streamed.
fn quoted(f: &mut fmt::Formatter<'_>, v: impl fmt::Display) -> fmt::Result {
    f.write_char('"')?;
    write!(Doubled(f), "{v}")?;
    f.write_char('"')
}

/// Doubles every double quote written through it.
struct Doubled<'a, 'b>(&'a mut fmt::Formatter<'b>);

impl fmt::Write for Doubled<'_, '_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut rest = s;
        while let Some(i) = rest.find('"') {
            self.0.write_str(rest.get(..=i).unwrap_or(""))?;
            self.0.write_char('"')?;
            rest = rest.get(i.saturating_add(1)..).unwrap_or("");
        }
        self.0.write_str(rest)
    }
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
    fn quoting() {
        assert_eq!(Field("abc").to_string(), "abc");
        assert_eq!(Field("").to_string(), "\"\"");
        assert_eq!(Field("a,\"b\"").to_string(), "\"a,\"\"b\"\"\"");
        assert_eq!(Field("a\r\nb").to_string(), "\"a\r\nb\"");
        let mut s = String::from("x,");
        push(&mut s, "\"");
        assert_eq!(s, "x,\"\"\"\"");
    }

    #[test]
    fn names_are_escaped_then_quoted() {
        assert_eq!(name("PRIMARY").to_string(), "PRIMARY");
        assert_eq!(name("k,\"a\"").to_string(), "\"k,\"\"a\"\"\"");
        // A line break or an escape sequence never reaches the output.
        assert_eq!(name("a\nb\x1b").to_string(), "a\\nb\\x1b");
        assert_eq!(name("a,\r").to_string(), "\"a,\\r\"");
        assert_eq!(name("").to_string(), "\"\"");
        assert_eq!(opt_name(None).to_string(), "");
        assert_eq!(path(Path::new("d,1/t.ibd")).to_string(), "\"d,1/t.ibd\"");
        assert_eq!(Opt(Some(3)).to_string(), "3");
        assert_eq!(Opt::<u32>(None).to_string(), "");
        assert_eq!(Float(0.5, 4).to_string(), "0.5000");
        assert_eq!(Float(f64::NAN, 4).to_string(), "");
    }
}
