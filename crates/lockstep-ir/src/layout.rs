//! Memory layouts of values in buffers: DXC's structured-buffer packing and
//! HLSL's constant-buffer packing.
//!
//! Both back ends and `lockstep info` use these functions, so a buffer means
//! the same bytes everywhere.

use crate::types::{ScalarType, Type, TypeArena, TypeId};

/// How values are laid out in a buffer's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LayoutRule {
    /// Structured, typed and byte-address buffers: every scalar aligned to its
    /// own size, vectors and matrices tightly packed, structs aligned to their
    /// largest member and padded to a multiple of it.
    Packed,
    /// Constant buffers: 16-byte registers; a vector never straddles a
    /// register; arrays, structs and matrices start on a register, and array
    /// elements are 16 bytes apart (at least).
    CBuffer,
}

/// Where one flattened scalar component lives, relative to the value's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScalarSlot {
    /// Bytes from the value's start.
    pub offset: u32,
    /// The component's scalar type.
    pub ty: ScalarType,
}

/// Size and alignment of a type under a rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SizeAlign {
    /// Bytes the value takes.
    pub size: u32,
    /// The alignment in bytes its start needs.
    pub align: u32,
}

fn round_up(x: u32, to: u32) -> u32 {
    x.div_ceil(to).saturating_mul(to)
}

/// The size and alignment of `ty` under `rule`.
pub fn size_align(types: &TypeArena, ty: TypeId, rule: LayoutRule) -> SizeAlign {
    match (types.get(ty), rule) {
        (Type::Void, _) => SizeAlign { size: 0, align: 1 },
        (Type::Scalar(s), _) => SizeAlign {
            size: s.size(),
            align: s.size(),
        },
        (Type::Vector(s, n), _) => SizeAlign {
            size: s.size() * u32::from(*n),
            align: s.size(),
        },
        (
            &Type::Matrix {
                scalar, rows, cols, ..
            },
            LayoutRule::Packed,
        ) => SizeAlign {
            size: scalar.size() * u32::from(rows) * u32::from(cols),
            align: scalar.size(),
        },
        (
            &Type::Matrix {
                scalar,
                rows,
                cols,
                row_major,
            },
            LayoutRule::CBuffer,
        ) => {
            let (lines, per_line) = if row_major {
                (rows, cols)
            } else {
                (cols, rows)
            };
            SizeAlign {
                size: 16 * (u32::from(lines) - 1) + scalar.size() * u32::from(per_line),
                align: 16,
            }
        }
        (&Type::Array { element, len }, _) => {
            let stride = array_stride(types, element, rule);
            let elem = size_align(types, element, rule);
            let size = if len == 0 {
                0
            } else {
                stride.saturating_mul(len - 1).saturating_add(elem.size)
            };
            let align = if rule == LayoutRule::CBuffer {
                16
            } else {
                elem.align
            };
            let size = if rule == LayoutRule::Packed {
                stride.saturating_mul(len)
            } else {
                size
            };
            SizeAlign { size, align }
        }
        (Type::Struct { members, .. }, _) => {
            let mut offset = 0u32;
            let mut align = 1u32;
            for m in members {
                let (start, sa) = place_member(types, m.ty, offset, rule);
                offset = start.saturating_add(sa.size);
                align = align.max(sa.align);
            }
            let align = if rule == LayoutRule::CBuffer {
                16
            } else {
                align
            };
            let size = if rule == LayoutRule::Packed {
                round_up(offset, align)
            } else {
                offset
            };
            SizeAlign { size, align }
        }
    }
}

/// Distance between consecutive array elements.
pub fn array_stride(types: &TypeArena, element: TypeId, rule: LayoutRule) -> u32 {
    let sa = size_align(types, element, rule);
    match rule {
        LayoutRule::Packed => round_up(sa.size, sa.align),
        LayoutRule::CBuffer => round_up(sa.size, 16),
    }
}

/// The offset at which a member of type `ty` starts when the previous member
/// ended at `offset`, with the member's size and alignment.
pub fn place_member(
    types: &TypeArena,
    ty: TypeId,
    offset: u32,
    rule: LayoutRule,
) -> (u32, SizeAlign) {
    let sa = size_align(types, ty, rule);
    let mut start = round_up(offset, sa.align);
    if rule == LayoutRule::CBuffer && sa.size > 0 && start / 16 != (start + sa.size - 1) / 16 {
        // A value that would straddle a 16-byte register moves to the next one.
        start = round_up(start, 16);
    }
    (start, sa)
}

/// Byte offsets of every member of a struct type.
pub fn member_offsets(types: &TypeArena, ty: TypeId, rule: LayoutRule) -> Vec<u32> {
    let Type::Struct { members, .. } = types.get(ty) else {
        return Vec::new();
    };
    let mut offset = 0u32;
    members
        .iter()
        .map(|m| {
            let (start, sa) = place_member(types, m.ty, offset, rule);
            offset = start.saturating_add(sa.size);
            start
        })
        .collect()
}

/// The byte offset of element (`row`, `col`) of a matrix.
pub fn matrix_element_offset(
    scalar: ScalarType,
    shape: (u8, u8),
    row_major: bool,
    (row, col): (u8, u8),
    rule: LayoutRule,
) -> u32 {
    let (rows, cols) = shape;
    let size = scalar.size();
    let (line, within, per_line) = if row_major {
        (row, col, cols)
    } else {
        (col, row, rows)
    };
    let line_stride = match rule {
        LayoutRule::Packed => size * u32::from(per_line),
        LayoutRule::CBuffer => 16,
    };
    u32::from(line) * line_stride + u32::from(within) * size
}

/// Every flattened scalar component of `ty` with its offset, in flattening
/// order (see [`TypeArena::flatten`]).
pub fn scalar_slots(types: &TypeArena, ty: TypeId, rule: LayoutRule) -> Vec<ScalarSlot> {
    let mut out = Vec::new();
    push_slots(types, ty, rule, 0, &mut out);
    out
}

fn push_slots(
    types: &TypeArena,
    ty: TypeId,
    rule: LayoutRule,
    base: u32,
    out: &mut Vec<ScalarSlot>,
) {
    match types.get(ty) {
        Type::Void => {}
        Type::Scalar(s) => out.push(ScalarSlot {
            offset: base,
            ty: *s,
        }),
        Type::Vector(s, n) => {
            for i in 0..u32::from(*n) {
                out.push(ScalarSlot {
                    offset: base + i * s.size(),
                    ty: *s,
                });
            }
        }
        &Type::Matrix {
            scalar,
            rows,
            cols,
            row_major,
        } => {
            for r in 0..rows {
                for c in 0..cols {
                    let offset =
                        base + matrix_element_offset(scalar, (rows, cols), row_major, (r, c), rule);
                    out.push(ScalarSlot { offset, ty: scalar });
                }
            }
        }
        &Type::Array { element, len } => {
            let stride = array_stride(types, element, rule);
            for i in 0..len {
                push_slots(
                    types,
                    element,
                    rule,
                    base.saturating_add(i.saturating_mul(stride)),
                    out,
                );
            }
        }
        Type::Struct { members, .. } => {
            let offsets = member_offsets(types, ty, rule);
            for (m, off) in members.iter().zip(offsets) {
                push_slots(types, m.ty, rule, base.saturating_add(off), out);
            }
        }
    }
}
