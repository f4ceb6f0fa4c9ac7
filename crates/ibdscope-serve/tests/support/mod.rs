//! The browser tests' support: a DevTools protocol client and a JSON
//! reader, std only.
#![allow(dead_code)]

pub mod cdp;
pub mod json;
