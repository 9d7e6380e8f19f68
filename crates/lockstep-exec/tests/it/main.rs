//! Device memory (bounds, widths, atomics) and wave-size selection.

use lockstep_exec::{Device, Memory, WavePreference, Workers, select_wave_size};
use lockstep_ir::WaveSizeRange;
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

/// Buffers loaded by two workers hold their bytes: sizes around the
/// parallel copy's 1 MiB pieces, with and without a partial last word.
#[test]
fn buffers_loaded_in_parallel_hold_their_bytes() {
    let workers = Workers::new(2).expect("two workers");
    for len in [0, 7, (1 << 20) + 4, (1 << 20) + 5, 3 * (1 << 20) + 3] {
        let bytes: Vec<u8> = (0..len).map(|i: usize| (i * 7 + i / 251) as u8).collect();
        let m = workers.load(&bytes);
        assert_eq!(m.len(), len as u64);
        assert!(m.to_bytes() == bytes, "{len} bytes");
    }
}

#[test]
fn zero_buffers_load_as_zeroed_memory_and_one_nonzero_byte_is_kept() {
    let workers = Workers::new(2).expect("two workers");
    // Lengths on both sides of the parallel piece size; every nonzero
    // position class: the unaligned head or tail, the middle, the last byte.
    for len in [6, 4096 + 3, 3 * (1 << 20) + 3] {
        let zeros = vec![0u8; len];
        for m in [Memory::from_bytes(&zeros), workers.load(&zeros)] {
            assert_eq!(m.len(), len as u64);
            assert!(m.to_bytes() == zeros, "{len} zero bytes");
            // Zeroed memory is writable.
            m.store(0, S::UInt32, 0x0102_0304);
            assert_eq!(m.load(0, S::UInt32), 0x0102_0304);
        }
        for at in [0, 1, len / 2, len - 1] {
            let mut bytes = zeros.clone();
            bytes[at] = 0x5A;
            assert!(
                Memory::from_bytes(&bytes).to_bytes() == bytes,
                "{len}: byte {at}"
            );
            assert!(workers.load(&bytes).to_bytes() == bytes, "{len}: byte {at}");
        }
    }
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

const SIZES: [u32; 6] = [4, 8, 16, 32, 64, 128];

/// The selection rule written out directly: the shader's preferred size if
/// the device has it; else the device's preferred size if the range holds
/// it; else the candidate the preference picks.
fn expected(attr: Option<WaveSizeRange>, device: &Device) -> Option<u32> {
    let Some(r) = attr else {
        return Some(device.preferred);
    };
    let supported = |s: u32| device.min <= s && s <= device.max;
    if let Some(p) = r.preferred.filter(|&p| supported(p)) {
        return Some(p);
    }
    if r.min <= device.preferred && device.preferred <= r.max {
        return Some(device.preferred);
    }
    let candidates: Vec<u32> = SIZES
        .into_iter()
        .filter(|&s| supported(s) && r.min <= s && s <= r.max)
        .collect();
    match device.preference {
        WavePreference::Small => candidates.first().copied(),
        WavePreference::Large => candidates.last().copied(),
        WavePreference::Nearest => {
            let distance = |s: u32| (i64::from(s) - i64::from(device.preferred)).abs();
            let best = candidates.iter().map(|&s| distance(s)).min()?;
            candidates.into_iter().find(|&s| distance(s) == best)
        }
    }
}

/// Every attribute (none, fixed, ranged, ranged with a preferred size)
/// against every device (range, preferred size, preference).
#[test]
fn wave_size_selection_for_every_attribute_and_device() {
    let mut attrs = vec![None];
    for (i, &min) in SIZES.iter().enumerate() {
        for &max in &SIZES[i..] {
            attrs.push(Some(WaveSizeRange {
                min,
                max,
                preferred: None,
            }));
            for &p in SIZES.iter().filter(|&&p| min <= p && p <= max) {
                attrs.push(Some(WaveSizeRange {
                    min,
                    max,
                    preferred: Some(p),
                }));
            }
        }
    }
    let mut checked = 0;
    for (i, &min) in SIZES.iter().enumerate() {
        for &max in &SIZES[i..] {
            for &preferred in SIZES.iter().filter(|&&p| min <= p && p <= max) {
                for preference in [
                    WavePreference::Nearest,
                    WavePreference::Small,
                    WavePreference::Large,
                ] {
                    let device = Device {
                        preferred,
                        min,
                        max,
                        preference,
                    };
                    for attr in &attrs {
                        let got = select_wave_size(*attr, &device).ok().map(|c| c.size);
                        assert_eq!(got, expected(*attr, &device), "{attr:?} on {device:?}");
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 56 * 3 * 78);
}

#[test]
fn wave_size_selection_reasons() {
    let device = Device {
        preferred: 32,
        min: 8,
        max: 64,
        preference: WavePreference::Nearest,
    };
    let pick = |attr| select_wave_size(attr, &device);
    let c = pick(None).unwrap();
    assert_eq!(
        (c.size, c.reason.as_str()),
        (
            32,
            "the device's preferred wave size; the shader has no [WaveSize]"
        )
    );
    let c = pick(Some(WaveSizeRange {
        min: 16,
        max: 16,
        preferred: None,
    }))
    .unwrap();
    assert_eq!(c.to_string(), "16 (required by [WaveSize(16)])");
    let c = pick(Some(WaveSizeRange {
        min: 8,
        max: 64,
        preferred: Some(16),
    }))
    .unwrap();
    assert_eq!(
        c.to_string(),
        "16 (the preferred size of [WaveSize(8, 64, 16)])"
    );
    let e = pick(Some(WaveSizeRange {
        min: 128,
        max: 128,
        preferred: None,
    }))
    .unwrap_err();
    assert_eq!(
        e.message,
        "the shader requires [WaveSize(128)], but the device supports wave sizes 8..64 only"
    );
    let bad = Device {
        preferred: 4,
        min: 8,
        max: 64,
        preference: WavePreference::Small,
    };
    assert_eq!(
        select_wave_size(None, &bad).unwrap_err().message,
        "the device's preferred wave size 4 is outside its range 8..64"
    );
    let bad = Device {
        preferred: 24,
        ..device
    };
    assert!(
        select_wave_size(None, &bad)
            .unwrap_err()
            .message
            .starts_with("wave size 24 is not supported")
    );
}
