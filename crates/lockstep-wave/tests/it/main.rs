//! Tests of lockstep-wave against hand-derived values, the specification's own tables, and
//! properties that relate the whole-wave forms to the per-lane ones.

mod cast;
mod ops;
mod props;
mod wave;
