//! The one rule for exit statuses.

/// What a run found; the process's exit status is its value. One rule for
/// every command: 0 clean, 1 findings, 2 a file could not be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Nothing wrong.
    Clean = 0,
    /// Damage or inconsistencies were reported.
    Findings = 1,
    /// A file could not be read.
    Unreadable = 2,
}
