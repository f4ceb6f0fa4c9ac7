//! The JSON reader of the SDI documents MySQL 8.0+ stores in its
//! tablespaces: the internal crate's (`ibdscope_prims::json`, RFC 8259,
//! bounded in depth, never panicking, errors with the byte offset), which
//! also reads the `component_keyring_file` JSON; not re-exported. Numbers
//! keep their text (SDI ids are 64-bit and must not pass through `f64`).

pub(crate) use ibdscope_prims::json::{parse, JsonError, Value};

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
