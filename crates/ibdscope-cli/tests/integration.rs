//! The one integration test binary (as object and ripgrep keep theirs):
//! real files from real servers, checked against what the servers and the
//! files' sources say.
#![allow(clippy::disallowed_macros)] // Tests print what they skipped.

mod integration {
    mod asks;
    mod audit;
    mod carve;
    mod cli;
    pub mod common;
    mod corpus;
    mod damage;
    mod dblwr;
    mod examples;
    mod fixtures;
    mod fleet;
    mod help;
    mod history;
    mod hostile;
    mod infer;
    mod instance;
    mod keyring;
    mod live;
    mod mariadb_keys;
    mod memory;
    mod one_verdict;
    mod outputs;
    mod pictures;
    mod progress;
    mod records;
    mod rows;
    mod rows_damage;
    mod schema;
    mod serve;
    mod space;
    mod threads;
    mod torture;
    mod verdicts;
}
