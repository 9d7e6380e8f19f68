//! The pure semantics of Lockstep: every HLSL scalar operator and builtin, and every wave and quad
//! intrinsic, as plain functions over lane values and an active mask.
//!
//! The engine, the constant folder and the tests all call these functions, so each follows the
//! specification text directly and favours being obviously right over being fast.
//!
//! - [`Lane`], [`Arith`], [`Bits`] and [`Float`] are the element types and their operators.
//! - [`Cast`] converts between element types.
//! - [`ops`] holds the scalar builtins (`firstbithigh`, `round`, `lerp`, …).
//! - [`Op32`] is the 32-bit lane operations of the bytecode and the machine code.
//! - [`wave`] holds the wave intrinsics, re-exported here.
//!
//! ```
//! use lockstep_wave::{Mask, active_sum, prefix_sum};
//!
//! // The specification's example: a wave of 8 whose lanes 0 and 4 are inactive, each holding 2.
//! let values = [2u32; 8];
//! let mask: Mask = 0b1110_1110;
//! assert_eq!(prefix_sum(&values, mask, 5), 6);
//! assert_eq!(active_sum(&values, mask), 12);
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod cast;
mod float;
mod lane;
pub mod math;
mod op32;
pub mod ops;
pub mod wave;

pub use cast::{Cast, convert};
pub use float::{Float, NativeFloat};
pub use lane::{Arith, Bits, Lane, Mask};
pub use op32::Op32;
pub use wave::*;
