//! A `.frm` table definition of arbitrary bytes (crates/ibdscope/src/
//! frm.rs): `Frm::parse`, every column's type strings and sizes, the
//! clustered key, the conversion to a `TableDef` and each index's record
//! layout (COMPACT and REDUNDANT). None may panic; a damaged file is an
//! error with an offset.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

fuzz_target!(|data: &[u8]| {
    let Ok(frm) = ibdscope_schema::frm::Frm::parse(data) else {
        return;
    };
    for c in &frm.columns {
        black_box((c.data_type(), c.column_type(), c.pack_length()));
        black_box((c.precision(), c.char_length(), c.max_octets()));
        black_box(c.element_names());
    }
    black_box(frm.clustered_key().map(|k| k.unique()));
    let def = frm.to_table_def("t", "db");
    for ix in &def.indexes {
        for compact in [true, false] {
            black_box(def.layout(ix, compact).is_ok());
        }
    }
});
