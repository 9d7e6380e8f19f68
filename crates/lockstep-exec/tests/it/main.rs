//! Device memory: bounds, widths and atomics.

use lockstep_exec::Memory;
use lockstep_ir::{AtomicOp, ScalarType as S};

#[test]
fn loads_and_stores_of_every_width() {
    let m = Memory::from_bytes(&[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(m.load(0, S::UInt32), 0x0403_0201);
    assert_eq!(m.load(2, S::UInt16), 0x0403);
    assert_eq!(m.load(0, S::UInt64), 0x0807_0605_0403_0201);
    m.store(6, S::UInt16, 0xBEEF);
    assert_eq!(m.to_bytes(), [1, 2, 3, 4, 5, 6, 0xEF, 0xBE]);
}

#[test]
fn out_of_bounds_and_misaligned_accesses() {
    let m = Memory::from_bytes(&[0xFF; 6]);
    // Past the end, straddling the end, misaligned: all read 0.
    assert_eq!(m.load(8, S::UInt32), 0);
    assert_eq!(m.load(4, S::UInt32), 0);
    assert_eq!(m.load(1, S::UInt32), 0);
    assert_eq!(m.load(u64::MAX - 1, S::UInt32), 0);
    m.store(4, S::UInt32, 0);
    m.store(u64::MAX, S::UInt16, 0);
    assert_eq!(m.to_bytes(), [0xFF; 6]);
    assert_eq!(m.atomic(4, S::UInt32, AtomicOp::Add, 1, 0), 0);
}

#[test]
fn atomics() {
    let m = Memory::zeroed(16);
    assert_eq!(m.atomic(0, S::UInt32, AtomicOp::Add, 5, 0), 0);
    assert_eq!(
        m.atomic(0, S::UInt32, AtomicOp::Add, u64::from(u32::MAX), 0),
        5
    );
    assert_eq!(m.load(0, S::UInt32), 4, "32-bit adds wrap");
    m.store(4, S::Int32, u64::from((-5i32) as u32));
    m.atomic(4, S::Int32, AtomicOp::Min, u64::from((-7i32) as u32), 0);
    assert_eq!(m.load(4, S::Int32), u64::from((-7i32) as u32), "signed min");
    m.atomic(4, S::UInt32, AtomicOp::Min, 3, 0);
    assert_eq!(m.load(4, S::UInt32), 3, "unsigned min");
    // A failed compare writes nothing; a matching one writes.
    assert_eq!(m.atomic(4, S::UInt32, AtomicOp::CompareExchange, 9, 1), 3);
    assert_eq!(m.load(4, S::UInt32), 3);
    m.atomic(4, S::UInt32, AtomicOp::CompareExchange, 3, 1);
    assert_eq!(m.load(4, S::UInt32), 1);
    // 64-bit atomics carry across the word boundary.
    m.store(8, S::UInt64, 0xFFFF_FFFF);
    assert_eq!(m.atomic(8, S::UInt64, AtomicOp::Add, 1, 0), 0xFFFF_FFFF);
    assert_eq!(m.load(8, S::UInt64), 0x1_0000_0000);
}

#[test]
fn parallel_atomics_are_exact() {
    let m = Memory::zeroed(16);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..10_000 {
                    m.atomic(0, S::UInt32, AtomicOp::Add, 1, 0);
                    m.atomic(8, S::UInt64, AtomicOp::Add, 0x1_0000_0001, 0);
                }
            });
        }
    });
    assert_eq!(m.load(0, S::UInt32), 40_000);
    assert_eq!(m.load(8, S::UInt64), 40_000 * 0x1_0000_0001);
}
