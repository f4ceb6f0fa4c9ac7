//! Writing an output file (`--out`) without ever touching an input.
//!
//! [`check`] refuses an output that is the same file as an input however
//! it is reached (a hard link, a symbolic link, a bind mount, a
//! `/proc/self/fd` path: the device and inode are compared, not the
//! names), and one that is a directory, a FIFO, a socket or a device.
//! [`write_via_temp`] writes into a new file beside the target and renames
//! it over the target only when the whole file was written, so a failed
//! draw leaves the old target as it was and no partial file.

use crate::args::{Cmd, Opts};
use crate::error::{Error, ErrorKind};
use crate::json::Json;
use crate::outcome::Outcome;
use ibdscope_render::picture::cell_color;
use ibdscope_render::{render, ImageFormat, Picture};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// Every file a run may read: the inputs, a given `.frm` or DDL file, and
/// the `.frm` beside each input (read when the input has no SDI).
pub fn inputs(opts: &Opts) -> Vec<PathBuf> {
    let mut v = opts.files.clone();
    let def = match &opts.cmd {
        Cmd::Schema(d) => Some(d),
        Cmd::Rows(r) => Some(&r.def),
        _ => None,
    };
    if let Some(d) = def {
        v.extend(d.frm.iter().chain(d.ddl.iter()).cloned());
    }
    v.extend(opts.files.iter().map(|f| f.with_extension("frm")));
    v
}

/// A file's identity: device and inode.
#[cfg(unix)]
fn identity(m: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_: &fs::Metadata) -> Option<(u64, u64)> {
    None
}

/// `Err` when `out` must not be written: it is one of `inputs` (by
/// device and inode, or by canonical path where the system has no
/// inodes), or it exists and is not a regular file.
pub fn check(out: &Path, inputs: &[PathBuf]) -> Result<(), Error> {
    let Ok(meta) = fs::metadata(out) else {
        // Nothing there (or a dangling link, which the rename replaces).
        return Ok(());
    };
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            ErrorKind::OutIsDirectory
        } else {
            ErrorKind::OutNotRegular
        };
        return Err(Error::at(kind, out));
    }
    let id = identity(&meta);
    let same = |input: &PathBuf| match fs::metadata(input) {
        Ok(m) => match (id, identity(&m)) {
            (Some(a), Some(b)) => a == b,
            _ => matches!((out.canonicalize(), input.canonicalize()), (Ok(a), Ok(b)) if a == b),
        },
        Err(_) => false,
    };
    if let Some(input) = inputs.iter().find(|i| same(i)) {
        return Err(Error::at(ErrorKind::OutIsInput(input.clone()), out));
    }
    Ok(())
}

/// One temporary name per call in this process.
static TEMP_NO: AtomicU32 = AtomicU32::new(0);

/// A new file beside `target`, created empty (`create_new`), removed when
/// dropped unless it was renamed.
struct Temp {
    path: PathBuf,
    kept: bool,
}

impl Temp {
    fn beside(target: &Path) -> Result<Temp, Error> {
        let dir = match target.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = target.file_name().unwrap_or_default().to_string_lossy();
        // The extension stays last: the PNG encoder picks its format by it.
        let ext = target.extension().unwrap_or_default().to_string_lossy();
        loop {
            let n = TEMP_NO.fetch_add(1, Ordering::Relaxed);
            let path = dir.join(format!(".{name}.{}-{n}.tmp.{ext}", std::process::id()));
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(_) => return Ok(Temp { path, kept: false }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < u32::MAX => {}
                Err(e) => {
                    let dir = dir.to_path_buf();
                    let kind = match e.kind() {
                        std::io::ErrorKind::NotFound => ErrorKind::NoSuchDirectory(dir),
                        std::io::ErrorKind::NotADirectory => ErrorKind::NotADirectory(dir),
                        _ => ErrorKind::CreateIn(dir, std::sync::Arc::new(e)),
                    };
                    return Err(Error::at(kind, target));
                }
            }
        }
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if !self.kept {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Runs `write` on a new temporary file beside `target`, then renames it
/// over `target`; when `write` fails the temporary file is removed and
/// `target` is left as it was. A symbolic link is followed (the file it
/// names is replaced, the link stays), as writing through it would.
pub fn write_via_temp<T>(
    target: &Path,
    write: impl FnOnce(&Path) -> Result<T, Error>,
) -> Result<T, Error> {
    let resolved = match fs::symlink_metadata(target) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(target).ok(),
        _ => None,
    };
    let target = resolved.as_deref().unwrap_or(target);
    let mut temp = Temp::beside(target)?;
    let v = write(&temp.path)?;
    fs::rename(&temp.path, target)
        .map_err(|e| Error::at(ErrorKind::Write(std::sync::Arc::new(e)), target))?;
    temp.kept = true;
    Ok(v)
}

/// The system's reason for an I/O error as words in a sentence: "no such
/// file or directory", "permission denied", "no space left on device",
/// without the error number.
pub fn reason(e: &std::io::Error) -> String {
    crate::error::reason(e)
}

/// The reason in a drawing library's error text, which carries the I/O
/// error only in its debug form (`Drawing backend error:
/// ImageError(IoError(Os { code: 2, kind: NotFound, … }))`): the system's
/// words for that error number, else the text without the wrapping.
pub fn draw_reason(text: &str) -> String {
    let code = text.find("code: ").and_then(|at| {
        let digits: String = text
            .get(at.saturating_add(6)..)
            .unwrap_or("")
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse::<i32>().ok()
    });
    if let Some(code) = code {
        return reason(&std::io::Error::from_raw_os_error(code));
    }
    let text = text
        .strip_prefix("Drawing backend error: ")
        .unwrap_or(text)
        .trim();
    format!("the picture could not be drawn ({text})")
}

/// Writes `p` to the `--out` file (if any); returns the outcome (exit 2
/// when the picture cannot be written, with the reason on stderr) and the
/// line that says what was written, for the text output, with `scale`
/// (what a cell and a row are).
pub fn write_picture(opts: &Opts, p: &Picture, what: &str, scale: &str) -> (Outcome, String) {
    let Some((file, format)) = &opts.out else {
        return (Outcome::Clean, String::new());
    };
    let drawn = check(file, &inputs(opts)).and_then(|()| {
        write_via_temp(file, |tmp| {
            // The sentence names the file the user asked for and the
            // system's reason, not the drawing library's error value.
            render(p, tmp, *format).map_err(|e| {
                let e = e.to_string();
                let raw = format!("{}: ", tmp.display());
                let why = e.strip_prefix(raw.as_str()).unwrap_or(&e);
                Error::at(ErrorKind::Draw(draw_reason(why)), file)
            })
        })
    });
    match drawn {
        Ok(d) => {
            let line = format!(
                "{what}: wrote {} ({}, {}×{} px, {scale})\n",
                ibdscope::names::path(file),
                match format {
                    ImageFormat::Png => "PNG",
                    ImageFormat::Svg => "SVG",
                },
                d.width,
                d.height,
            );
            (Outcome::Clean, line)
        }
        Err(e) => {
            crate::diag::say!("ibdscope: {e}");
            (Outcome::Unreadable, String::new())
        }
    }
}

/// Points of the colour scale [`picture_json`] sends.
const SCALE_POINTS: u32 = 64;

/// `p` as JSON, for a map drawn elsewhere (`serve`'s browser maps) to draw
/// the same cells as the picture files: its title and lines; each panel's
/// grid (columns, pages per cell, first page, pages) with each cell's
/// colour as the picture draws it ([`ibdscope_render::picture::cell_color`]; `null`:
/// blank, the row slot's colour `slot` shows); the legend's shown
/// classes (label and colour); the colour scale (its title, end labels,
/// [`SCALE_POINTS`] colours from its low to its high end, ticks); notes.
pub fn picture_json(out: &mut dyn io::Write, p: &Picture) -> io::Result<()> {
    let mut j = Json::new(out);
    j.obj()?.kv_str("title", &p.title)?.key("lines")?.arr()?;
    for l in &p.lines {
        j.str(l)?;
    }
    j.end_arr()?
        .kv_str("slot", &ibdscope_render::color::SLOT_RGB.hex())?
        .key("panels")?
        .arr()?;
    for panel in &p.panels {
        let g = &panel.grid;
        j.obj()?.key("caption")?.arr()?;
        for l in &panel.caption {
            j.str(l)?;
        }
        j.end_arr()?
            .kv_num("columns", g.columns)?
            .kv_num("pages_per_cell", g.pages_per_cell)?
            .kv_num("first_page", g.first_page)?
            .kv_num("pages", g.n_pages)?
            .key("cells")?
            .arr()?;
        for &c in &g.cells {
            match cell_color(p, c) {
                Some(rgb) => j.str(&rgb.hex())?,
                None => j.null()?,
            };
        }
        j.end_arr()?.end_obj()?;
    }
    j.end_arr()?.key("legend")?.arr()?;
    for c in p.classes.iter().filter(|c| c.shown) {
        j.obj()?
            .kv_str("label", &c.label)?
            .kv_str("color", &c.color.hex())?
            .end_obj()?;
    }
    j.end_arr()?.key("scale")?;
    match &p.heat {
        None => {
            j.null()?;
        }
        Some(h) => {
            j.obj()?
                .kv_str("title", &h.title)?
                .kv_str("lo_label", &h.lo_label)?
                .kv_str("hi_label", &h.hi_label)?
                .key("colors")?
                .arr()?;
            for i in 0..SCALE_POINTS {
                let t = f64::from(i) / f64::from(SCALE_POINTS.saturating_sub(1));
                j.str(&h.color_at(t).hex())?;
            }
            j.end_arr()?.key("ticks")?.arr()?;
            for (t, label) in &h.ticks {
                j.obj()?
                    .key("at")?
                    .float(*t, 4)?
                    .kv_str("label", label)?
                    .end_obj()?;
            }
            j.end_arr()?.end_obj()?;
        }
    }
    j.key("notes")?.arr()?;
    for n in &p.notes {
        j.str(n)?;
    }
    j.end_arr()?.end_obj()?;
    writeln!(j.writer())
}

#[cfg(test)]
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ibdscope-out-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn reasons_are_words_without_error_numbers() {
        let e = std::io::Error::from_raw_os_error(2);
        assert_eq!(reason(&e), "no such file or directory");
        let plotters = "Drawing backend error: ImageError(IoError(Os { code: 28, kind: \
                        StorageFull, message: \"No space left on device\" }))";
        assert_eq!(draw_reason(plotters), "no space left on device");
        assert_eq!(
            draw_reason("Drawing backend error: FormatError"),
            "the picture could not be drawn (FormatError)"
        );
    }

    #[test]
    fn a_missing_directory_is_named() {
        let r: Result<(), Error> =
            write_via_temp(Path::new("/nonexistent-ibdscope/x.png"), |_| Ok(()));
        let e = r.unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::NoSuchDirectory(_)));
        assert_eq!(
            e.to_string(),
            "cannot write /nonexistent-ibdscope/x.png: no such directory /nonexistent-ibdscope"
        );
    }

    #[test]
    fn a_hard_link_to_an_input_is_refused() {
        let d = dir("hard");
        let input = d.join("t.ibd");
        fs::write(&input, b"x").unwrap();
        let out = d.join("pic.png");
        fs::hard_link(&input, &out).unwrap();
        assert!(check(&out, std::slice::from_ref(&input)).is_err());
        assert!(check(&d.join("new.png"), &[input]).is_ok());
        assert!(check(&d, &[]).is_err());
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_failed_write_leaves_the_target_and_no_temporary_file() {
        let d = dir("temp");
        let out = d.join("pic.png");
        fs::write(&out, b"old").unwrap();
        let r: Result<(), Error> = write_via_temp(&out, |p| {
            fs::write(p, b"half").unwrap();
            Err(Error::at(ErrorKind::Draw("failed".into()), p))
        });
        assert!(r.is_err());
        assert_eq!(fs::read(&out).unwrap(), b"old");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        write_via_temp(&out, |p| {
            fs::write(p, b"new").map_err(|e| Error::at(ErrorKind::Write(e.into()), p))
        })
        .unwrap();
        assert_eq!(fs::read(&out).unwrap(), b"new");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_symbolic_link_stays_and_its_file_is_replaced() {
        let d = dir("link");
        fs::write(d.join("real.svg"), b"old").unwrap();
        std::os::unix::fs::symlink("real.svg", d.join("pic.svg")).unwrap();
        write_via_temp(&d.join("pic.svg"), |p| {
            fs::write(p, b"new").map_err(|e| Error::at(ErrorKind::Write(e.into()), p))
        })
        .unwrap();
        assert!(fs::symlink_metadata(d.join("pic.svg"))
            .unwrap()
            .is_symlink());
        assert_eq!(fs::read(d.join("real.svg")).unwrap(), b"new");
        fs::remove_dir_all(&d).unwrap();
    }

    /// The library entry point checks `--out` itself: a program that
    /// builds its own `Opts` cannot draw over its input either.
    #[test]
    fn run_refuses_an_out_that_is_a_hard_link_to_the_input() {
        use crate::args::{Cmd, Format, ImageFormat};
        use crate::outcome::Outcome;
        let d = dir("run");
        let input = d.join("t.ibd");
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../fixtures/mariadb1011/ai_int.ibd"
        );
        fs::copy(fixture, &input).unwrap();
        let before = fs::read(&input).unwrap();
        let out = d.join("pic.png");
        fs::hard_link(&input, &out).unwrap();
        for cmd in [Cmd::Fill, Cmd::Extents, Cmd::Lsn, Cmd::Compare] {
            let opts = Opts {
                out: Some((out.clone(), ImageFormat::Png)),
                ..Opts::new(
                    cmd,
                    vec![input.clone()],
                    Format::Text,
                    std::sync::Arc::new(ibdscope::host::ReadHost),
                )
            };
            let mut text = Vec::new();
            assert_eq!(crate::run(&opts, &mut text).unwrap(), Outcome::Unreadable);
            assert!(fs::read(&input).unwrap() == before, "the input was written");
        }
        fs::remove_dir_all(&d).unwrap();
    }
}
