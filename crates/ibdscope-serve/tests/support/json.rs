//! JSON for the tests: the DevTools protocol's messages and the server's
//! answers, read by the project's reader (`ibdscope_prims::json`) into a
//! value with the lookups the tests use. Numbers keep their text, so a
//! value compares as the server printed it.

use ibdscope_prims::json::Value;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// A number, as written.
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

static NULL: Json = Json::Null;

impl Json {
    /// `text` parsed (by the project's own reader, `ibdscope_prims::json`),
    /// `None` when it is not one JSON value.
    pub fn parse(text: &str) -> Option<Json> {
        ibdscope_prims::json::parse(text.as_bytes())
            .ok()
            .map(Json::from)
    }

    /// Member `k` of an object (null when absent).
    pub fn get(&self, k: &str) -> &Json {
        match self {
            Json::Obj(m) => m.iter().find(|(n, _)| n == k).map_or(&NULL, |(_, v)| v),
            _ => &NULL,
        }
    }

    /// Element `i` of an array (null when absent).
    pub fn at(&self, i: usize) -> &Json {
        match self {
            Json::Arr(v) => v.get(i).unwrap_or(&NULL),
            _ => &NULL,
        }
    }

    pub fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(v) => v,
            _ => &[],
        }
    }

    pub fn as_obj(&self) -> Option<&[(String, Json)]> {
        match self {
            Json::Obj(m) => Some(m),
            _ => None,
        }
    }

    pub fn str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Member `k`'s string.
    pub fn str_of(&self, k: &str) -> Option<&str> {
        self.get(k).str()
    }

    pub fn u64(&self) -> Option<u64> {
        match self {
            Json::Num(n) => n.parse().ok(),
            _ => None,
        }
    }

    pub fn f64(&self) -> Option<f64> {
        match self {
            Json::Num(n) => n.parse().ok(),
            _ => None,
        }
    }

    /// As script's truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Json::Null => false,
            Json::Bool(b) => *b,
            Json::Num(n) => n.parse::<f64>().is_ok_and(|x| x != 0.0),
            Json::Str(s) => !s.is_empty(),
            _ => true,
        }
    }

    /// The value as the application prints it (`String(v)`; null as "-"
    /// is the caller's business): a string bare, a number as written.
    pub fn text(&self) -> String {
        match self {
            Json::Null => "null".into(),
            Json::Bool(b) => b.to_string(),
            Json::Num(n) => n.clone(),
            Json::Str(s) => s.clone(),
            _ => format!("{self:?}"),
        }
    }
}

/// `s` as a JSON string.
pub fn quote(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            c if u32::from(c) < 0x20 => o.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

impl From<Value> for Json {
    fn from(v: Value) -> Json {
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Number(n) => Json::Num(n),
            Value::String(t) => Json::Str(t),
            Value::Array(a) => Json::Arr(a.into_iter().map(Json::from).collect()),
            Value::Object(m) => Json::Obj(m.into_iter().map(|(k, v)| (k, Json::from(v))).collect()),
        }
    }
}
