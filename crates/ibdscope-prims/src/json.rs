//! A small JSON reader (RFC 8259), bounded in depth, never panicking,
//! errors with the byte offset. It reads the SDI documents MySQL 8.0+
//! stores in its tablespaces (`ibdscope-schema`) and the
//! `component_keyring_file` JSON (`crypt::keyring`).
//!
//! Numbers keep their text (SDI ids are 64-bit and must not pass through
//! `f64`); strings are unescaped, including `\uXXXX` surrogate pairs.
//!
//! Key text: every string's buffer is sized before it is filled (the
//! bytes up to its closing quote bound its unescaped length), so no buffer
//! grows and leaves a copy behind. [`parse_secret`] also clears, with the
//! caller's function, every string of a document it gives up on, and
//! [`Value::scrub`] clears those of a document read.

use std::fmt;

/// Nesting deeper than this is refused (SDI documents nest about 6 deep).
pub const MAX_DEPTH: u32 = 128;

/// Clears a buffer that held secret text (`crypt::wipe`).
pub type Scrub = fn(&mut [u8]);

/// A parsed JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, members in document order.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// Member `key` of an object (the first, if repeated).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number as `u64`, if this is a non-negative integer that fits.
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    /// The number as `i64`, if this is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.parse().ok(),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// Clears every string and number of the value with `scrub` (member
    /// names included), leaving them empty.
    pub fn scrub(&mut self, scrub: Scrub) {
        match self {
            Value::Null | Value::Bool(_) => {}
            Value::Number(s) | Value::String(s) => scrub_string(s, scrub),
            Value::Array(a) => a.iter_mut().for_each(|v| v.scrub(scrub)),
            Value::Object(m) => m.iter_mut().for_each(|(k, v)| {
                scrub_string(k, scrub);
                v.scrub(scrub);
            }),
        }
    }
}

fn scrub_string(s: &mut String, scrub: Scrub) {
    let mut b = core::mem::take(s).into_bytes();
    scrub(&mut b);
}

/// Why a document could not be read, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct JsonError {
    /// What was expected or found.
    pub what: &'static str,
    /// Byte offset in the document.
    pub offset: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON: {} at byte {}", self.what, self.offset)
    }
}

impl std::error::Error for JsonError {}

/// Parses one JSON document (surrounding whitespace allowed, nothing else).
pub fn parse(text: &[u8]) -> Result<Value, JsonError> {
    Parser {
        s: text,
        i: 0,
        max_depth: MAX_DEPTH,
        scrub: None,
    }
    .document()
}

/// [`parse`] for a document that holds secrets, nesting at most
/// `max_depth` deep: on an error every string read so far is cleared with
/// `scrub` before it is dropped. The caller clears the document it gets
/// ([`Value::scrub`]).
pub fn parse_secret(text: &[u8], max_depth: u32, scrub: Scrub) -> Result<Value, JsonError> {
    Parser {
        s: text,
        i: 0,
        max_depth,
        scrub: Some(scrub),
    }
    .document()
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    max_depth: u32,
    /// Clears what an error drops (`parse_secret`).
    scrub: Option<Scrub>,
}

impl Parser<'_> {
    fn document(&mut self) -> Result<Value, JsonError> {
        let mut v = self.value(0)?;
        self.ws();
        if self.i != self.s.len() {
            self.drop_value(&mut v);
            return Err(self.err("trailing bytes after the document"));
        }
        Ok(v)
    }

    /// Clears `v` if this parse holds secrets (it is about to be dropped).
    fn drop_value(&self, v: &mut Value) {
        if let Some(f) = self.scrub {
            v.scrub(f);
        }
    }

    fn drop_string(&self, s: &mut String) {
        if let Some(f) = self.scrub {
            scrub_string(s, f);
        }
    }

    fn err(&self, what: &'static str) -> JsonError {
        JsonError {
            what,
            offset: self.i,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i = self.i.saturating_add(1);
        Some(c)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i = self.i.saturating_add(1);
        }
    }

    fn literal(&mut self, word: &'static [u8], v: Value) -> Result<Value, JsonError> {
        if self.s.get(self.i..self.i.saturating_add(word.len())) == Some(word) {
            self.i = self.i.saturating_add(word.len());
            Ok(v)
        } else {
            Err(self.err("unknown literal"))
        }
    }

    fn value(&mut self, depth: u32) -> Result<Value, JsonError> {
        if depth > self.max_depth {
            return Err(self.err("nesting too deep"));
        }
        self.ws();
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Value::String),
            Some(b't') => self.literal(b"true", Value::Bool(true)),
            Some(b'f') => self.literal(b"false", Value::Bool(false)),
            Some(b'n') => self.literal(b"null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.err("unexpected byte")),
            None => Err(self.err("document ends early")),
        }
    }

    fn object(&mut self, depth: u32) -> Result<Value, JsonError> {
        self.bump();
        let mut members = Vec::new();
        match self.members(depth, &mut members) {
            Ok(()) => Ok(Value::Object(members)),
            Err(e) => {
                let mut partial = Value::Object(members);
                self.drop_value(&mut partial);
                Err(e)
            }
        }
    }

    fn members(&mut self, depth: u32, members: &mut Vec<(String, Value)>) -> Result<(), JsonError> {
        self.ws();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(());
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a member name"));
            }
            let mut key = self.string()?;
            self.ws();
            if self.bump() != Some(b':') {
                self.drop_string(&mut key);
                return Err(self.err("expected ':'"));
            }
            let v = match self.value(depth.saturating_add(1)) {
                Ok(v) => v,
                Err(e) => {
                    self.drop_string(&mut key);
                    return Err(e);
                }
            };
            members.push((key, v));
            self.ws();
            match self.bump() {
                Some(b',') => continue,
                Some(b'}') => return Ok(()),
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: u32) -> Result<Value, JsonError> {
        self.bump();
        let mut items = Vec::new();
        match self.items(depth, &mut items) {
            Ok(()) => Ok(Value::Array(items)),
            Err(e) => {
                let mut partial = Value::Array(items);
                self.drop_value(&mut partial);
                Err(e)
            }
        }
    }

    fn items(&mut self, depth: u32, items: &mut Vec<Value>) -> Result<(), JsonError> {
        self.ws();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(());
        }
        loop {
            items.push(self.value(depth.saturating_add(1))?);
            self.ws();
            match self.bump() {
                Some(b',') => continue,
                Some(b']') => return Ok(()),
                _ => return Err(self.err("expected ',' or ']'")),
            }
        }
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.i;
        while matches!(
            self.peek(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
        ) {
            self.i = self.i.saturating_add(1);
        }
        let text = self.s.get(start..self.i).unwrap_or(&[]);
        let ok = std::str::from_utf8(text)
            .ok()
            .filter(|t| t.parse::<f64>().is_ok() && !t.starts_with('+') && !t.ends_with('.'));
        match ok {
            Some(t) => Ok(Value::Number(t.to_string())),
            None => Err(JsonError {
                what: "malformed number",
                offset: start,
            }),
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = self
                .bump()
                .and_then(|c| char::from(c).to_digit(16))
                .ok_or_else(|| self.err("bad \\u escape"))?;
            v = v << 4 | d;
        }
        Ok(v)
    }

    /// The bytes from here to the string's closing quote (escaped quotes
    /// skipped): an escape never unescapes longer than it is written, so
    /// this bounds the string's length.
    fn span(&self) -> usize {
        let rest = self.s.get(self.i..).unwrap_or(&[]);
        let mut escaped = false;
        rest.iter()
            .position(|&c| {
                let end = c == b'"' && !escaped;
                escaped = c == b'\\' && !escaped;
                end
            })
            .unwrap_or(rest.len())
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.bump();
        // sized once: no reallocation leaves a copy of the text behind
        let mut out: Vec<u8> = Vec::with_capacity(self.span());
        let r = self.string_into(&mut out);
        match r {
            Ok(()) => match String::from_utf8(out) {
                Ok(s) => Ok(s),
                Err(e) => {
                    let mut b = e.into_bytes();
                    if let Some(f) = self.scrub {
                        f(&mut b);
                    }
                    Err(self.err("string is not UTF-8"))
                }
            },
            Err(e) => {
                if let Some(f) = self.scrub {
                    f(&mut out);
                }
                Err(e)
            }
        }
    }

    fn string_into(&mut self, out: &mut Vec<u8>) -> Result<(), JsonError> {
        loop {
            let c = self.bump().ok_or_else(|| self.err("string ends early"))?;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.bump().ok_or_else(|| self.err("string ends early"))?;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi)
                                && self.s.get(self.i..self.i.saturating_add(2)) == Some(b"\\u")
                            {
                                self.i = self.i.saturating_add(2);
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(self.err("bad surrogate pair"));
                                }
                                0x10000u32
                                    .saturating_add((hi.saturating_sub(0xD800)) << 10)
                                    .saturating_add(lo.saturating_sub(0xDC00))
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return Err(self.err("bad escape")),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                0..=0x1f => return Err(self.err("control byte in string")),
                _ => out.push(c),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn zero(b: &mut [u8]) {
        b.fill(0);
    }

    #[test]
    fn string_buffers_are_sized_before_they_are_filled() {
        // escapes, a surrogate pair and plain text: the buffer never grows
        for doc in [
            &br#""00112233445566778899aabbccddeeff""#[..],
            br#""a\"b\\c\u0041\ud83d\ude00\n""#,
            br#""""#,
        ] {
            let mut p = Parser {
                s: doc,
                i: 0,
                max_depth: MAX_DEPTH,
                scrub: None,
            };
            let bound = {
                p.i = 1;
                p.span()
            };
            p.i = 0;
            let s = p.string().unwrap();
            assert!(s.len() <= bound, "{s:?}");
            assert!(
                s.capacity() == bound,
                "{s:?}: capacity {} not {bound}",
                s.capacity()
            );
        }
    }

    #[test]
    fn scrub_clears_every_string_and_name() {
        let mut v = parse_secret(br#"{"k":["00ff",{"d":"abcd"}],"n":12}"#, 8, zero).unwrap();
        v.scrub(zero);
        assert_eq!(
            v,
            Value::Object(vec![
                (
                    String::new(),
                    Value::Array(vec![
                        Value::String(String::new()),
                        Value::Object(vec![(String::new(), Value::String(String::new()))])
                    ])
                ),
                (String::new(), Value::Number(String::new())),
            ])
        );
    }

    #[test]
    fn a_secret_parse_clears_what_it_gives_up() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static CLEARED: AtomicUsize = AtomicUsize::new(0);
        fn count(b: &mut [u8]) {
            CLEARED.fetch_add(b.len(), Ordering::SeqCst);
            b.fill(0);
        }
        // an error after two strings (4 + 8 bytes of text), in an unclosed
        // string (6 bytes read), and after a whole document
        for (doc, text) in [
            (&br#"{"data":"00112233" x"#[..], 12),
            (br#"["abcdef"#, 6),
            (br#"{"data":"0011"} x"#, 8),
        ] {
            CLEARED.store(0, Ordering::SeqCst);
            assert!(parse_secret(doc, 8, count).is_err());
            assert_eq!(
                CLEARED.load(Ordering::SeqCst),
                text,
                "{}",
                String::from_utf8_lossy(doc)
            );
        }
        assert_eq!(
            parse_secret(b"[[[1]]]", 2, count).unwrap_err().what,
            "nesting too deep"
        );
    }
}
