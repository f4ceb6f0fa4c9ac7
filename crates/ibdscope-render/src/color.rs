//! Colours shared by the pictures and the CLI's terminal maps, so that a
//! page has the same colour in both: the index palette (ANSI 256-colour
//! numbers, turned into RGB by the xterm formula), the perceptual scale
//! (viridis) and the nearest ANSI colour of any RGB colour.

/// An sRGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rrggbb`, as SVG writes it.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// This colour mixed with white: `amount` 0.0 keeps it, 1.0 is white.
    pub fn tint(self, amount: f64) -> Rgb {
        let a = amount.clamp(0.0, 1.0);
        let m = |c: u8| (f64::from(c) + (255.0 - f64::from(c)) * a).round() as u8;
        Rgb(m(self.0), m(self.1), m(self.2))
    }
}

/// ANSI 256-colour numbers of the index palette: distinct hues, readable
/// on dark and light backgrounds, none of them a colour that means
/// something else on a map (damaged, not verifiable, free, system, freed
/// with data). Index `s` (in id order) takes `INDEX_ANSI[s % 10]`.
pub const INDEX_ANSI: [u8; 10] = [33, 208, 40, 165, 220, 44, 30, 99, 130, 125];

/// ANSI colour of free pages on a terminal (dark, close to a dark
/// background: nothing there).
pub const FREE_ANSI: u8 = 238;
/// ANSI colour of system pages.
pub const SYSTEM_ANSI: u8 = 245;
/// ANSI colour of damaged pages.
pub const DAMAGED_ANSI: u8 = 196;

/// A page that cannot be verified from the file alone (encrypted, or
/// compressed with an algorithm not decoded): magenta.
pub const UNVERIFIABLE_ANSI: u8 = 201;
/// Undo segment pages (a rollback segment header or an undo log): a
/// brown, apart from the index palette and the system grey.
pub const UNDO_ANSI: u8 = 137;
/// A page XDES marks free that still holds an index page with records:
/// pale cyan, next to the free grey.
pub const FREE_DATA_ANSI: u8 = 152;
/// Free pages in a picture: light grey on the white background (nothing
/// there), as [`FREE_ANSI`] is dark grey on a dark terminal.
pub const FREE_RGB: Rgb = Rgb(0xd0, 0xd0, 0xd0);
/// Pages nothing claims (damage).
pub const UNACCOUNTED_RGB: Rgb = Rgb(0x26, 0x26, 0x26);
/// Segment pages of no known index.
pub const OTHER_RGB: Rgb = Rgb(0xd7, 0xaf, 0x87);
/// How much an index's colour is mixed with white ([`Rgb::tint`]) for its
/// segment pages that are not B-tree pages (BLOB/LOB, allocated), in the
/// terminal, picture and browser maps alike.
pub const SEGMENT_TINT: f64 = 0.6;
/// The empty slots of a map row (blank cells show it).
pub const SLOT_RGB: Rgb = Rgb(0xf0, 0xf0, 0xf0);

/// The RGB value xterm gives ANSI 256-colour `n`.
pub fn ansi256_to_rgb(n: u8) -> Rgb {
    const BASIC: [Rgb; 16] = [
        Rgb(0, 0, 0),
        Rgb(128, 0, 0),
        Rgb(0, 128, 0),
        Rgb(128, 128, 0),
        Rgb(0, 0, 128),
        Rgb(128, 0, 128),
        Rgb(0, 128, 128),
        Rgb(192, 192, 192),
        Rgb(128, 128, 128),
        Rgb(255, 0, 0),
        Rgb(0, 255, 0),
        Rgb(255, 255, 0),
        Rgb(0, 0, 255),
        Rgb(255, 0, 255),
        Rgb(0, 255, 255),
        Rgb(255, 255, 255),
    ];
    match n {
        0..=15 => BASIC[usize::from(n)],
        16..=231 => {
            let i = n - 16;
            Rgb(
                CUBE[usize::from(i / 36)],
                CUBE[usize::from(i / 6 % 6)],
                CUBE[usize::from(i % 6)],
            )
        }
        _ => {
            let g = 8 + 10 * (n - 232);
            Rgb(g, g, g)
        }
    }
}

/// The six levels of each channel in xterm's 6×6×6 colour cube.
const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];

fn dist2(a: Rgb, b: Rgb) -> i32 {
    let d = |x: u8, y: u8| i32::from(x) - i32::from(y);
    d(a.0, b.0).pow(2) + d(a.1, b.1).pow(2) + d(a.2, b.2).pow(2)
}

/// The ANSI 256-colour number (16–255: cube or grey ramp) nearest to `c`.
pub fn rgb_to_ansi256(c: Rgb) -> u8 {
    let level = |v: u8| {
        (0..6u8)
            .min_by_key(|&i| (i32::from(CUBE[usize::from(i)]) - i32::from(v)).abs())
            .unwrap_or(0)
    };
    let (r, g, b) = (level(c.0), level(c.1), level(c.2));
    let cube = 16 + 36 * r + 6 * g + b;
    let avg = (u32::from(c.0) + u32::from(c.1) + u32::from(c.2)) / 3;
    let grey = 232 + (avg.saturating_sub(3) / 10).min(23) as u8;
    if dist2(ansi256_to_rgb(grey), c) < dist2(ansi256_to_rgb(cube), c) {
        grey
    } else {
        cube
    }
}

/// viridis (matplotlib's perceptually uniform map by van der Walt and
/// Smith, CC0) at eleven even stops; [`viridis`] interpolates between them.
const VIRIDIS: [Rgb; 11] = [
    Rgb(0x44, 0x01, 0x54),
    Rgb(0x48, 0x25, 0x76),
    Rgb(0x41, 0x44, 0x87),
    Rgb(0x35, 0x60, 0x8d),
    Rgb(0x2a, 0x78, 0x8e),
    Rgb(0x21, 0x90, 0x8c),
    Rgb(0x22, 0xa8, 0x84),
    Rgb(0x43, 0xbf, 0x71),
    Rgb(0x7a, 0xd1, 0x51),
    Rgb(0xbb, 0xdf, 0x27),
    Rgb(0xfd, 0xe7, 0x25),
];

/// The perceptual scale at `t` (0.0 dark purple … 1.0 yellow); `t` is
/// clamped, NaN gives the low end.
pub fn viridis(t: f64) -> Rgb {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let x = t * (VIRIDIS.len() - 1) as f64;
    let i = (x.floor() as usize).min(VIRIDIS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    let mix = |p: u8, q: u8| (f64::from(p) + (f64::from(q) - f64::from(p)) * f).round() as u8;
    Rgb(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Where the LSN ramp starts on [`viridis`]: its darkest purple (0.0)
/// turns into ANSI 53, near black, which vanishes on a dark terminal; from
/// 0.15 on, the oldest colour is ANSI 60 (#5f5f87), at least 3:1 in
/// contrast against black and against white.
pub const LSN_FLOOR: f64 = 0.15;

/// [`viridis`] from `floor` (at `t` 0.0) to its yellow end (at 1.0).
pub fn ramp(t: f64, floor: f64) -> Rgb {
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let f = floor.clamp(0.0, 1.0);
    viridis(f + (1.0 - f) * t)
}

/// WCAG 2 relative luminance of an sRGB colour, 0.0 (black) – 1.0.
pub fn luminance(c: Rgb) -> f64 {
    let ch = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.039_28 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * ch(c.0) + 0.7152 * ch(c.1) + 0.0722 * ch(c.2)
}

/// WCAG 2 contrast ratio of two colours (1.0 – 21.0).
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_colours_are_distinct_and_mean_nothing_else() {
        for (i, c) in INDEX_ANSI.iter().enumerate() {
            assert!(!INDEX_ANSI[..i].contains(c), "index colour {c} twice");
            for (what, other) in [
                ("damaged", DAMAGED_ANSI),
                ("not verifiable", UNVERIFIABLE_ANSI),
                ("free", FREE_ANSI),
                ("system", SYSTEM_ANSI),
                ("freed with data", FREE_DATA_ANSI),
            ] {
                assert_ne!(*c, other, "index {i}'s colour is the {what} colour");
            }
        }
    }

    #[test]
    fn xterm_values() {
        assert_eq!(ansi256_to_rgb(16), Rgb(0, 0, 0));
        assert_eq!(ansi256_to_rgb(33), Rgb(0, 135, 255));
        assert_eq!(ansi256_to_rgb(208), Rgb(255, 135, 0));
        assert_eq!(ansi256_to_rgb(231), Rgb(255, 255, 255));
        assert_eq!(ansi256_to_rgb(232), Rgb(8, 8, 8));
        assert_eq!(ansi256_to_rgb(245), Rgb(138, 138, 138));
        assert_eq!(ansi256_to_rgb(255), Rgb(238, 238, 238));
        assert_eq!(ansi256_to_rgb(9), Rgb(255, 0, 0));
    }

    #[test]
    fn nearest_ansi_round_trips_every_cube_and_grey_colour() {
        for n in 16..=255u8 {
            let back = ansi256_to_rgb(rgb_to_ansi256(ansi256_to_rgb(n)));
            assert_eq!(back, ansi256_to_rgb(n), "{n}");
        }
    }

    #[test]
    fn viridis_ends_and_monotone_lightness() {
        assert_eq!(viridis(0.0), VIRIDIS[0]);
        assert_eq!(viridis(1.0), VIRIDIS[10]);
        assert_eq!(viridis(-3.0), VIRIDIS[0]);
        assert_eq!(viridis(f64::NAN), VIRIDIS[0]);
        assert_eq!(viridis(0.5), VIRIDIS[5]);
        let luma =
            |c: Rgb| 0.2126 * f64::from(c.0) + 0.7152 * f64::from(c.1) + 0.0722 * f64::from(c.2);
        let mut last = -1.0;
        for i in 0..=100 {
            let l = luma(viridis(f64::from(i) / 100.0));
            assert!(l >= last, "lightness falls at {i}");
            last = l;
        }
    }

    #[test]
    fn palette_is_distinct_from_the_greys() {
        for a in INDEX_ANSI {
            let c = ansi256_to_rgb(a);
            assert!(dist2(c, FREE_RGB) > 3000 && dist2(c, ansi256_to_rgb(SYSTEM_ANSI)) > 3000);
        }
        assert_eq!(Rgb(1, 2, 255).hex(), "#0102ff");
        assert_eq!(Rgb(0, 0, 0).tint(1.0), Rgb(255, 255, 255));
    }

    #[test]
    fn the_oldest_lsn_colour_shows_on_dark_and_light_terminals() {
        let black = Rgb(0, 0, 0);
        let white = Rgb(255, 255, 255);
        let oldest = ansi256_to_rgb(rgb_to_ansi256(ramp(0.0, LSN_FLOOR)));
        // WCAG's 3:1, the least contrast for graphics, on both.
        assert!(contrast(oldest, black) >= 3.0, "{oldest:?}");
        assert!(contrast(oldest, white) >= 3.0, "{oldest:?}");
        // The plain viridis start is the near-black ANSI 53 this avoids.
        let plain = ansi256_to_rgb(rgb_to_ansi256(viridis(0.0)));
        assert!(contrast(plain, black) < 3.0);
        assert!(luminance(oldest) > 0.1 && luminance(white) > 0.99);
        assert_eq!(ramp(1.0, LSN_FLOOR), viridis(1.0));
        assert_eq!(ramp(0.0, 0.0), viridis(0.0));
        // Every colour of the ramp stays off the near-black ANSI colours
        // (the darkest after the oldest is ANSI 24, #005f87, 2.99:1).
        for i in 0..=100 {
            let c = ansi256_to_rgb(rgb_to_ansi256(ramp(f64::from(i) / 100.0, LSN_FLOOR)));
            assert!(contrast(c, black) >= 2.5, "{i}: {c:?}");
        }
    }
}
