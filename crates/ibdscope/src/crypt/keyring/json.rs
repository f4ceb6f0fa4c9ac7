//! The `component_keyring_file` JSON file (MySQL 8.0.24+,
//! `components/keyrings/common/json_data/json_reader.cc`): a small JSON
//! reader (objects, arrays, strings; other values skipped), nesting at
//! most [`MAX_DEPTH`] deep, and the schema the component validates.

use super::{err, Keyring, KeyringError, KeyringFormat, KeyringKey, Secret};

/// Deepest nesting read (the component's files nest three deep).
const MAX_DEPTH: usize = 32;

/// A JSON value, as much of it as a keyring needs.
enum Value {
    Object(Vec<(String, Value)>),
    Array(Vec<Value>),
    Str(String),
    /// A number, `true`, `false` or `null`.
    Other,
}

impl Value {
    fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }
    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos = self.pos.saturating_add(1);
        Some(c)
    }
    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.bump();
        }
    }
    fn expect(&mut self, c: u8, what: &'static str) -> Result<(), KeyringError> {
        self.ws();
        if self.bump() == Some(c) {
            Ok(())
        } else {
            err(self.pos.saturating_sub(1), what)
        }
    }
    fn value(&mut self, depth: usize) -> Result<Value, KeyringError> {
        if depth > MAX_DEPTH {
            return err(self.pos, "JSON nested too deeply");
        }
        self.ws();
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Value::Str),
            Some(b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
                while matches!(
                    self.peek(),
                    Some(b'-' | b'+' | b'.' | b'0'..=b'9' | b'a'..=b'z' | b'E')
                ) {
                    self.bump();
                }
                Ok(Value::Other)
            }
            _ => err(self.pos, "not a JSON value"),
        }
    }
    fn object(&mut self, depth: usize) -> Result<Value, KeyringError> {
        self.expect(b'{', "expected '{'")?;
        let mut members = Vec::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(Value::Object(members));
        }
        loop {
            self.ws();
            let key = self.string()?;
            self.expect(b':', "expected ':' after a JSON key")?;
            members.push((key, self.value(depth.saturating_add(1))?));
            self.ws();
            match self.bump() {
                Some(b',') => continue,
                Some(b'}') => return Ok(Value::Object(members)),
                _ => return err(self.pos.saturating_sub(1), "expected ',' or '}'"),
            }
        }
    }
    fn array(&mut self, depth: usize) -> Result<Value, KeyringError> {
        self.expect(b'[', "expected '['")?;
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
                _ => return err(self.pos.saturating_sub(1), "expected ',' or ']'"),
            }
        }
    }
    fn hex4(&mut self) -> Result<u32, KeyringError> {
        let mut v = 0u32;
        for _ in 0..4 {
            let d = self.bump().and_then(|c| char::from(c).to_digit(16));
            let Some(d) = d else {
                return err(self.pos, "bad \\u escape in a JSON string");
            };
            v = (v << 4) | d;
        }
        Ok(v)
    }
    fn string(&mut self) -> Result<String, KeyringError> {
        let start = self.pos;
        if self.bump() != Some(b'"') {
            return err(start, "expected a JSON string");
        }
        let mut out: Vec<u8> = Vec::new();
        loop {
            match self.bump() {
                None => return err(start, "a JSON string is not closed"),
                Some(b'"') => break,
                Some(b'\\') => {
                    let c = match self.bump() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let hi = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&hi)
                                && self.bump() == Some(b'\\')
                                && self.bump() == Some(b'u')
                            {
                                let lo = self.hex4()?;
                                0x10000 | ((hi & 0x3FF) << 10) | (lo.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                hi
                            };
                            char::from_u32(code).unwrap_or('\u{FFFD}')
                        }
                        _ => return err(self.pos.saturating_sub(1), "bad escape in a JSON string"),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                Some(c) => out.push(c),
            }
        }
        String::from_utf8(out).or_else(|_| err(start, "a JSON string is not UTF-8"))
    }
}

/// Hexadecimal digits to bytes (`unhex_string`): pairs of digits, either
/// case.
fn unhex(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    b.chunks_exact(2)
        .map(|p| {
            let hi = char::from(*p.first()?).to_digit(16)?;
            let lo = char::from(*p.get(1)?).to_digit(16)?;
            u8::try_from((hi << 4) | lo).ok()
        })
        .collect()
}

/// The component's file: the document, then each element by the schema
/// `json_reader.cc` validates (`user`, `data_id`, `data_type`, `data` are
/// strings, all required).
pub(super) fn parse(bytes: &[u8]) -> Result<Keyring, KeyringError> {
    let mut r = Reader { b: bytes, pos: 0 };
    let mut doc = r.value(0)?;
    r.ws();
    let keyring = if r.pos == bytes.len() {
        keys(&doc)
    } else {
        err(r.pos, "bytes after the JSON document")
    };
    scrub(&mut doc);
    keyring
}

/// Wipes every string of `v` (the hexadecimal key data among them).
fn scrub(v: &mut Value) {
    match v {
        Value::Object(m) => m.iter_mut().for_each(|(k, v)| {
            scrub_str(k);
            scrub(v);
        }),
        Value::Array(a) => a.iter_mut().for_each(scrub),
        Value::Str(s) => scrub_str(s),
        Value::Other => {}
    }
}

fn scrub_str(s: &mut String) {
    let mut b = core::mem::take(s).into_bytes();
    super::super::wipe(&mut b);
}

/// The keys of the document, by the component's schema.
fn keys(doc: &Value) -> Result<Keyring, KeyringError> {
    if doc.get("version").and_then(Value::str).is_none() {
        return err(0, "the JSON keyring has no \"version\" string");
    }
    let Some(Value::Array(elements)) = doc.get("elements") else {
        return err(0, "the JSON keyring has no \"elements\" array");
    };
    let mut keys = Vec::with_capacity(elements.len());
    for e in elements {
        let field = |k: &str| e.get(k).and_then(Value::str);
        let (Some(user), Some(id), Some(ty), Some(data)) = (
            field("user"),
            field("data_id"),
            field("data_type"),
            field("data"),
        ) else {
            return err(
                0,
                "a JSON keyring element lacks user, data_id, data_type or data",
            );
        };
        let Some(bytes) = unhex(data) else {
            return err(0, "a JSON keyring element's data is not hexadecimal");
        };
        keys.push(KeyringKey {
            id: id.to_owned(),
            key_type: ty.to_owned(),
            user: user.to_owned(),
            data: Secret::new(bytes),
        });
    }
    Ok(Keyring {
        format: KeyringFormat::ComponentJson,
        digest_ok: true,
        keys,
    })
}
