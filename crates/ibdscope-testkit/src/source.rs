//! A reader of Rust sources for the checks that read the workspace's code
//! (std only, no parser crate): comments and literals blanked, then tokens
//! with their lines. Used by the import rules (`tests/imports.rs`) and the
//! public surface count (`tests/surface.rs`).

/// One token: an identifier or number, `::`, or any other character alone.
#[derive(Debug, Clone)]
pub struct Tok {
    /// The token's text.
    pub text: String,
    /// Its line, from 1.
    pub line: usize,
}

/// `cfg(test)` or `cfg(all(.., test, ..))`.
pub fn is_cfg_test(body: &[&str]) -> bool {
    match body {
        ["cfg", "(", "test", ")"] => true,
        ["cfg", "(", "all", "(", rest @ ..] => {
            // `test` directly inside all(..), not nested in not(..)/any(..).
            let mut depth = 0usize;
            for w in rest {
                match *w {
                    "(" => depth += 1,
                    ")" => match depth.checked_sub(1) {
                        Some(d) => depth = d,
                        None => break,
                    },
                    "test" if depth == 0 => return true,
                    _ => {}
                }
            }
            false
        }
        _ => false,
    }
}

/// The index of the token closing the one at `open`, or the last token.
pub fn matching(toks: &[Tok], open: usize, o: &str, c: &str) -> usize {
    let mut depth = 0usize;
    for (k, tok) in toks.iter().enumerate().skip(open) {
        if tok.text == o {
            depth += 1;
        } else if tok.text == c {
            depth -= 1;
            if depth == 0 {
                return k;
            }
        }
    }
    toks.len().saturating_sub(1)
}

/// A Rust identifier (or keyword).
pub fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// A character of an identifier or number.
pub fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Identifiers (and numbers), `::`, and every other character alone.
pub fn tokens(chars: &[char]) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if is_ident_char(c) {
            let start = i;
            while chars.get(i).is_some_and(|&c| is_ident_char(c)) {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            out.push(Tok { text, line });
        } else if c == ':' && chars.get(i + 1) == Some(&':') {
            out.push(Tok {
                text: "::".to_string(),
                line,
            });
            i += 2;
        } else {
            out.push(Tok {
                text: c.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

/// The source with comments and string and character literals blanked
/// (newlines kept, so lines still count).
pub fn blank(text: &str) -> Vec<char> {
    let mut s: Vec<char> = text.chars().collect();
    let at = |s: &[char], i: usize| s.get(i).copied().unwrap_or('\0');
    let wipe = |s: &mut [char], from: usize, to: usize| {
        for c in s.iter_mut().take(to).skip(from) {
            if *c != '\n' {
                *c = ' ';
            }
        }
    };
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let prev_ident = i > 0 && is_ident_char(s[i - 1]);
        if c == '/' && at(&s, i + 1) == '/' {
            let end = (i..s.len()).find(|&k| s[k] == '\n').unwrap_or(s.len());
            wipe(&mut s, i, end);
            i = end;
        } else if c == '/' && at(&s, i + 1) == '*' {
            // Block comments nest.
            let mut depth = 0usize;
            let mut k = i;
            while k < s.len() {
                if s[k] == '/' && at(&s, k + 1) == '*' {
                    depth += 1;
                    k += 2;
                } else if s[k] == '*' && at(&s, k + 1) == '/' {
                    depth -= 1;
                    k += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    k += 1;
                }
            }
            wipe(&mut s, i, k);
            i = k;
        } else if c == 'r'
            && (!prev_ident
                || (i >= 2 && s[i - 1] == 'b' && !is_ident_char(at(&s, i.wrapping_sub(2)))))
            && matches!(at(&s, i + 1), '"' | '#')
        {
            // A raw string r"..", r#".."#, or a raw identifier r#name.
            let hashes = (i + 1..s.len()).take_while(|&k| s[k] == '#').count();
            let quote = i + 1 + hashes;
            if at(&s, quote) != '"' {
                i += 1;
                continue;
            }
            let mut k = quote + 1;
            while k < s.len() {
                if s[k] == '"' && (1..=hashes).all(|h| at(&s, k + h) == '#') {
                    break;
                }
                k += 1;
            }
            let end = (k + 1 + hashes).min(s.len());
            wipe(&mut s, i + 1, end);
            i = end;
        } else if c == '"' {
            let mut k = i + 1;
            while k < s.len() && s[k] != '"' {
                k += if s[k] == '\\' { 2 } else { 1 };
            }
            let end = (k + 1).min(s.len());
            wipe(&mut s, i, end);
            i = end;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}'), or a lifetime ('a).
            let end = if at(&s, i + 1) == '\\' {
                (i + 3..s.len()).find(|&k| s[k] == '\'').map(|k| k + 1)
            } else if at(&s, i + 2) == '\'' {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    wipe(&mut s, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    s
}
