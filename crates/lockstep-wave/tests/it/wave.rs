//! Wave intrinsics against the specification's tables and hand-derived values.

use half::f16;
use lockstep_wave::*;

/// The active sets the hand-derived table covers.
#[derive(Clone, Copy, Debug)]
enum Active {
    All,
    EveryOther,
    EveryThird,
    Lane0,
    Last,
    Empty,
}

use Active::*;

impl Active {
    fn mask(self, wave_size: usize) -> Mask {
        (0..wave_size)
            .filter(|&lane| match self {
                All => true,
                EveryOther => lane % 2 == 0,
                EveryThird => lane % 3 == 0,
                Lane0 => lane == 0,
                Last => lane == wave_size - 1,
                Empty => false,
            })
            .fold(0, |mask, lane| mask | 1 << lane)
    }
}

/// One row of the hand-derived table; the wave's values are `lane + 1` and its bools all true.
struct Row {
    wave_size: usize,
    active: Active,
    ballot: [u32; 4],
    count: u32,
    first: Option<usize>,
    sum: u32,
    min: u32,
    max: u32,
    and: u32,
    or: u32,
    xor: u32,
}

#[allow(clippy::too_many_arguments)]
const fn row(
    wave_size: usize,
    active: Active,
    ballot: [u32; 4],
    count: u32,
    first: Option<usize>,
    sum: u32,
    min: u32,
    max: u32,
    and: u32,
    or: u32,
    xor: u32,
) -> Row {
    Row {
        wave_size,
        active,
        ballot,
        count,
        first,
        sum,
        min,
        max,
        and,
        or,
        xor,
    }
}

const MAX: u32 = u32::MAX;

/// Columns: wave size, active set, ballot, count, first lane, sum, min, max, and, or, xor.
#[rustfmt::skip]
const TABLE: &[Row] = &[
    row(4, All, [0x0000000f, 0, 0, 0], 4, Some(0), 10, 1, 4, 0, 7, 4),
    row(4, EveryOther, [0x00000005, 0, 0, 0], 2, Some(0), 4, 1, 3, 1, 3, 2),
    row(4, EveryThird, [0x00000009, 0, 0, 0], 2, Some(0), 5, 1, 4, 0, 5, 5),
    row(4, Lane0, [0x00000001, 0, 0, 0], 1, Some(0), 1, 1, 1, 1, 1, 1),
    row(4, Last, [0x00000008, 0, 0, 0], 1, Some(3), 4, 4, 4, 4, 4, 4),
    row(4, Empty, [0, 0, 0, 0], 0, None, 0, MAX, 0, MAX, 0, 0),
    row(8, All, [0x000000ff, 0, 0, 0], 8, Some(0), 36, 1, 8, 0, 15, 8),
    row(8, EveryOther, [0x00000055, 0, 0, 0], 4, Some(0), 16, 1, 7, 1, 7, 0),
    row(8, EveryThird, [0x00000049, 0, 0, 0], 3, Some(0), 12, 1, 7, 0, 7, 2),
    row(8, Lane0, [0x00000001, 0, 0, 0], 1, Some(0), 1, 1, 1, 1, 1, 1),
    row(8, Last, [0x00000080, 0, 0, 0], 1, Some(7), 8, 8, 8, 8, 8, 8),
    row(8, Empty, [0, 0, 0, 0], 0, None, 0, MAX, 0, MAX, 0, 0),
    row(16, All, [0x0000ffff, 0, 0, 0], 16, Some(0), 136, 1, 16, 0, 31, 16),
    row(16, EveryOther, [0x00005555, 0, 0, 0], 8, Some(0), 64, 1, 15, 1, 15, 0),
    row(16, EveryThird, [0x00009249, 0, 0, 0], 6, Some(0), 51, 1, 16, 0, 31, 21),
    row(16, Lane0, [0x00000001, 0, 0, 0], 1, Some(0), 1, 1, 1, 1, 1, 1),
    row(16, Last, [0x00008000, 0, 0, 0], 1, Some(15), 16, 16, 16, 16, 16, 16),
    row(16, Empty, [0, 0, 0, 0], 0, None, 0, MAX, 0, MAX, 0, 0),
    row(32, All, [0xffffffff, 0, 0, 0], 32, Some(0), 528, 1, 32, 0, 63, 32),
    row(32, EveryOther, [0x55555555, 0, 0, 0], 16, Some(0), 256, 1, 31, 1, 31, 0),
    row(32, EveryThird, [0x49249249, 0, 0, 0], 11, Some(0), 176, 1, 31, 0, 31, 10),
    row(32, Lane0, [0x00000001, 0, 0, 0], 1, Some(0), 1, 1, 1, 1, 1, 1),
    row(32, Last, [0x80000000, 0, 0, 0], 1, Some(31), 32, 32, 32, 32, 32, 32),
    row(32, Empty, [0, 0, 0, 0], 0, None, 0, MAX, 0, MAX, 0, 0),
    row(64, All, [0xffffffff, 0xffffffff, 0, 0], 64, Some(0), 2080, 1, 64, 0, 127, 64),
    row(64, EveryOther, [0x55555555, 0x55555555, 0, 0], 32, Some(0), 1024, 1, 63, 1, 63, 0),
    row(64, EveryThird, [0x49249249, 0x92492492, 0, 0], 22, Some(0), 715, 1, 64, 0, 127, 85),
    row(64, Lane0, [0x00000001, 0, 0, 0], 1, Some(0), 1, 1, 1, 1, 1, 1),
    row(64, Last, [0, 0x80000000, 0, 0], 1, Some(63), 64, 64, 64, 64, 64, 64),
    row(64, Empty, [0, 0, 0, 0], 0, None, 0, MAX, 0, MAX, 0, 0),
    row(128, All, [0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff], 128, Some(0), 8256, 1, 128, 0, 255, 128),
    row(128, EveryOther, [0x55555555, 0x55555555, 0x55555555, 0x55555555], 64, Some(0), 4096, 1, 127, 1, 127, 0),
    row(128, EveryThird, [0x49249249, 0x92492492, 0x24924924, 0x49249249], 43, Some(0), 2752, 1, 127, 0, 127, 42),
    row(128, Lane0, [0x00000001, 0, 0, 0], 1, Some(0), 1, 1, 1, 1, 1, 1),
    row(128, Last, [0, 0, 0, 0x80000000], 1, Some(127), 128, 128, 128, 128, 128, 128),
    row(128, Empty, [0, 0, 0, 0], 0, None, 0, MAX, 0, MAX, 0, 0),
];

#[test]
fn hand_derived_table() {
    for row in TABLE {
        let w = row.wave_size;
        let mask = row.active.mask(w);
        let values: Vec<u32> = (1..=w as u32).collect();
        let all_true = vec![true; w];
        let context = format!("wave {w}, {:?}", row.active);

        assert_eq!(active_ballot(&all_true, mask), row.ballot, "{context}");
        assert_eq!(active_count_bits(&all_true, mask), row.count, "{context}");
        assert_eq!(active_any_true(&all_true, mask), row.count > 0, "{context}");
        assert!(active_all_true(&all_true, mask), "{context}");
        assert_eq!(first_active_lane(mask), row.first, "{context}");
        assert_eq!(
            read_lane_first(&values, mask),
            row.first.map(|l| l as u32 + 1),
            "{context}"
        );
        assert_eq!(active_sum(&values, mask), row.sum, "{context}");
        assert_eq!(active_min(&values, mask), row.min, "{context}");
        assert_eq!(active_max(&values, mask), row.max, "{context}");
        assert_eq!(active_bit_and(&values, mask), row.and, "{context}");
        assert_eq!(active_bit_or(&values, mask), row.or, "{context}");
        assert_eq!(active_bit_xor(&values, mask), row.xor, "{context}");
        for lane in 0..w {
            assert_eq!(
                is_first_lane(mask, lane),
                row.first == Some(lane),
                "{context}, lane {lane}"
            );
        }
    }
}

/// Lanes 0 and 4 of a wave of 8 are inactive, as in the specification's prefix tables.
const SPEC_MASK: Mask = 0b1110_1110;

#[test]
fn spec_prefix_sum_table() {
    let values = [2u32; 8];
    let expected = [(1, 0), (2, 2), (3, 4), (5, 6), (6, 8), (7, 10)];
    for (lane, sum) in expected {
        assert_eq!(prefix_sum(&values, SPEC_MASK, lane), sum, "lane {lane}");
    }
    let mut out = [0u32; 8];
    prefix_sum_wave(&values, SPEC_MASK, &mut out);
    // Inactive lanes get the prefix over the active lanes below them.
    assert_eq!(out, [0, 0, 2, 4, 6, 6, 8, 10]);
}

#[test]
fn spec_prefix_product_table() {
    let values = [2u32; 8];
    let expected = [(1, 1), (2, 2), (3, 4), (5, 8), (6, 16), (7, 32)];
    for (lane, product) in expected {
        assert_eq!(
            prefix_product(&values, SPEC_MASK, lane),
            product,
            "lane {lane}"
        );
    }
    let mut out = [0u32; 8];
    prefix_product_wave(&values, SPEC_MASK, &mut out);
    assert_eq!(out, [1, 1, 2, 4, 8, 8, 16, 32]);
}

#[test]
fn spec_wave_match_table() {
    // Lanes 0 and 4 are inactive; their values must not matter, so they collide on purpose.
    let input = [123, 123, 0, 123, -1, -1, -1, 15];
    let expected = [
        (1, 0x0a),
        (2, 0x04),
        (3, 0x0a),
        (5, 0x60),
        (6, 0x60),
        (7, 0x80),
    ];
    for (lane, bits) in expected {
        assert_eq!(
            match_mask(&input, SPEC_MASK, lane),
            [bits, 0, 0, 0],
            "lane {lane}"
        );
    }
}

#[test]
fn spec_multi_prefix_sum_table() {
    // Lane 1 is inactive. Lanes 0 and 3 form one group although their masks differ in lane 1's
    // bit, which must be ignored.
    let mask: Mask = 0b1111_1101;
    let partition = [0x0b, 0, 0x14, 0x09, 0x14, 0xe0, 0xe0, 0xe0].map(|x| [x, 0, 0, 0]);
    let values = [6, 99, 0, 3, -2, 1, 4, 5];
    let expected = [(0, 0), (2, 0), (3, 6), (4, 0), (5, 0), (6, 1), (7, 5)];
    for (lane, sum) in expected {
        assert_eq!(
            multi_prefix_sum(&values, mask, &partition, lane),
            sum,
            "lane {lane}"
        );
    }
}

#[test]
fn multi_prefix_other_operators() {
    // Groups {0, 2, 3} and {1, 4}; lane 5 is inactive although group one names it.
    let mask: Mask = 0b01_1111;
    let group_a = [0b10_1101, 0, 0, 0];
    let group_b = [0b01_0010, 0, 0, 0];
    let partition = [group_a, group_b, group_a, group_a, group_b, group_a];
    let values: [u32; 6] = [0b1100, 0b0110, 0b1010, 0b0001, 0b1111, 0b1000];
    let bools = [true, true, false, true, true, true];
    // Lane 3 folds lanes 0 and 2; lane 4 folds lane 1.
    assert_eq!(multi_prefix_product(&values, mask, &partition, 3), 12 * 10);
    assert_eq!(multi_prefix_bit_and(&values, mask, &partition, 3), 0b1000);
    assert_eq!(multi_prefix_bit_or(&values, mask, &partition, 3), 0b1110);
    assert_eq!(multi_prefix_bit_xor(&values, mask, &partition, 3), 0b0110);
    assert_eq!(multi_prefix_count_bits(&bools, mask, &partition, 3), 1);
    assert_eq!(multi_prefix_bit_and(&values, mask, &partition, 4), 0b0110);
    assert_eq!(multi_prefix_count_bits(&bools, mask, &partition, 4), 1);
    // The first lane of a group gets the identity.
    assert_eq!(multi_prefix_product(&values, mask, &partition, 0), 1);
    assert_eq!(multi_prefix_bit_and(&values, mask, &partition, 0), u32::MAX);
    assert_eq!(multi_prefix_bit_or(&values, mask, &partition, 1), 0);
    assert_eq!(multi_prefix_bit_xor(&values, mask, &partition, 1), 0);
}

#[test]
fn ballots_and_counts_with_mixed_values() {
    // Lanes 1, 2, 5, 33 and 100 hold true; lane 2 is inactive.
    let mut values = vec![false; 128];
    for lane in [1, 2, 5, 33, 100] {
        values[lane] = true;
    }
    let mask: Mask = !(1 << 2);
    assert_eq!(active_ballot(&values, mask), [0x22, 0x2, 0, 0x10]);
    assert_eq!(active_count_bits(&values, mask), 4);
    assert!(active_any_true(&values, mask));
    assert!(!active_all_true(&values, mask));
    assert!(active_all_true(&values, 1 << 1 | 1 << 5));
    assert!(!active_any_true(&values, 1 << 3 | 1 << 4));
    assert!(active_all_true(&values, 0));
    assert_eq!(prefix_count_bits(&values, mask, 0), 0);
    assert_eq!(prefix_count_bits(&values, mask, 5), 1);
    assert_eq!(prefix_count_bits(&values, mask, 6), 2);
    assert_eq!(prefix_count_bits(&values, mask, 127), 4);
    let mut out = vec![0; 128];
    prefix_count_bits_wave(&values, mask, &mut out);
    assert_eq!(&out[..7], &[0, 0, 1, 1, 1, 1, 2]);
    assert_eq!(out[34], 3);
}

#[test]
fn ballot_mask_conversions() {
    let mask: Mask = 1 | 1 << 33 | 1 << 70 | 1 << 127;
    let ballot = [1, 2, 1 << 6, 1 << 31];
    assert_eq!(mask_to_ballot(mask), ballot);
    assert_eq!(ballot_to_mask(ballot), mask);
}

#[test]
fn read_lane_at_wraps_and_reads_inactive_lanes() {
    let values = [10, 11, 12, 13, 14, 15, 16, 17];
    assert_eq!(read_lane_at(&values, 3), 13);
    assert_eq!(read_lane_at(&values, 9), 11);
    assert_eq!(read_lane_at(&values, u32::MAX), 17);
    assert_eq!(read_lane_first(&values, 0b1010_0000), Some(15));
    assert_eq!(read_lane_first(&values, 0), None);
}

#[test]
fn quad_reads() {
    let values: Vec<u32> = (0..8).collect();
    // Lane 5 is position 1 of the quad of lanes 4..=7.
    assert_eq!(quad_read_across_x(&values, 5), 4);
    assert_eq!(quad_read_across_y(&values, 5), 7);
    assert_eq!(quad_read_across_diagonal(&values, 5), 6);
    assert_eq!(quad_read_lane_at(&values, 5, 2), 6);
    assert_eq!(quad_read_lane_at(&values, 5, 7), 7);
    assert_eq!(quad_read_across_x(&values, 2), 3);
    assert_eq!(quad_read_across_y(&values, 2), 0);
    assert_eq!(quad_read_across_diagonal(&values, 0), 3);
}

#[test]
fn all_equal() {
    let mask: Mask = 0b1110;
    assert!(
        active_all_equal(&[1, 7, 7, 7], mask),
        "inactive lane 0 must not count"
    );
    assert!(!active_all_equal(&[1, 7, 8, 7], mask));
    assert!(active_all_equal(&[1, 2, 3, 4], 0));
    assert!(active_all_equal(&[true, false, false, false], mask));
    // Floats use ordered equality: zeros of both signs are equal, a NaN equals nothing.
    assert!(active_all_equal(&[-0.0f32, 0.0, -0.0, 0.0], 0xf));
    assert!(!active_all_equal(&[f32::NAN; 4], 0b1));
    assert!(!active_all_equal(&[1.0, f32::NAN, 1.0, 1.0], 0xf));
}

#[test]
fn match_mask_floats_by_bit_pattern() {
    let values = [f32::NAN, f32::NAN, 0.0, -0.0, 1.0, 1.0];
    let mask: Mask = 0b11_1111;
    assert_eq!(match_mask(&values, mask, 0), [0b00_0011, 0, 0, 0]);
    assert_eq!(match_mask(&values, mask, 2), [0b00_0100, 0, 0, 0]);
    assert_eq!(match_mask(&values, mask, 3), [0b00_1000, 0, 0, 0]);
    assert_eq!(match_mask(&values, mask, 5), [0b11_0000, 0, 0, 0]);
    // The lane's own bit is set even where it is inactive.
    assert_eq!(match_mask(&values, 0b01_0000, 5), [0b11_0000, 0, 0, 0]);
}

#[test]
fn float_sum_is_a_left_fold() {
    // 1e8 + 1 rounds back to 1e8 (the spacing there is 8), so ((1e8 + 1) - 1e8) + 1 = 1, whereas a
    // pairwise (1e8 + 1) + (-1e8 + 1) gives 0 and the exact sum is 2.
    let values = [1e8f32, 1.0, -1e8, 1.0];
    assert_eq!(active_sum(&values, 0b1111), 1.0);
    assert_eq!(prefix_sum(&values, 0b1111, 3), 0.0);
    let mut out = [9.0; 4];
    prefix_sum_wave(&values, 0b1111, &mut out);
    assert_eq!(out, [0.0, 1e8, 1e8, 0.0]);
}

#[test]
fn f16_sum_rounds_after_every_step() {
    // In binary16 the spacing at 2048 is 2, so 2048 + 1 is a tie that rounds to even, 2048, twice;
    // rounding only once at the end would give 2050.
    let values = [2048.0, 1.0, 1.0].map(f16::from_f32);
    assert_eq!(active_sum(&values, 0b111), f16::from_f32(2048.0));
}

#[test]
fn negative_zero_survives_reductions() {
    let negative_zero = [-0.0f32, 5.0];
    let sum = active_sum(&negative_zero, 0b01);
    assert_eq!(
        sum.to_bits(),
        (-0.0f32).to_bits(),
        "starting from +0.0 would lose the sign"
    );
    assert_eq!(
        active_sum(&[-0.0f64, -0.0], 0b11).to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(active_sum(&negative_zero, 0).to_bits(), 0.0f32.to_bits());
    assert_eq!(
        prefix_sum(&negative_zero, 0b11, 1).to_bits(),
        (-0.0f32).to_bits()
    );
    assert_eq!(
        active_min(&[0.0f32, -0.0], 0b11).to_bits(),
        (-0.0f32).to_bits()
    );
    assert_eq!(
        active_max(&[-0.0f32, 0.0], 0b11).to_bits(),
        0.0f32.to_bits()
    );
    assert_eq!(
        active_max(&[0.0f32, -0.0], 0b11).to_bits(),
        0.0f32.to_bits()
    );
}

#[test]
fn nan_loses_min_and_max() {
    let values = [f32::NAN, 3.0, 1.0, f32::NAN];
    assert_eq!(active_min(&values, 0b1111), 1.0);
    assert_eq!(active_max(&values, 0b1111), 3.0);
    assert!(active_min(&values, 0b1001).is_nan());
    assert!(active_sum(&values, 0b0011).is_nan());
    assert_eq!(active_min(&values, 0), f32::INFINITY);
    assert_eq!(active_max(&values, 0), f32::NEG_INFINITY);
}

#[test]
fn integer_reductions_wrap_and_keep_types() {
    assert_eq!(active_sum(&[i32::MAX, 1], 0b11), i32::MIN);
    assert_eq!(active_product(&[u16::MAX, 2], 0b11), u16::MAX - 1);
    assert_eq!(active_min(&[-3i64, 2], 0b11), -3);
    assert_eq!(active_max(&[u64::MAX, 2], 0b11), u64::MAX);
    assert_eq!(active_min(&[5i16], 0), i16::MAX);
    assert_eq!(active_max(&[5i16], 0), i16::MIN);
    assert_eq!(active_bit_and(&[-1i16], 0), -1);
    assert_eq!(active_product(&[3.0f64, 0.5, -4.0], 0b111), -6.0);
    assert_eq!(active_product(&[3.0f64], 0), 1.0);
}
