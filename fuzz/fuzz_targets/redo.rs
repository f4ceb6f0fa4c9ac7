//! A redo log of arbitrary bytes (crates/ibdscope/src/redo.rs): the
//! header, checkpoints and log end (`redo::read`) and the pages the
//! records after the checkpoint name (`redo::log_pages`), in every layout.
//! None may panic and every walk ends within its bound.
//!
//! The first input byte is a control byte: bit 0 picks the layout
//! (`ib_logfileN` or MySQL 8.0.30+ `#ib_redoN`), bits 1..=2 the number of
//! files (1–4) the rest is cut into, at the offsets the next bytes name.

#![no_main]

use ibdscope_forensics::redo::{self, RedoFile, RedoLayout};
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    let layout = if control & 1 == 0 {
        RedoLayout::LogFiles
    } else {
        RedoLayout::InnodbRedo
    };
    let n_files = usize::from((control >> 1) & 3) + 1;
    let chunk = rest.len().div_ceil(n_files).max(1);
    let files: Vec<RedoFile<'_>> = rest
        .chunks(chunk)
        .enumerate()
        .map(|(i, d)| RedoFile {
            id: i as u64,
            data: d,
        })
        .collect();
    let Ok(info) = redo::read(&files, layout) else {
        return;
    };
    black_box((info.format_name(), info.has_changes_after_checkpoint()));
    let pages = redo::log_pages(&files, layout, &info, 4096);
    black_box(pages);
});
