//! The web application, compiled into the binary: one page, one script,
//! one style sheet, written by hand; nothing is fetched from elsewhere.

/// The page; `{{TOKEN}}` is replaced by the run's token (its script and
/// style sheet are fetched with it).
const HTML: &str = include_str!("app/index.html");
/// The script.
pub const JS: &str = include_str!("app/app.js");
/// The style sheet.
pub const CSS: &str = include_str!("app/app.css");

/// The page with the token in its links.
pub fn index(token: &str) -> Vec<u8> {
    HTML.replace("{{TOKEN}}", token).into_bytes()
}
