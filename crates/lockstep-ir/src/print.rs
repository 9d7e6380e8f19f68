//! A readable text form of a [`Module`](crate::Module), for tests and
//! `--dump-ir`.
