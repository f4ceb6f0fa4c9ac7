//! Where each glyph of a line of text goes, from the bundled TrueType
//! font's own tables (`cmap` format 4, `hhea`, `hmtx`; Apple's and
//! Microsoft's TrueType / OpenType specifications).
//!
//! plotters draws a string glyph by glyph at its pen position truncated to
//! a whole pixel and without the glyph's left side bearing (its ab_glyph
//! text draws each outline from the left edge of its pixel bounds), so
//! glyphs with a wide bearing (`1`, `_`) sit a pixel or two off and gaps
//! open or close inside words and numbers ("91 50813"). [`place`] gives
//! each glyph's left edge the font intends: the pen position, summed
//! exactly and rounded once, plus the bearing as ab_glyph floors it, so a
//! glyph drawn alone at that spot lands where the font puts it. Kerning is
//! not applied (the bundled font's digits and the labels' letters need
//! none to read right).

/// The glyphs' places in one line of text.
pub(crate) struct Placed {
    /// Per char: where to draw it alone, in pixels from the line's start.
    pub x: Vec<i32>,
    /// The line's advance width in pixels.
    pub width: f64,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn i16_at(b: &[u8], at: usize) -> Option<i16> {
    u16_at(b, at).map(|v| v as i16)
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The table `tag` of the font.
fn table<'a>(font: &'a [u8], tag: &[u8; 4]) -> Option<&'a [u8]> {
    let n = usize::from(u16_at(font, 4)?);
    (0..n).find_map(|i| {
        let rec = 12 + 16 * i;
        if font.get(rec..rec + 4)? != tag {
            return None;
        }
        let off = u32_at(font, rec + 8)? as usize;
        let len = u32_at(font, rec + 12)? as usize;
        font.get(off..off.checked_add(len)?)
    })
}

/// The Unicode BMP subtable (format 4) of `cmap`.
fn cmap4(font: &[u8]) -> Option<&[u8]> {
    let cmap = table(font, b"cmap")?;
    let n = usize::from(u16_at(cmap, 2)?);
    (0..n).find_map(|i| {
        let rec = 4 + 8 * i;
        let (platform, encoding) = (u16_at(cmap, rec)?, u16_at(cmap, rec + 2)?);
        let sub = cmap.get(u32_at(cmap, rec + 4)? as usize..)?;
        let unicode = (platform == 3 && encoding == 1) || platform == 0;
        (unicode && u16_at(sub, 0)? == 4).then_some(sub)
    })
}

/// The glyph id of `c` in a format 4 subtable (0, the missing glyph, for
/// chars it does not map).
fn glyph_id(sub: &[u8], c: char) -> u16 {
    let Ok(c) = u16::try_from(u32::from(c)) else {
        return 0;
    };
    let find = || -> Option<u16> {
        let seg2 = usize::from(u16_at(sub, 6)?);
        let ends = 14;
        let starts = ends + seg2 + 2;
        let deltas = starts + seg2;
        let ranges = deltas + seg2;
        let i = (0..seg2 / 2).find(|i| u16_at(sub, ends + 2 * i).is_some_and(|e| e >= c))?;
        let start = u16_at(sub, starts + 2 * i)?;
        if start > c {
            return None;
        }
        let delta = u16_at(sub, deltas + 2 * i)?;
        let range = usize::from(u16_at(sub, ranges + 2 * i)?);
        if range == 0 {
            return Some(c.wrapping_add(delta));
        }
        let at = ranges + 2 * i + range + 2 * usize::from(c - start);
        let g = u16_at(sub, at)?;
        (g != 0).then(|| g.wrapping_add(delta))
    };
    find().unwrap_or(0)
}

/// The places of `text`'s glyphs at `px` pixels (plotters' font size:
/// ascender to descender), or `None` when the font's tables are not
/// readable.
pub(crate) fn place(font: &[u8], text: &str, px: f64) -> Option<Placed> {
    let hhea = table(font, b"hhea")?;
    let hmtx = table(font, b"hmtx")?;
    let sub = cmap4(font)?;
    let height = f64::from(i16_at(hhea, 4)?) - f64::from(i16_at(hhea, 6)?);
    let n_metrics = usize::from(u16_at(hhea, 34)?);
    if height <= 0.0 || n_metrics == 0 {
        return None;
    }
    let scale = px / height;
    let metrics = |g: u16| -> Option<(f64, f64)> {
        let g = usize::from(g);
        let advance = u16_at(hmtx, 4 * g.min(n_metrics - 1))?;
        let lsb = if g < n_metrics {
            i16_at(hmtx, 4 * g + 2)?
        } else {
            i16_at(hmtx, 4 * n_metrics + 2 * (g - n_metrics))?
        };
        Some((f64::from(advance), f64::from(lsb)))
    };
    let mut pen = 0.0f64;
    let mut x = Vec::with_capacity(text.len());
    for c in text.chars() {
        let (advance, lsb) = metrics(glyph_id(sub, c))?;
        x.push(pen.round() as i32 + (lsb * scale).floor() as i32);
        pen += advance * scale;
    }
    Some(Placed { x, width: pen })
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::prelude::*;

    static FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");

    #[test]
    fn glyph_ids_and_advances_agree_with_plotters() {
        // At the font's own height in units a pixel is a unit, so
        // plotters' (ab_glyph's) width of a string without kerning pairs
        // is the sum of the advances.
        crate::picture::register_font();
        let hhea = table(FONT, b"hhea").unwrap();
        let height = f64::from(i16_at(hhea, 4).unwrap()) - f64::from(i16_at(hhea, 6).unwrap());
        for s in ["0123456789", "full_crc32", "REDUNDANT", "page LSN"] {
            let ours = place(FONT, s, height).unwrap().width;
            let (theirs, _) = ("sans-serif", height).into_font().box_size(s).unwrap();
            assert!(
                (ours - f64::from(theirs)).abs() <= 1.0 + 0.02 * ours,
                "{s}: {ours} {theirs}"
            );
        }
        let sub = cmap4(FONT).unwrap();
        assert_ne!(glyph_id(sub, '1'), 0);
        assert_ne!(glyph_id(sub, '5'), glyph_id(sub, '1'));
        assert_eq!(glyph_id(sub, '\u{10FFFF}'), 0);
        assert!(place(&FONT[..100], "x", 12.0).is_none());
    }
}
