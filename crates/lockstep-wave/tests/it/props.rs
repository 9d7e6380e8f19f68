//! Properties over random wave sizes, active masks and values: the whole-wave forms equal the
//! per-lane forms, and the counting intrinsics agree with ballots.

use lockstep_wave::*;
use proptest::prelude::*;

/// The lanes below `lane`, written independently of the crate.
fn below(lane: usize) -> Mask {
    if lane == 128 { !0 } else { (1 << lane) - 1 }
}

/// A wave size from 4 to 128, a mask of lanes inside it, and one value per lane.
fn wave<T: core::fmt::Debug>(
    value: impl Strategy<Value = T> + Clone,
) -> impl Strategy<Value = (Mask, Vec<T>)> {
    (2u32..=7).prop_flat_map(move |log| {
        let size = 1usize << log;
        (
            any::<Mask>().prop_map(move |m| m & below(size)),
            prop::collection::vec(value.clone(), size),
        )
    })
}

/// Compares float results by bit pattern, because both forms must do the same operations in the
/// same order, NaN payloads and signed zeros included.
fn same_floats(a: &[f32], b: &[f32]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

proptest! {
    #[test]
    fn multi_prefix_count_bits_wave_matches_per_lane(
        (mask, lanes) in wave((any::<bool>(), any::<[u32; 4]>(), 0u32..4))
    ) {
        // Each lane's partition: the lanes of the same key among four (as WaveMatch makes
        // them), or, for key 3, an arbitrary mask.
        let keys: Vec<u32> = lanes.iter().map(|l| l.2).collect();
        let partition: Vec<[u32; 4]> = lanes
            .iter()
            .map(|&(_, arbitrary, key)| {
                if key == 3 {
                    return arbitrary;
                }
                let same = keys
                    .iter()
                    .enumerate()
                    .filter(|&(_, &k)| k == key)
                    .fold(0 as Mask, |m, (l, _)| m | 1 << l);
                mask_to_ballot(same)
            })
            .collect();
        let values: Vec<bool> = lanes.iter().map(|l| l.0).collect();
        let mut out = vec![0; values.len()];
        multi_prefix_count_bits_wave(&values, mask, &partition, &mut out);
        let per_lane: Vec<u32> = (0..values.len())
            .map(|l| multi_prefix_count_bits(&values, mask, &partition, l))
            .collect();
        prop_assert_eq!(out, per_lane);
    }

    #[test]
    fn prefix_sum_wave_matches_per_lane((mask, values) in wave(any::<u32>())) {
        let mut out = vec![0; values.len()];
        prefix_sum_wave(&values, mask, &mut out);
        let per_lane: Vec<u32> = (0..values.len()).map(|l| prefix_sum(&values, mask, l)).collect();
        prop_assert_eq!(out, per_lane);
    }

    #[test]
    fn prefix_sum_wave_matches_per_lane_for_floats((mask, values) in wave(any::<f32>())) {
        let mut out = vec![0.0; values.len()];
        prefix_sum_wave(&values, mask, &mut out);
        let per_lane: Vec<f32> = (0..values.len()).map(|l| prefix_sum(&values, mask, l)).collect();
        prop_assert!(same_floats(&out, &per_lane), "{:?} != {:?}", out, per_lane);
    }

    #[test]
    fn prefix_product_wave_matches_per_lane((mask, values) in wave(any::<i32>())) {
        let mut out = vec![0; values.len()];
        prefix_product_wave(&values, mask, &mut out);
        let per_lane: Vec<i32> =
            (0..values.len()).map(|l| prefix_product(&values, mask, l)).collect();
        prop_assert_eq!(out, per_lane);
    }

    #[test]
    fn prefix_product_wave_matches_per_lane_for_floats((mask, values) in wave(-4.0f32..4.0)) {
        let mut out = vec![0.0; values.len()];
        prefix_product_wave(&values, mask, &mut out);
        let per_lane: Vec<f32> =
            (0..values.len()).map(|l| prefix_product(&values, mask, l)).collect();
        prop_assert!(same_floats(&out, &per_lane), "{:?} != {:?}", out, per_lane);
    }

    #[test]
    fn prefix_count_bits_wave_matches_per_lane((mask, values) in wave(any::<bool>())) {
        let mut out = vec![0; values.len()];
        prefix_count_bits_wave(&values, mask, &mut out);
        let per_lane: Vec<u32> =
            (0..values.len()).map(|l| prefix_count_bits(&values, mask, l)).collect();
        prop_assert_eq!(out, per_lane);
    }

    #[test]
    fn counts_agree_with_the_ballot((mask, values) in wave(any::<bool>())) {
        let ballot = ballot_to_mask(active_ballot(&values, mask));
        prop_assert_eq!(ballot & !mask, 0, "the ballot holds inactive lanes");
        prop_assert_eq!(active_count_bits(&values, mask), ballot.count_ones());
        prop_assert_eq!(active_any_true(&values, mask), ballot != 0);
        prop_assert_eq!(active_all_true(&values, mask), ballot == mask);
        for lane in 0..values.len() {
            let below_lane = (ballot & below(lane)).count_ones();
            prop_assert_eq!(prefix_count_bits(&values, mask, lane), below_lane);
        }
    }

    #[test]
    fn reductions_are_the_prefix_past_the_last_lane((mask, values) in wave(any::<u64>())) {
        let size = values.len();
        prop_assert_eq!(active_sum(&values, mask), prefix_sum(&values, mask, size));
        prop_assert_eq!(active_product(&values, mask), prefix_product(&values, mask, size));
        let first = first_active_lane(mask);
        prop_assert_eq!(read_lane_first(&values, mask), first.map(|l| values[l]));
        for lane in 0..size {
            prop_assert_eq!(is_first_lane(mask, lane), first == Some(lane));
        }
    }

    #[test]
    fn ballots_round_trip(mask in any::<Mask>()) {
        prop_assert_eq!(ballot_to_mask(mask_to_ballot(mask)), mask);
    }

    /// The specification's equivalence: `WaveMultiPrefixSum(value, WaveMatch(key))` is a prefix
    /// sum over the active lanes below with the same key.
    #[test]
    fn multi_prefix_over_match_groups(
        (mask, pairs) in wave((0u16..4, any::<u32>()))
    ) {
        let keys: Vec<u16> = pairs.iter().map(|p| p.0).collect();
        let values: Vec<u32> = pairs.iter().map(|p| p.1).collect();
        let partition: Vec<[u32; 4]> =
            (0..keys.len()).map(|lane| match_mask(&keys, mask, lane)).collect();
        for lane in (0..keys.len()).filter(|&l| mask >> l & 1 == 1) {
            let expected = (0..lane)
                .filter(|&l| mask >> l & 1 == 1 && keys[l] == keys[lane])
                .fold(0u32, |sum, l| sum.wrapping_add(values[l]));
            prop_assert_eq!(multi_prefix_sum(&values, mask, &partition, lane), expected);
        }
    }
}

proptest! {
    /// Rounding `f64` to `f16` agrees with `half`'s `f32` conversion wherever the value is an
    /// `f32`, across normals, subnormals and overflow.
    #[test]
    fn f64_to_f16_agrees_on_f32_values(bits in any::<u32>()) {
        let x = f32::from_bits(bits);
        prop_assume!(!x.is_nan());
        let via_f64: half::f16 = convert(f64::from(x));
        prop_assert_eq!(via_f64.to_bits(), half::f16::from_f32(x).to_bits());
    }

    /// A value a hair above or below the midpoint of two adjacent `f16` values rounds to the
    /// nearer one, which rounding through `f32` gets wrong when the hair is below `f32` precision.
    #[test]
    fn f64_to_f16_near_ties(low_bits in 0u16..0x7BFF, exponent in 36i32..=40) {
        let low = f64::from(half::f16::from_bits(low_bits));
        let high = f64::from(half::f16::from_bits(low_bits + 1));
        let midpoint = (low + high) / 2.0;
        // The midpoint lies between half a gap and 2^11 gaps, so a hair of 2^-36 to 2^-40 gaps
        // is far below f32 precision and still exact in f64.
        let hair = (high - low) * 2f64.powi(-exponent);
        let above: half::f16 = convert(midpoint + hair);
        let below: half::f16 = convert(midpoint - hair);
        prop_assert_eq!(above.to_bits(), low_bits + 1);
        prop_assert_eq!(below.to_bits(), low_bits);
    }
}
