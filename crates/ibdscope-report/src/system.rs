//! The system tablespace's headers (TRX_SYS page, dictionary header) as
//! `info` and `page` show them.

use crate::json::Json;
use ibdscope_core::Tablespace;
use ibdscope_forensics::system::{DictHeader, SystemSpace, TrxSys};
use std::io::{self, Write};

/// TRX_SYS, as text lines (`info`, `page 5`).
pub fn trx_sys_text(out: &mut dyn Write, t: &TrxSys) -> io::Result<()> {
    writeln!(
        out,
        "trx_sys             max trx id stored {}",
        t.trx_id_store
    )?;
    let slots: Vec<String> = t
        .rsegs
        .iter()
        .take(8)
        .map(|r| format!("{}:({},{})", r.slot, r.space, r.page))
        .collect();
    let more = t.rsegs.len().saturating_sub(slots.len());
    writeln!(
        out,
        "  rollback segments {} used slots (slot:(space,page)): {}{}",
        t.rsegs.len(),
        slots.join(" "),
        if more > 0 {
            format!(" … {more} more")
        } else {
            String::new()
        }
    )?;
    match &t.doublewrite {
        Some(d) => writeln!(
            out,
            "  doublewrite       blocks at pages {} and {} (magic {}, repeated copy {}, space ids stored {})",
            d.block1,
            d.block2,
            if d.magic_ok { "ok" } else { "WRONG" },
            if d.repeat_ok { "equal" } else { "DIFFERS" },
            if d.space_id_stored { "yes" } else { "no" }
        )?,
        None => writeln!(out, "  doublewrite       none")?,
    }
    if let Some(b) = &t.binlog {
        writeln!(
            out,
            "  binlog            {} at {}",
            ibdscope::names::name(&String::from_utf8_lossy(&b.name)),
            b.offset
        )?;
    }
    Ok(())
}

/// The dictionary header, as text lines (`info`, `page 7`).
pub fn dict_text(out: &mut dyn Write, d: &DictHeader) -> io::Result<()> {
    writeln!(
        out,
        "dict header         row id {}, table id {}, index id {}, max space id {}",
        d.row_id, d.table_id, d.index_id, d.max_space_id
    )?;
    writeln!(
        out,
        "  roots             SYS_TABLES {}, SYS_TABLE_IDS {}, SYS_COLUMNS {}, SYS_INDEXES {}, SYS_FIELDS {}",
        d.sys_tables, d.sys_table_ids, d.sys_columns, d.sys_indexes, d.sys_fields
    )
}

/// Both, for the system tablespace (nothing for another space).
pub fn text(out: &mut dyn Write, ts: &Tablespace<'_>) -> io::Result<()> {
    let Some(s) = SystemSpace::read(ts) else {
        return Ok(());
    };
    if let Some(t) = &s.trx_sys {
        trx_sys_text(out, t)?;
    }
    if let Some(d) = &s.dict {
        dict_text(out, d)?;
    }
    for n in &s.unverified {
        writeln!(
            out,
            "  page {n} (byte offset {}) does not verify: its fields above may be wrong",
            ts.file_offset(ibdscope_core::PageNo(*n))
        )?;
    }
    Ok(())
}

/// `"system": {...}` for the system tablespace (no key for another space).
pub fn json(j: &mut Json<'_>, ts: &Tablespace<'_>) -> io::Result<()> {
    let Some(s) = SystemSpace::read(ts) else {
        return Ok(());
    };
    j.key("system")?;
    j.obj()?.key("trx_sys")?;
    match &s.trx_sys {
        Some(t) => {
            j.obj()?.kv_num("trx_id_store", t.trx_id_store)?;
            j.key("rsegs")?.arr()?;
            for r in &t.rsegs {
                j.obj()?
                    .kv_num("slot", r.slot)?
                    .kv_num("space", r.space)?
                    .kv_num("page", r.page)?
                    .end_obj()?;
            }
            j.end_arr()?.key("doublewrite")?;
            match &t.doublewrite {
                Some(d) => {
                    j.obj()?
                        .kv_bool("magic_ok", d.magic_ok)?
                        .kv_num("block1", d.block1)?
                        .kv_num("block2", d.block2)?
                        .kv_bool("repeat_ok", d.repeat_ok)?
                        .kv_bool("space_id_stored", d.space_id_stored)?
                        .end_obj()?;
                }
                None => {
                    j.null()?;
                }
            }
            j.key("binlog")?;
            match &t.binlog {
                Some(b) => {
                    j.obj()?
                        .kv_str("name", &String::from_utf8_lossy(&b.name))?
                        .kv_num("offset", b.offset)?
                        .end_obj()?;
                }
                None => {
                    j.null()?;
                }
            }
            j.end_obj()?;
        }
        None => {
            j.null()?;
        }
    }
    j.key("dict_header")?;
    match &s.dict {
        Some(d) => {
            j.obj()?
                .kv_num("row_id", d.row_id)?
                .kv_num("table_id", d.table_id)?
                .kv_num("index_id", d.index_id)?
                .kv_num("max_space_id", d.max_space_id)?
                .kv_num("mix_id_low", d.mix_id_low)?
                .kv_num("sys_tables", d.sys_tables)?
                .kv_num("sys_table_ids", d.sys_table_ids)?
                .kv_num("sys_columns", d.sys_columns)?
                .kv_num("sys_indexes", d.sys_indexes)?
                .kv_num("sys_fields", d.sys_fields)?
                .end_obj()?;
        }
        None => {
            j.null()?;
        }
    }
    j.end_obj()?;
    Ok(())
}
