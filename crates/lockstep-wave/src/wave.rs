//! Wave, quad and SM 6.5 match/multi-prefix intrinsics as plain functions over lane values and an
//! active mask.
//!
//! `values` always has one entry per lane of the wave, so its length is the wave size W, and
//! `mask` holds the active lanes. Reductions and scans are a left fold in ascending lane order
//! that starts from the first active lane's own value, `((l_a ∘ l_b) ∘ l_c) ∘ …`, never from the
//! identity: the specification leaves the order undefined, and fixing this one makes float results
//! reproducible and keeps `-0.0` and rounding exactly as a sequential loop would. An empty set of
//! lanes gives the operation's identity.

use crate::lane::{Arith, Bits, Lane, Mask};

/// The lanes below `lane`; all lanes for `lane >= 128`.
fn lanes_below(lane: usize) -> Mask {
    if lane >= Mask::BITS as usize {
        !0
    } else {
        (1 << lane) - 1
    }
}

/// The active lanes that exist in a wave of `len` lanes.
///
/// Callers never set bits at or above the wave size; clipping anyway keeps a caller's mistake from
/// indexing past the slice in a release build.
fn in_wave(mask: Mask, len: usize) -> Mask {
    debug_assert!(
        mask & !lanes_below(len) == 0,
        "mask {mask:#x} has lanes beyond the wave size {len}"
    );
    mask & lanes_below(len)
}

/// The indices of the set bits of `mask`, in ascending order.
#[inline]
pub fn lanes(mut mask: Mask) -> impl Iterator<Item = usize> {
    core::iter::from_fn(move || {
        let lane = first_active_lane(mask)?;
        mask &= mask - 1;
        Some(lane)
    })
}

/// Left-folds the values of the lanes in `mask`, in ascending lane order, starting from the first
/// such lane's own value; `None` when `mask` is empty.
fn fold<T: Copy>(values: &[T], mask: Mask, op: impl Fn(T, T) -> T) -> Option<T> {
    lanes(in_wave(mask, values.len()))
        .map(|lane| values[lane])
        .reduce(op)
}

/// The active lanes whose value is true.
fn ballot_mask(values: &[bool], mask: Mask) -> Mask {
    lanes(in_wave(mask, values.len()))
        .filter(|&lane| values[lane])
        .fold(0, |ballot, lane| ballot | 1 << lane)
}

/// Converts a `uint4` ballot (word `k` holds lanes `32k..32k+31`) to a mask.
pub fn ballot_to_mask(ballot: [u32; 4]) -> Mask {
    ballot
        .iter()
        .rev()
        .fold(0, |mask, &word| mask << 32 | Mask::from(word))
}

/// Converts a mask to a `uint4` ballot (word `k` holds lanes `32k..32k+31`).
pub fn mask_to_ballot(mask: Mask) -> [u32; 4] {
    core::array::from_fn(|word| (mask >> (32 * word)) as u32)
}

/// `WaveIsFirstLane()` on `lane`: whether it is the active lane with the smallest index.
pub fn is_first_lane(mask: Mask, lane: usize) -> bool {
    first_active_lane(mask) == Some(lane)
}

/// The active lane with the smallest index; `None` when no lane is active.
#[inline]
pub fn first_active_lane(mask: Mask) -> Option<usize> {
    (mask != 0).then(|| mask.trailing_zeros() as usize)
}

/// `WaveActiveAnyTrue(expr)`: whether `expr` is true on any active lane.
pub fn active_any_true(values: &[bool], mask: Mask) -> bool {
    ballot_mask(values, mask) != 0
}

/// `WaveActiveAllTrue(expr)`: whether `expr` is true on every active lane (true when none is).
pub fn active_all_true(values: &[bool], mask: Mask) -> bool {
    ballot_mask(values, mask) == in_wave(mask, values.len())
}

/// `WaveActiveBallot(expr)`: bit `i` is set when lane `i` is active and `expr` is true on it.
pub fn active_ballot(values: &[bool], mask: Mask) -> [u32; 4] {
    mask_to_ballot(ballot_mask(values, mask))
}

/// `WaveActiveCountBits(bit)`: the number of active lanes on which `bit` is true.
pub fn active_count_bits(values: &[bool], mask: Mask) -> u32 {
    ballot_mask(values, mask).count_ones()
}

/// `WaveReadLaneFirst(expr)`: the value on the first active lane; `None` when no lane is active.
pub fn read_lane_first<T: Lane>(values: &[T], mask: Mask) -> Option<T> {
    first_active_lane(in_wave(mask, values.len())).map(|lane| values[lane])
}

/// `WaveReadLaneAt(expr, index)`: the value on lane `index`.
///
/// An out-of-range index wraps modulo the wave size, so every index reads some lane. The
/// specification leaves reading an inactive lane undefined; this returns that lane's current
/// value, a deterministic stand-in.
pub fn read_lane_at<T: Lane>(values: &[T], index: u32) -> T {
    values[index as usize % values.len()]
}

/// `WaveActiveAllEqual(expr)`: whether every active lane's value `==` the first active lane's
/// (true when no lane is active).
///
/// DXC lowers float operands to an ordered comparison (`fcmp oeq`), which is the type's
/// `PartialEq`: `-0.0` equals `+0.0`, and any NaN, even a single active lane holding one, makes the
/// result false.
pub fn active_all_equal<T: Lane>(values: &[T], mask: Mask) -> bool {
    let active = in_wave(mask, values.len());
    match first_active_lane(active) {
        Some(first) => lanes(active).all(|lane| values[lane] == values[first]),
        None => true,
    }
}

/// `WaveActiveSum(expr)`: the sum of the active lanes' values, zero when none is active.
pub fn active_sum<T: Arith>(values: &[T], mask: Mask) -> T {
    fold(values, mask, T::add).unwrap_or(T::ZERO)
}

/// `WaveActiveProduct(expr)`: the product of the active lanes' values, one when none is active.
pub fn active_product<T: Arith>(values: &[T], mask: Mask) -> T {
    fold(values, mask, T::mul).unwrap_or(T::ONE)
}

/// `WaveActiveMin(expr)`: the minimum (floats: minNum, see [`Arith::min`]) of the active lanes'
/// values; the type's largest value (`+inf` for floats) when none is active.
pub fn active_min<T: Arith>(values: &[T], mask: Mask) -> T {
    fold(values, mask, T::min).unwrap_or(T::HIGHEST)
}

/// `WaveActiveMax(expr)`: the maximum (floats: maxNum, see [`Arith::max`]) of the active lanes'
/// values; the type's smallest value (`-inf` for floats) when none is active.
pub fn active_max<T: Arith>(values: &[T], mask: Mask) -> T {
    fold(values, mask, T::max).unwrap_or(T::LOWEST)
}

/// `WaveActiveBitAnd(expr)`: the AND of the active lanes' values, all ones when none is active.
pub fn active_bit_and<T: Bits>(values: &[T], mask: Mask) -> T {
    fold(values, mask, T::and).unwrap_or(T::ALL_ONES)
}

/// `WaveActiveBitOr(expr)`: the OR of the active lanes' values, zero when none is active.
pub fn active_bit_or<T: Bits>(values: &[T], mask: Mask) -> T {
    fold(values, mask, T::or).unwrap_or(T::ZERO)
}

/// `WaveActiveBitXor(expr)`: the XOR of the active lanes' values, zero when none is active.
pub fn active_bit_xor<T: Bits>(values: &[T], mask: Mask) -> T {
    fold(values, mask, T::xor).unwrap_or(T::ZERO)
}

/// `WavePrefixCountBits(bit)` on `lane`: the number of active lanes below `lane` on which `bit` is
/// true.
pub fn prefix_count_bits(values: &[bool], mask: Mask, lane: usize) -> u32 {
    active_count_bits(values, mask & lanes_below(lane))
}

/// `WavePrefixSum(value)` on `lane`: the sum over the active lanes below `lane`, zero when there is
/// none.
pub fn prefix_sum<T: Arith>(values: &[T], mask: Mask, lane: usize) -> T {
    active_sum(values, mask & lanes_below(lane))
}

/// `WavePrefixProduct(value)` on `lane`: the product over the active lanes below `lane`, one when
/// there is none.
pub fn prefix_product<T: Arith>(values: &[T], mask: Mask, lane: usize) -> T {
    active_product(values, mask & lanes_below(lane))
}

/// Writes, for every lane `i` of the wave, the fold of the active lanes below `i` (or `identity`),
/// in one pass: `out[i]` equals `fold(values, mask & lanes_below(i))`.
fn prefix_wave<T: Copy>(
    values: &[T],
    mask: Mask,
    out: &mut [T],
    identity: T,
    op: impl Fn(T, T) -> T,
) {
    debug_assert!(
        out.len() >= values.len(),
        "the output is shorter than the wave"
    );
    let active = in_wave(mask, values.len());
    let mut acc: Option<T> = None;
    for (lane, (slot, &value)) in out.iter_mut().zip(values).enumerate() {
        *slot = acc.unwrap_or(identity);
        if (active >> lane) & 1 == 1 {
            acc = Some(acc.map_or(value, |a| op(a, value)));
        }
    }
}

/// `WavePrefixSum(value)` for the whole wave: `out[i] = prefix_sum(values, mask, i)` for every lane
/// `i`, active or not, so inactive lanes get a deterministic value.
pub fn prefix_sum_wave<T: Arith>(values: &[T], mask: Mask, out: &mut [T]) {
    prefix_wave(values, mask, out, T::ZERO, T::add);
}

/// `WavePrefixProduct(value)` for the whole wave: `out[i] = prefix_product(values, mask, i)` for
/// every lane `i`, active or not.
pub fn prefix_product_wave<T: Arith>(values: &[T], mask: Mask, out: &mut [T]) {
    prefix_wave(values, mask, out, T::ONE, T::mul);
}

/// `WavePrefixCountBits(bit)` for the whole wave: `out[i] = prefix_count_bits(values, mask, i)`
/// for every lane `i`, active or not.
pub fn prefix_count_bits_wave(values: &[bool], mask: Mask, out: &mut [u32]) {
    let ballot = ballot_mask(values, mask);
    for (lane, slot) in out.iter_mut().take(values.len()).enumerate() {
        *slot = (ballot & lanes_below(lane)).count_ones();
    }
}

/// The lane at `position & 3` (reading order `[0 1 / 2 3]`) of the quad that holds `lane`.
fn quad_member(lane: usize, position: u32) -> usize {
    (lane & !3) | (position & 3) as usize
}

/// `QuadReadAcrossX(value)` on `lane`: the value of the horizontally adjacent lane of its quad.
pub fn quad_read_across_x<T: Lane>(values: &[T], lane: usize) -> T {
    values[lane ^ 1]
}

/// `QuadReadAcrossY(value)` on `lane`: the value of the vertically adjacent lane of its quad.
pub fn quad_read_across_y<T: Lane>(values: &[T], lane: usize) -> T {
    values[lane ^ 2]
}

/// `QuadReadAcrossDiagonal(value)` on `lane`: the value of the diagonally opposite lane of its
/// quad.
pub fn quad_read_across_diagonal<T: Lane>(values: &[T], lane: usize) -> T {
    values[lane ^ 3]
}

/// `QuadReadLaneAt(value, quad_lane)` on `lane`: the value of position `quad_lane & 3` of its
/// quad, so an out-of-range position wraps.
pub fn quad_read_lane_at<T: Lane>(values: &[T], lane: usize, quad_lane: u32) -> T {
    values[quad_member(lane, quad_lane)]
}

/// `WaveMatch(value)` on `lane`: the active lanes whose value is the same as `lane`'s, plus `lane`
/// itself.
///
/// Sameness is [`Lane::same_value`]: floats compare bit patterns, so a NaN matches itself and
/// `-0.0` does not match `+0.0`. The lane's own bit is always set, as the specification requires,
/// even when `lane` is inactive (where the result is undefined).
pub fn match_mask<T: Lane>(values: &[T], mask: Mask, lane: usize) -> [u32; 4] {
    let own = values[lane];
    let matching = lanes(in_wave(mask, values.len()))
        .filter(|&other| values[other].same_value(own))
        .fold(0, |bits, other| bits | 1 << other);
    mask_to_ballot(matching | 1 << lane)
}

/// The active lanes below `lane` in `lane`'s group of a multi-prefix operation; bits of inactive
/// lanes and of lanes beyond the wave are ignored, as the specification says.
fn multi_prefix_lanes(mask: Mask, partition: &[[u32; 4]], lane: usize) -> Mask {
    mask & ballot_to_mask(partition[lane]) & lanes_below(lane)
}

/// `WaveMultiPrefixSum(value, partition)` on `lane`: the sum over the active lanes below `lane`
/// in `partition[lane]`, zero when there is none.
pub fn multi_prefix_sum<T: Arith>(
    values: &[T],
    mask: Mask,
    partition: &[[u32; 4]],
    lane: usize,
) -> T {
    active_sum(values, multi_prefix_lanes(mask, partition, lane))
}

/// `WaveMultiPrefixProduct(value, partition)` on `lane`: the product over the active lanes below
/// `lane` in `partition[lane]`, one when there is none.
pub fn multi_prefix_product<T: Arith>(
    values: &[T],
    mask: Mask,
    partition: &[[u32; 4]],
    lane: usize,
) -> T {
    active_product(values, multi_prefix_lanes(mask, partition, lane))
}

/// `WaveMultiPrefixCountBits(bit, partition)` on `lane`: the number of active lanes below `lane`
/// in `partition[lane]` on which `bit` is true.
pub fn multi_prefix_count_bits(
    values: &[bool],
    mask: Mask,
    partition: &[[u32; 4]],
    lane: usize,
) -> u32 {
    active_count_bits(values, multi_prefix_lanes(mask, partition, lane))
}

/// [`multi_prefix_count_bits`] on every lane of the wave at once, into `out` (one per lane): one
/// ballot of the wave, then one population count per lane, instead of a ballot per lane.
/// (`#[inline]`, so that a caller compiled with POPCNT counts in one instruction.)
#[inline]
pub fn multi_prefix_count_bits_wave(
    values: &[bool],
    mask: Mask,
    partition: &[[u32; 4]],
    out: &mut [u32],
) {
    let set = ballot_mask(values, mask);
    for (lane, (o, &p)) in out.iter_mut().zip(partition).enumerate() {
        *o = (set & ballot_to_mask(p) & lanes_below(lane)).count_ones();
    }
}

/// `WaveMultiPrefixBitAnd(value, partition)` on `lane`: the AND over the active lanes below `lane`
/// in `partition[lane]`, all ones when there is none.
pub fn multi_prefix_bit_and<T: Bits>(
    values: &[T],
    mask: Mask,
    partition: &[[u32; 4]],
    lane: usize,
) -> T {
    active_bit_and(values, multi_prefix_lanes(mask, partition, lane))
}

/// `WaveMultiPrefixBitOr(value, partition)` on `lane`: the OR over the active lanes below `lane`
/// in `partition[lane]`, zero when there is none.
pub fn multi_prefix_bit_or<T: Bits>(
    values: &[T],
    mask: Mask,
    partition: &[[u32; 4]],
    lane: usize,
) -> T {
    active_bit_or(values, multi_prefix_lanes(mask, partition, lane))
}

/// `WaveMultiPrefixBitXor(value, partition)` on `lane`: the XOR over the active lanes below `lane`
/// in `partition[lane]`, zero when there is none.
pub fn multi_prefix_bit_xor<T: Bits>(
    values: &[T],
    mask: Mask,
    partition: &[[u32; 4]],
    lane: usize,
) -> T {
    active_bit_xor(values, multi_prefix_lanes(mask, partition, lane))
}
