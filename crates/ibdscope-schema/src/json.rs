//! A small JSON reader (RFC 8259) for the SDI documents MySQL 8.0+ stores
//! in its tablespaces: enough to pull out the table definition, bounded in
//! depth, never panicking, errors with the byte offset.
//!
//! Numbers keep their text (SDI ids are 64-bit and must not pass through
//! `f64`); strings are unescaped, including `\uXXXX` surrogate pairs.

use std::fmt;

/// Nesting deeper than this is refused (SDI documents nest about 6 deep).
pub const MAX_DEPTH: u32 = 128;

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
    let mut p = Parser { s: text, i: 0 };
    let v = p.value(0)?;
    p.ws();
    if p.i != text.len() {
        return Err(p.err("trailing bytes after the document"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
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
        if depth > MAX_DEPTH {
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
        self.ws();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(Value::Object(members));
        }
        loop {
            self.ws();
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a member name"));
            }
            let key = self.string()?;
            self.ws();
            if self.bump() != Some(b':') {
                return Err(self.err("expected ':'"));
            }
            let v = self.value(depth.saturating_add(1))?;
            members.push((key, v));
            self.ws();
            match self.bump() {
                Some(b',') => continue,
                Some(b'}') => return Ok(Value::Object(members)),
                _ => return Err(self.err("expected ',' or '}'")),
            }
        }
    }

    fn array(&mut self, depth: u32) -> Result<Value, JsonError> {
        self.bump();
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value(depth.saturating_add(1))?);
            self.ws();
            match self.bump() {
                Some(b',') => continue,
                Some(b']') => return Ok(Value::Array(items)),
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

    fn string(&mut self) -> Result<String, JsonError> {
        self.bump();
        let mut out: Vec<u8> = Vec::new();
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
        String::from_utf8(out).map_err(|_| self.err("string is not UTF-8"))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn reads_values_and_keeps_number_text() {
        let v = parse(br#" {"a": [1, -2.5e3, true, null, "x\u00e9\ud83d\ude00\n"], "id": 18446744073709551615, "o": {}} "#)
            .unwrap();
        let a = v.get("a").unwrap().as_array().unwrap();
        assert_eq!(a[0].as_u64(), Some(1));
        assert_eq!(a[1], Value::Number("-2.5e3".into()));
        assert_eq!(a[2].as_bool(), Some(true));
        assert_eq!(a[3], Value::Null);
        assert_eq!(a[4].as_str(), Some("xé😀\n"));
        assert_eq!(v.get("id").unwrap().as_u64(), Some(u64::MAX));
        assert_eq!(v.get("o"), Some(&Value::Object(vec![])));
    }

    #[test]
    fn errors_carry_offsets_and_never_panic() {
        assert_eq!(parse(b"[1,]").unwrap_err().offset, 3);
        assert_eq!(parse(b"{\"a\" 1}").unwrap_err().what, "expected ':'");
        assert!(parse(b"\"abc").is_err());
        assert!(parse(b"1 2").is_err());
        let deep = "[".repeat(10_000);
        assert_eq!(parse(deep.as_bytes()).unwrap_err().what, "nesting too deep");
        // Every prefix of a document fails or parses; none panics.
        let doc = br#"{"k":[1,{"x":"\u0041\\"},false],"n":-0.5}"#;
        for i in 0..doc.len() {
            let _ = parse(&doc[..i]);
        }
        assert!(parse(doc).is_ok());
    }
}
