//! Memory layouts, against offsets worked out by hand from HLSL's packing
//! rules.

use lockstep_ir::layout::{array_stride, member_offsets, scalar_slots, size_align};
use lockstep_ir::{LayoutRule, Member, ScalarType as S, Type, TypeArena, TypeId};

fn strukt(types: &mut TypeArena, members: &[TypeId]) -> TypeId {
    let members = members
        .iter()
        .enumerate()
        .map(|(i, &ty)| Member {
            name: format!("m{i}"),
            ty,
        })
        .collect();
    types.intern(Type::Struct {
        name: "S".into(),
        members,
    })
}

#[test]
fn cbuffer_packing() {
    let mut t = TypeArena::new();
    let float = t.scalar(S::Float32);
    let float2 = t.vector(S::Float32, 2);
    let float3 = t.vector(S::Float32, 3);
    let arr3 = t.intern(Type::Array {
        element: float,
        len: 3,
    });
    // float, float3: the float3 fits after the float in register 0.
    let a = strukt(&mut t, &[float, float3]);
    assert_eq!(member_offsets(&t, a, LayoutRule::CBuffer), [0, 4]);
    // float2, float3: the float3 would straddle, so it moves to register 1.
    let b = strukt(&mut t, &[float2, float3]);
    assert_eq!(member_offsets(&t, b, LayoutRule::CBuffer), [0, 16]);
    // Arrays: elements 16 bytes apart, the next member packs after the last.
    assert_eq!(array_stride(&t, float, LayoutRule::CBuffer), 16);
    assert_eq!(size_align(&t, arr3, LayoutRule::CBuffer).size, 36);
    let c = strukt(&mut t, &[arr3, float]);
    assert_eq!(member_offsets(&t, c, LayoutRule::CBuffer), [0, 36]);
    // A struct member starts on a register.
    let d = strukt(&mut t, &[float, a, float]);
    assert_eq!(member_offsets(&t, d, LayoutRule::CBuffer), [0, 16, 32]);
}

#[test]
fn structured_buffer_packing() {
    let mut t = TypeArena::new();
    let uint = t.scalar(S::UInt32);
    let double = t.scalar(S::Float64);
    let float3 = t.vector(S::Float32, 3);
    let s = strukt(&mut t, &[uint, double]);
    assert_eq!(member_offsets(&t, s, LayoutRule::Packed), [0, 8]);
    assert_eq!(size_align(&t, s, LayoutRule::Packed).size, 16);
    let v = strukt(&mut t, &[uint, float3, uint]);
    assert_eq!(member_offsets(&t, v, LayoutRule::Packed), [0, 4, 16]);
    assert_eq!(array_stride(&t, v, LayoutRule::Packed), 20);
}

#[test]
fn matrices_are_column_major_unless_row_major() {
    let mut t = TypeArena::new();
    let m = t.intern(Type::Matrix {
        scalar: S::Float32,
        rows: 2,
        cols: 3,
        row_major: false,
    });
    let r = t.intern(Type::Matrix {
        scalar: S::Float32,
        rows: 2,
        cols: 3,
        row_major: true,
    });
    // Components flatten row-major: (0,0) (0,1) (0,2) (1,0) (1,1) (1,2).
    let offsets = |ty, rule| {
        scalar_slots(&t, ty, rule)
            .iter()
            .map(|s| s.offset)
            .collect::<Vec<_>>()
    };
    assert_eq!(offsets(m, LayoutRule::Packed), [0, 8, 16, 4, 12, 20]);
    assert_eq!(offsets(r, LayoutRule::Packed), [0, 4, 8, 12, 16, 20]);
    // In a constant buffer each column (or row) takes a register.
    assert_eq!(offsets(m, LayoutRule::CBuffer), [0, 16, 32, 4, 20, 36]);
    assert_eq!(size_align(&t, m, LayoutRule::CBuffer).size, 40);
    assert_eq!(offsets(r, LayoutRule::CBuffer), [0, 4, 8, 16, 20, 24]);
}
