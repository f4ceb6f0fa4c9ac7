//! A carved image's source map (`carve`'s `IMAGE.sources`), for `rows`
//! and `records`: read through the front door (`ibdscope::sources`), and
//! what does not fit in words.

use std::path::Path;

/// The source map of the image `a` reads (`given`, or the one `carve`
/// wrote beside it), for `rows` and `records`: the map when it is usable,
/// and in words each reason it is not (the map's file and line: a
/// finding; the records then carry no source offsets).
pub(crate) fn read(
    a: &ibdscope::analysis::Analysis<'_>,
    given: Option<&Path>,
) -> (Option<ibdscope::sources::Sources>, Vec<String>) {
    let Some(s) = ibdscope::sources::read(a.path(), given, a.physical()) else {
        return (None, Vec::new());
    };
    let map = ibdscope::names::path(&s.path).to_string();
    let mut words = Vec::new();
    if let Some(e) = &s.unreadable {
        words.push(format!(
            "{map}: the source map cannot be read ({}): no source offsets",
            crate::out::reason(e)
        ));
    }
    for f in &s.findings {
        let at = match f.line {
            0 => String::new(),
            n => format!("line {n}: "),
        };
        words.push(format!(
            "{map}: {at}{}: the source map does not fit {}, no source offsets",
            f.kind,
            ibdscope::names::path(a.path())
        ));
    }
    (s.map().is_some().then_some(s), words)
}
