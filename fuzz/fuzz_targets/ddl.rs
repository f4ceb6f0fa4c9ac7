//! `CREATE TABLE` text of arbitrary bytes (crates/ibdscope/src/ddl.rs):
//! the tokenizer and parser over every statement (`ddl::parse`), then each
//! table's conversion to a `TableDef` and each index's record layout
//! (COMPACT and REDUNDANT). None may panic; a statement that cannot be read
//! is an error with a line and column.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::hint::black_box;

fuzz_target!(|data: &[u8]| {
    let tables = match ibdscope_schema::ddl::parse(data) {
        Ok(t) => t,
        Err(e) => {
            black_box(e.to_string());
            return;
        }
    };
    for t in &tables {
        let def = t.to_table_def("db");
        for ix in &def.indexes {
            for compact in [true, false] {
                black_box(def.layout(ix, compact).is_ok());
            }
        }
    }
    black_box(ibdscope_schema::ddl::parse_one(data, Some("t")).is_ok());
});
