//! `--keyring`: a [`Host`] that opens files through another and hands out,
//! for a MySQL/Percona encrypted space whose master key the keyring holds,
//! the stored bytes with a page source that decrypts them
//! ([`Source::decryption`]): every space opened from it
//! ([`crate::open::Input::tablespace`]) reads plaintext pages (page types
//! restored, checksums verifying), each decrypted as a reader reaches it,
//! and every command reads them without knowing about encryption; a space the keyring cannot open is
//! read as stored (its pages named encrypted) and the reason is a finding
//! (exit 1) and a [`Diagnostic`] ([`Host::diagnostics`]). Parsing and decryption are the core's
//! ([`ibdscope_core::crypt::mysql`]); the keyring's bytes were read, parsed and
//! wiped by the front end.
//!
//! Memory: no image of the file is made; a decrypted page lives in a
//! thread's page buffer or the page source's bounded cache
//! ([`ibdscope_core::crypt::mysql::Decryption`]).

use crate::diagnostic::Diagnostic;
use crate::error::Error;
use crate::host::{Change, Host, Source};
pub use ibdscope_core::crypt::keyring::Keyring;
use ibdscope_core::crypt::mysql::{self, Decryption, EncryptionInfo};
use ibdscope_core::Options;
pub use ibdscope_prims::wipe::wipe;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
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

    /// `src` read decrypted, or `None` when it is not a MySQL encrypted
    /// space or its key is not in the keyring (then a finding).
    fn decrypt(&self, path: &Path, src: &dyn Source) -> Option<Decryption> {
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
        match mysql::tablespace_key(&info, &self.keyring) {
            Ok(key) => Some(Decryption::new(&ts, key)),
            Err(e) => {
                self.finding(path, format_args!("{e}; its pages are read as stored"));
                None
            }
        }
    }

    /// `src`, read decrypted when it is a MySQL encrypted space the
    /// keyring opens.
    fn through(&self, path: &Path, src: Box<dyn Source>) -> Box<dyn Source> {
        match self.decrypt(path, &*src) {
            Some(decryption) => Box::new(Decrypted {
                stored: src,
                decryption,
            }),
            None => src,
        }
    }
}

/// A file's stored bytes and the page source that decrypts them.
struct Decrypted {
    stored: Box<dyn Source>,
    decryption: Decryption,
}

impl Source for Decrypted {
    fn bytes(&self) -> &[u8] {
        self.stored.bytes()
    }
    fn release(&self, offset: usize, len: usize) {
        self.stored.release(offset, len);
    }
    fn read_ahead(&self, offset: usize, len: usize) {
        self.stored.read_ahead(offset, len);
    }
    fn zero_ranges(&self) -> &[Range<usize>] {
        self.stored.zero_ranges()
    }
    fn decryption(&self) -> Option<&Decryption> {
        Some(&self.decryption)
    }
}

impl Host for DecryptHost {
    fn open(&self, path: &Path, threads: usize) -> Result<Box<dyn Source>, Error> {
        let src = self.inner.open(path, threads)?;
        Ok(self.through(path, src))
    }
    fn open_joined(&self, paths: &[PathBuf], threads: usize) -> Result<Box<dyn Source>, Error> {
        // The system tablespace's files as one space: its page 0 says how
        // all of it is encrypted.
        let src = self.inner.open_joined(paths, threads)?;
        Ok(match paths.first() {
            Some(first) => self.through(first, src),
            None => src,
        })
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
    fn keyring(&self) -> Option<&Keyring> {
        Some(&self.keyring)
    }
    fn findings(&self) -> Vec<String> {
        self.findings
            .lock()
            .map(|mut f| std::mem::take(&mut *f))
            .unwrap_or_default()
    }
}
