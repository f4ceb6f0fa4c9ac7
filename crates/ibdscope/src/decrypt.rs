//! `--keyring`: a [`Host`] that opens files through another and hands out,
//! for a MySQL/Percona encrypted space whose master key the keyring holds,
//! the decrypted logical image instead of the stored bytes. Every command
//! then reads plaintext pages (page types restored, checksums verifying)
//! without knowing about encryption; a space the keyring cannot open is
//! read as stored (its pages named encrypted) and the reason is a finding
//! (exit 1) and a [`Diagnostic`] ([`Host::diagnostics`]). Parsing and decryption are the core's
//! ([`ibdscope_core::crypt::mysql`]); the keyring's bytes were read, parsed and
//! wiped by the front end.
//!
//! Memory: the image is as large as the file and is asked for before it is
//! taken (a refusal leaves the file read as stored, with a note); the
//! stored bytes are released once it is made.

use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::host::{Change, Host, Source};
pub use ibdscope_core::crypt::keyring::Keyring;
use ibdscope_core::crypt::mysql::{self, EncryptionInfo};
use ibdscope_core::{Engine, Options};
pub use ibdscope_prims::wipe::wipe;
use std::fmt;
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Opens files through `inner`, decrypting encrypted spaces with a
/// keyring.
pub struct DecryptHost {
    inner: Arc<dyn Host>,
    keyring: Keyring,
    lib: Options,
    findings: Mutex<Vec<String>>,
    said: Mutex<Vec<Diagnostic>>,
}

impl fmt::Debug for DecryptHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DecryptHost")
            .field("inner", &self.inner)
            .field("keys", &self.keyring.keys.len())
            .finish_non_exhaustive()
    }
}

impl DecryptHost {
    /// A host opening through `inner`; spaces are parsed with `lib` (the
    /// run's `--page-size`) to find their encryption information.
    pub fn new(inner: Arc<dyn Host>, keyring: Keyring, lib: Options) -> DecryptHost {
        DecryptHost {
            inner,
            keyring,
            lib,
            findings: Mutex::new(Vec::new()),
            said: Mutex::new(Vec::new()),
        }
    }

    fn finding(&self, path: &Path, what: impl fmt::Display) {
        let d = Diagnostic::new(path, what);
        if let Ok(mut f) = self.findings.lock() {
            f.push(d.text.clone());
        }
        self.say(d);
    }

    fn say(&self, d: Diagnostic) {
        if let Ok(mut s) = self.said.lock() {
            s.push(d);
        }
    }

    /// The decrypted image of `src`, or `None` when it is not a MySQL
    /// encrypted space or cannot be decrypted (then a diagnostic).
    fn decrypt(&self, path: &Path, src: &dyn Source, threads: usize) -> Option<Image> {
        let ts = crate::host::tablespace(src, self.lib).ok()?;
        let Some(info) = EncryptionInfo::read(&ts) else {
            if ts.format().encryption {
                let at = mysql::info_offset(ts.format().logical_size, ts.format().physical_size);
                self.finding(
                    path,
                    format_args!(
                        "page 0, byte {at}: flagged encrypted, but no MySQL encryption \
                         information (lCA, lCB, lCC) is there; read as stored"
                    ),
                );
            }
            return None;
        };
        let key = match mysql::tablespace_key(&info, &self.keyring) {
            Ok(k) => k,
            Err(e) => {
                self.finding(path, format_args!("{e}; its pages are read as stored"));
                return None;
            }
        };
        // The image replaces the file: its mappings go as it is built.
        let release = |offset: usize, len: usize| src.release(offset, len);
        let engine = Engine::new(threads).with_image_release(&release);
        let Some(d) = mysql::try_decrypt(&ts, &key, &engine) else {
            self.say(Diagnostic::new(
                path,
                format_args!(
                    "the decrypted image of this encrypted space ({} bytes) could not be \
                     allocated; its pages are read as stored",
                    ts.data().len()
                ),
            ));
            return None;
        };
        Some(Image {
            bytes: d.into_image(),
            zeros: src.zero_ranges().to_vec(),
        })
    }
}

/// A decrypted image standing in for a file.
struct Image {
    bytes: Vec<u8>,
    zeros: Vec<Range<usize>>,
}

impl Source for Image {
    fn bytes(&self) -> &[u8] {
        &self.bytes
    }
    fn zero_ranges(&self) -> &[Range<usize>] {
        &self.zeros
    }
}

impl Host for DecryptHost {
    fn open(&self, path: &Path, threads: usize) -> Result<Box<dyn Source>, Error> {
        let src = self.inner.open(path, threads)?;
        match self.decrypt(path, &*src, threads) {
            // The stored bytes are dropped here: the image is what is read.
            Some(image) => Ok(Box::new(image)),
            None => Ok(src),
        }
    }
    fn changes(&self) -> Vec<Change> {
        self.inner.changes()
    }
    fn progress(&self, unit: crate::host::Unit, done: u64, total: u64) {
        self.inner.progress(unit, done, total)
    }
    fn diagnostics(&self) -> Vec<Diagnostic> {
        let mut d = self.inner.diagnostics();
        if let Ok(mut s) = self.said.lock() {
            d.append(&mut s);
        }
        d
    }
    fn findings(&self) -> Vec<String> {
        self.findings
            .lock()
            .map(|mut f| std::mem::take(&mut *f))
            .unwrap_or_default()
    }
}
