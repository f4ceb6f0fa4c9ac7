//! # ibdscope
//!
//! placeholder
#![cfg_attr(test, allow(clippy::disallowed_macros))]

pub mod analysis;
pub mod decrypt;
pub mod definition;
pub mod diagnostic;
pub mod host;
pub mod instance;
pub mod logical;
pub mod names;
pub mod open;
