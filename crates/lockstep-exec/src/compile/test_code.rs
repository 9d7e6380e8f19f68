//! Instructions for the bytecode passes' tests.

use lockstep_ir::{ResourceId, ScalarType};

use crate::bytecode::{Address, Inst, Reg, Space, Test};

/// `store src` to resource 0, at `offset` plus the byte address in `at`.
pub(super) fn store(src: u32, at: Option<u32>, offset: u32) -> Inst {
    Inst::Store {
        addr: Address {
            space: Space::Resource(ResourceId(0)),
            dynamic: at.map(Reg),
            offset,
        },
        ty: ScalarType::UInt32,
        src: Reg(src),
    }
}

/// `if (cond)`, or with `negate`, `if (!cond)`, ending at `else_pc`.
pub(super) fn if_begin(cond: u32, negate: bool, else_pc: u32) -> Inst {
    Inst::IfBegin {
        cond: Reg(cond),
        negate,
        else_pc,
        test: Test::NONZERO,
    }
}
