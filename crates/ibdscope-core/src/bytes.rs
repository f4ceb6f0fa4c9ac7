//! Big-endian reads, `ibdscope_prims::bytes` (internal, not re-exported),
//! under the name every module of the crate reads them by.

pub(crate) use ibdscope_prims::bytes::{
    array, be_u16, be_u16_at, be_u32, be_u32_at, be_u64, be_u64_at, is_zeroes,
};
