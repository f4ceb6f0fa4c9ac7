//! Encrypted tablespaces: MySQL's ([`mysql`], with its [`keyring`]) and
//! MariaDB's ([`mariadb`]). The cipher, the hashes and the wiping of key
//! material are `ibdscope-prims`' (internal, not re-exported).

pub mod keyring;
pub mod mariadb;
pub mod mysql;
