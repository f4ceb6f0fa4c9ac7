//! Typed rows from arbitrary pages (crates/ibdscope/src/row.rs,
//! value.rs): a real table definition (from a fixture `.frm` written by
//! MySQL 5.6 or MariaDB 10.11) against the bytes of a 16K space. Every
//! record of every INDEX page, user and free chain, is split with the
//! clustered index's layout and every field rendered, off-page values
//! followed with a small cap. None may panic and every walk ends.
//!
//! The first input byte is a control byte: bits 0..=2 pick the definition
//! (`DEFS`), bit 3 the record format asked of the layout when the page
//! does not say. The MariaDB instant ALTER definitions get their root at
//! page 3 and go through `ibdscope_schema::instant::apply` (the root's
//! PAGE_INSTANT, the metadata record, its field map and defaults) first. The rest is the space, cut to whole 16K pages (at least
//! one, zero-padded).

#![no_main]

use ibdscope_schema::frm::Frm;
use ibdscope_schema::row::{render_field, split};
use ibdscope_schema::table::TableDef;
use ibdscope_core::{Options, PageNo, RecFormat, RecPage, Tablespace, Visited};
use libfuzzer_sys::fuzz_target;
use std::hint::black_box;
use std::sync::OnceLock;

const DEFS: [&[u8]; 8] = [
    include_bytes!("../../fixtures/mysql56/types.frm"),
    include_bytes!("../../fixtures/mysql56/rf_compact.frm"),
    include_bytes!("../../fixtures/mysql56/blob.frm"),
    include_bytes!("../../fixtures/mariadb1011/types.frm"),
    include_bytes!("../../fixtures/mariadb1011/secondary.frm"),
    include_bytes!("../../fixtures/mariadb1011/rf_redundant.frm"),
    include_bytes!("../../fixtures/mariadb1011/instant.frm"),
    include_bytes!("../../fixtures/mariadb1011/instant_redundant.frm"),
];

fn defs() -> &'static Vec<TableDef> {
    static D: OnceLock<Vec<TableDef>> = OnceLock::new();
    D.get_or_init(|| {
        DEFS.iter()
            .map(|b| Frm::parse(b).expect("fixture .frm").to_table_def("t", "db"))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&control, rest)) = data.split_first() else {
        return;
    };
    const PAGE: usize = 16384;
    let mut space = rest[..rest.len() / PAGE * PAGE].to_vec();
    if space.is_empty() {
        space = rest.to_vec();
        space.resize(PAGE, 0);
    }
    let Ok(ts) = Tablespace::with_options(
        &space,
        Options::default().with_page_size(Some(PAGE as u32)),
    ) else {
        return;
    };
    let defs = defs();
    let mut def = defs[usize::from(control & 7) % defs.len()].clone();
    if let Some(ix) = def.indexes.first_mut() {
        ix.root = Some(3);
    }
    let instant = match ibdscope_schema::instant::apply(&ts, &mut def) {
        Ok(Some((_, layout))) => Some(layout),
        _ => None,
    };
    let def = &def;
    let Some(ix) = def.clustered() else {
        return;
    };
    let (mut fields, mut buf, mut text) = (Vec::new(), Vec::new(), String::new());
    let mut visited = Visited::new();
    for n in 0..ts.n_pages() {
        let Ok(rp) = RecPage::of(&ts, PageNo(n)) else {
            continue;
        };
        let compact = match rp.format() {
            RecFormat::Compact => true,
            RecFormat::Redundant => false,
            #[allow(unreachable_patterns)]
            _ => control & 8 != 0,
        };
        let layout = match &instant {
            Some(l) => l.clone(),
            None => match def.layout(ix, compact) {
                Ok(l) => l,
                Err(_) => continue,
            },
        };
        for free in [false, true] {
            let it = if free {
                rp.free_records(&mut visited)
            } else {
                rp.records(&mut visited)
            };
            let Some(mut it) = it else {
                continue;
            };
            while let Ok(Some(rec)) = it.next() {
                if !rec.is_user() {
                    continue;
                }
                if split(&rp, &rec, &layout, &mut fields).is_err() {
                    continue;
                }
                for f in &fields {
                    let Some(col) = def.columns.get(f.column) else {
                        continue;
                    };
                    text.clear();
                    black_box(render_field(&ts, rp.bytes(), col, f, 1 << 16, &mut buf, &mut text));
                }
            }
        }
    }
});
