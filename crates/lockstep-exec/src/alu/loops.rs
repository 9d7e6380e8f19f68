// The lane loops and the functions that pick them. This file is included
// once per instruction set (see `alu.rs`): `isa` runs a loop compiled for
// that set.

/// A lane's new value where `keep` is all ones, its old one where it is 0.
#[inline(always)]
fn blend_lane(old: u64, new: u64, keep: u64) -> u64 {
    (old & !keep) | (new & keep)
}

// `map1`, `map2` and `map3` write `f` of the operands to every lane of
// `dst`, or, given `keep` (all ones or 0 per lane), to the lanes where it is
// all ones: a masked write in the same pass.

#[inline(always)]
fn map1<A: Val, R: Val>(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>, f: impl Fn(A) -> R) {
    let f = |x: u64| f(A::from_lane(x)).to_lane();
    isa(
        #[inline(always)]
        || match keep {
            None => dst.iter_mut().zip(a).for_each(|(d, &x)| *d = f(x)),
            Some(k) => {
                for ((d, &x), &k) in dst.iter_mut().zip(a).zip(k) {
                    *d = blend_lane(*d, f(x), k);
                }
            }
        },
    )
}

#[inline(always)]
fn map2<A: Val, R: Val>(
    dst: &mut [u64],
    a: &[u64],
    b: &[u64],
    keep: Option<&[u64]>,
    f: impl Fn(A, A) -> R,
) {
    map2_raw(dst, a, b, keep, |x, y| f(A::from_lane(x), A::from_lane(y)).to_lane());
}

#[inline(always)]
fn map3<A: Val, R: Val>(
    dst: &mut [u64],
    a: &[u64],
    b: &[u64],
    c: &[u64],
    keep: Option<&[u64]>,
    f: impl Fn(A, A, A) -> R,
) {
    let f = |x: u64, y: u64, z: u64| f(A::from_lane(x), A::from_lane(y), A::from_lane(z)).to_lane();
    isa(
        #[inline(always)]
        || match keep {
            None => {
                for (((d, &x), &y), &z) in dst.iter_mut().zip(a).zip(b).zip(c) {
                    *d = f(x, y, z);
                }
            }
            Some(k) => {
                for ((((d, &x), &y), &z), &k) in dst.iter_mut().zip(a).zip(b).zip(c).zip(k) {
                    *d = blend_lane(*d, f(x, y, z), k);
                }
            }
        },
    )
}

/// Declares lane-loop functions `name::<T>` from a closure over `T`.
macro_rules! lane_fns {
    ($bound:path; $($name:ident($($arg:ident),+) => $body:expr;)*) => {$(
        fn $name<T: Val + $bound>(dst: &mut [u64], $($arg: &[u64]),+, keep: Option<&[u64]>) {
            lane_fns!(@map dst, $($arg),+; keep; |$($arg: T),+| $body)
        }
    )*};
    (@map $dst:ident, $a:ident; $k:ident; $f:expr) => { map1($dst, $a, $k, $f) };
    (@map $dst:ident, $a:ident, $b:ident; $k:ident; $f:expr) => { map2($dst, $a, $b, $k, $f) };
    (@map $dst:ident, $a:ident, $b:ident, $c:ident; $k:ident; $f:expr) => {
        map3($dst, $a, $b, $c, $k, $f)
    };
}

lane_fns! { Arith;
    add(a, b) => a.add(b);
    sub(a, b) => a.sub(b);
    mul(a, b) => a.mul(b);
    div(a, b) => a.div(b);
    rem(a, b) => a.rem(b);
    neg(a) => a.neg();
    min(a, b) => Arith::min(a, b);
    max(a, b) => Arith::max(a, b);
    abs(a) => a.abs();
    clamp(a, b, c) => ops::clamp(a, b, c);
    mad(a, b, c) => ops::mad(a, b, c);
    sign(a) => ops::sign(a);
}

lane_fns! { Bits;
    bit_and(a, b) => a.and(b);
    bit_or(a, b) => a.or(b);
    bit_xor(a, b) => a.xor(b);
    bit_not(a) => a.not();
    shl(a, b) => a.shl(b);
    shr(a, b) => a.shr(b);
    countbits(a) => ops::countbits(a);
    firstbithigh(a) => ops::firstbithigh(a);
    firstbitlow(a) => ops::firstbitlow(a);
    reversebits(a) => ops::reversebits(a);
}

lane_fns! { Float;
    floor(a) => ops::floor(a);
    ceil(a) => ops::ceil(a);
    round(a) => ops::round(a);
    trunc(a) => ops::trunc(a);
    frac(a) => ops::frac(a);
    sqrt(a) => ops::sqrt(a);
    rsqrt(a) => ops::rsqrt(a);
    rcp(a) => ops::rcp(a);
    exp(a) => ops::exp(a);
    exp2(a) => ops::exp2(a);
    log(a) => ops::log(a);
    log2(a) => ops::log2(a);
    log10(a) => ops::log10(a);
    sin(a) => ops::sin(a);
    cos(a) => ops::cos(a);
    tan(a) => ops::tan(a);
    asin(a) => ops::asin(a);
    acos(a) => ops::acos(a);
    atan(a) => ops::atan(a);
    sinh(a) => ops::sinh(a);
    cosh(a) => ops::cosh(a);
    tanh(a) => ops::tanh(a);
    saturate(a) => ops::saturate(a);
    isnan(a) => ops::isnan(a);
    isinf(a) => ops::isinf(a);
    isfinite(a) => ops::isfinite(a);
    fmod(a, b) => ops::fmod(a, b);
    pow(a, b) => ops::pow(a, b);
    atan2(a, b) => ops::atan2(a, b);
    step(a, b) => ops::step(a, b);
    lerp(a, b, c) => ops::lerp(a, b, c);
    smoothstep(a, b, c) => ops::smoothstep(a, b, c);
    fma(a, b, c) => ops::fma(a, b, c);
}

lane_fns! { PartialOrd;
    eq(a, b) => a == b;
    ne(a, b) => a != b;
    lt(a, b) => a < b;
    le(a, b) => a <= b;
    gt(a, b) => a > b;
    ge(a, b) => a >= b;
}

fn logical_not(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
    map1(dst, a, keep, |x: bool| !x);
}

fn logical_and(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>) {
    map2(dst, a, b, keep, |x: bool, y: bool| x && y);
}

fn logical_or(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>) {
    map2(dst, a, b, keep, |x: bool, y: bool| x || y);
}

fn f32tof16(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
    map1(dst, a, keep, ops::f32tof16);
}

fn f16tof32(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
    map1(dst, a, keep, ops::f16tof32);
}

fn as_double(dst: &mut [u64], lo: &[u64], hi: &[u64], keep: Option<&[u64]>) {
    map2(dst, lo, hi, keep, |l: u64, h: u64| (l & 0xFFFF_FFFF) | (h << 32));
}

/// `map2` on the register lanes as they are (the operations on whole
/// lanes use it directly).
#[inline(always)]
fn map2_raw(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>, f: impl Fn(u64, u64) -> u64) {
    isa(
        #[inline(always)]
        || match keep {
            None => {
                for ((d, &x), &y) in dst.iter_mut().zip(a).zip(b) {
                    *d = f(x, y);
                }
            }
            Some(k) => {
                for (((d, &x), &y), &k) in dst.iter_mut().zip(a).zip(b).zip(k) {
                    *d = blend_lane(*d, f(x, y), k);
                }
            }
        },
    )
}

/// `map2_raw` with a constant second operand; `a` of `None` is the
/// destination itself (an operation in place).
#[inline(always)]
fn map2_raw_imm(dst: &mut [u64], a: Option<&[u64]>, y: u64, keep: Option<&[u64]>, f: impl Fn(u64, u64) -> u64) {
    isa(
        #[inline(always)]
        || match (a, keep) {
            (Some(a), None) => {
                for (d, &x) in dst.iter_mut().zip(a) {
                    *d = f(x, y);
                }
            }
            (Some(a), Some(k)) => {
                for ((d, &x), &k) in dst.iter_mut().zip(a).zip(k) {
                    *d = blend_lane(*d, f(x, y), k);
                }
            }
            (None, None) => {
                for d in dst.iter_mut() {
                    *d = f(*d, y);
                }
            }
            (None, Some(k)) => {
                for (d, &k) in dst.iter_mut().zip(k) {
                    *d = blend_lane(*d, f(*d, y), k);
                }
            }
        },
    )
}

/// The low 32 bits of a register lane.
const LOW32: u64 = 0xFFFF_FFFF;

// 32-bit integer operations on whole 64-bit lanes, without narrowing the
// operands to 32 bits and widening the result back (which costs two
// shuffles per vector): the low 32 bits of a sum, difference or product
// depend only on the low 32 bits of the operands, and a 32-bit lane is
// zero-extended (`value.rs`), so it compares like its 64-bit lane. The
// same results as the generic loops (see `whole_lane_tests`). Each has a
// form over two registers and one with a constant second operand.
macro_rules! whole_lane_ops {
    ($($name:ident, $imm:ident: |$x:ident, $y:ident| $body:expr;)*) => {$(
        fn $name(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>) {
            map2_raw(dst, a, b, keep, |$x, $y| $body);
        }
        fn $imm(dst: &mut [u64], a: Option<&[u64]>, b: u64, keep: Option<&[u64]>) {
            map2_raw_imm(dst, a, b, keep, |$x, $y| $body);
        }
    )*};
}

whole_lane_ops! {
    add32, add32_imm: |x, y| x.wrapping_add(y) & LOW32;
    sub32, sub32_imm: |x, y| x.wrapping_sub(y) & LOW32;
    // Both factors below 2^32: one 32 × 32 → 64-bit multiply per lane.
    mul32, mul32_imm: |x, y| (x & LOW32).wrapping_mul(y & LOW32) & LOW32;
    shl32, shl32_imm: |x, y| ((x & LOW32) << (y & 31)) & LOW32;
    shr32u, shr32u_imm: |x, y| (x & LOW32) >> (y & 31);
    and32, and32_imm: |x, y| x & y & LOW32;
    or32, or32_imm: |x, y| (x | y) & LOW32;
    xor32, xor32_imm: |x, y| (x ^ y) & LOW32;
    eq32, eq32_imm: |x, y| u64::from(x & LOW32 == y & LOW32);
    ne32, ne32_imm: |x, y| u64::from(x & LOW32 != y & LOW32);
    // Below 2^32 as 64-bit signed numbers too: a signed compare.
    lt32u, lt32u_imm: |x, y| u64::from(((x & LOW32) as i64) < (y & LOW32) as i64);
    gt32u, gt32u_imm: |x, y| u64::from(((x & LOW32) as i64) > (y & LOW32) as i64);
    le32u, le32u_imm: |x, y| u64::from(((x & LOW32) as i64) <= (y & LOW32) as i64);
    ge32u, ge32u_imm: |x, y| u64::from(((x & LOW32) as i64) >= (y & LOW32) as i64);
    // `int`: the sign bit flipped orders the low 32 bits as unsigned
    // numbers in the order of the signed ones.
    lt32s, lt32s_imm: |x, y| u64::from((((x ^ SIGN32) & LOW32) as i64) < ((y ^ SIGN32) & LOW32) as i64);
    le32s, le32s_imm: |x, y| u64::from((((x ^ SIGN32) & LOW32) as i64) <= ((y ^ SIGN32) & LOW32) as i64);
    gt32s, gt32s_imm: |x, y| u64::from((((x ^ SIGN32) & LOW32) as i64) > ((y ^ SIGN32) & LOW32) as i64);
    ge32s, ge32s_imm: |x, y| u64::from((((x ^ SIGN32) & LOW32) as i64) >= ((y ^ SIGN32) & LOW32) as i64);
    // An arithmetic shift as a logical one (AVX2 has no 64-bit arithmetic
    // shift): a negative number's bits are inverted, shifted and inverted
    // back, which shifts ones in.
    shr32s, shr32s_imm: |x, y| {
        let sign = 0u64.wrapping_sub((x >> 31) & 1);
        (((x ^ sign) & LOW32) >> (y & 31) ^ sign) & LOW32
    };
}

/// The sign bit of a 32-bit lane.
const SIGN32: u64 = 0x8000_0000;

/// A `float` register lane's value (its low 32 bits).
#[inline(always)]
fn f32_lane(x: u64) -> f32 {
    f32::from_bits(x as u32)
}

// `float` arithmetic and comparisons, the generic loops' operations
// (`Arith` and IEEE comparisons on `f32`), with a form for a constant
// second operand.
whole_lane_ops! {
    fadd32, fadd32_imm: |x, y| u64::from(Arith::add(f32_lane(x), f32_lane(y)).to_bits());
    fsub32, fsub32_imm: |x, y| u64::from(Arith::sub(f32_lane(x), f32_lane(y)).to_bits());
    fmul32, fmul32_imm: |x, y| u64::from(Arith::mul(f32_lane(x), f32_lane(y)).to_bits());
    fdiv32, fdiv32_imm: |x, y| u64::from(Arith::div(f32_lane(x), f32_lane(y)).to_bits());
    feq32, feq32_imm: |x, y| u64::from(f32_lane(x) == f32_lane(y));
    fne32, fne32_imm: |x, y| u64::from(f32_lane(x) != f32_lane(y));
    flt32, flt32_imm: |x, y| u64::from(f32_lane(x) < f32_lane(y));
    fle32, fle32_imm: |x, y| u64::from(f32_lane(x) <= f32_lane(y));
    fgt32, fgt32_imm: |x, y| u64::from(f32_lane(x) > f32_lane(y));
    fge32, fge32_imm: |x, y| u64::from(f32_lane(x) >= f32_lane(y));
}

/// The lane loops of a 32-bit operation that works on whole lanes (an
/// [`Op32`]): over two registers, and with a constant second operand.
fn whole_lane(op: BinaryOp, ty: ScalarType) -> Option<(BinaryFn, BinaryImmFn)> {
    Some(match super::op32(op, ty)? {
        Op32::Add => (add32, add32_imm),
        Op32::Sub => (sub32, sub32_imm),
        Op32::Mul => (mul32, mul32_imm),
        Op32::UDiv => (udiv32, udiv32_imm),
        Op32::URem => (urem32, urem32_imm),
        Op32::SDiv => (sdiv32, sdiv32_imm),
        Op32::SRem => (srem32, srem32_imm),
        Op32::Shl => (shl32, shl32_imm),
        Op32::ShrU => (shr32u, shr32u_imm),
        Op32::ShrS => (shr32s, shr32s_imm),
        Op32::And => (and32, and32_imm),
        Op32::Or => (or32, or32_imm),
        Op32::Xor => (xor32, xor32_imm),
        Op32::Eq => (eq32, eq32_imm),
        Op32::Ne => (ne32, ne32_imm),
        Op32::LtU => (lt32u, lt32u_imm),
        Op32::LeU => (le32u, le32u_imm),
        Op32::GtU => (gt32u, gt32u_imm),
        Op32::GeU => (ge32u, ge32u_imm),
        Op32::LtS => (lt32s, lt32s_imm),
        Op32::LeS => (le32s, le32s_imm),
        Op32::GtS => (gt32s, gt32s_imm),
        Op32::GeS => (ge32s, ge32s_imm),
        Op32::FAdd => (fadd32, fadd32_imm),
        Op32::FSub => (fsub32, fsub32_imm),
        Op32::FMul => (fmul32, fmul32_imm),
        Op32::FDiv => (fdiv32, fdiv32_imm),
        Op32::FEq => (feq32, feq32_imm),
        Op32::FNe => (fne32, fne32_imm),
        Op32::FLt => (flt32, flt32_imm),
        Op32::FLe => (fle32, fle32_imm),
        Op32::FGt => (fgt32, fgt32_imm),
        Op32::FGe => (fge32, fge32_imm),
        // Builtins and one-operand operations.
        _ => return None,
    })
}

// The same operations on the 32-bit lanes of a `Block32`'s slots, each
// lane `Op32::eval` (inlined, so each loop is the operation's own and
// vectorises): eight lanes per AVX2 vector.
macro_rules! slot32_ops {
    ($($op:ident),* $(,)?) => {
        /// The slot loops of `op`: over two slots, and with a constant
        /// (`None` for [`Op32::Select`], which has [`select32`]).
        pub(crate) fn slot32(op: Op32) -> Option<(Slot32Fn, Slot32ImmFn)> {
            Some(match op {$(
                Op32::$op => {
                    fn slots(dst: &mut [u32], a: &[u32], b: &[u32]) {
                        isa(
                            #[inline(always)]
                            || {
                                for ((d, &x), &y) in dst.iter_mut().zip(a).zip(b) {
                                    *d = Op32::$op.eval(x, y, 0);
                                }
                            },
                        )
                    }
                    fn imm(dst: &mut [u32], a: &[u32], y: u32) {
                        isa(
                            #[inline(always)]
                            || {
                                for (d, &x) in dst.iter_mut().zip(a) {
                                    *d = Op32::$op.eval(x, y, 0);
                                }
                            },
                        )
                    }
                    (slots, imm)
                }
            )*
                Op32::Select => return None,
            })
        }
    };
}

/// [`Op32::Select`] on a block's slots: `c`'s lanes pick `a`'s where
/// nonzero and `b`'s where zero, without a branch (the conditions are
/// data, which a branch per lane would mispredict).
pub(crate) fn select32(dst: &mut [u32], c: &[u32], a: &[u32], b: &[u32]) {
    isa(
        #[inline(always)]
        || {
            for (((d, &c), &a), &b) in dst.iter_mut().zip(c).zip(a).zip(b) {
                let pick = 0u32.wrapping_sub(u32::from(c != 0));
                *d = (a & pick) | (b & !pick);
            }
        },
    )
}

/// [`select32`] as a function pointer.
pub(crate) fn select32_fn() -> Slot32SelectFn {
    select32
}

slot32_ops! {
    Add,
    Sub,
    Mul,
    UDiv,
    URem,
    SDiv,
    SRem,
    Shl,
    ShrU,
    ShrS,
    And,
    Or,
    Xor,
    Eq,
    Ne,
    LtU,
    LeU,
    GtU,
    GeU,
    LtS,
    LeS,
    GtS,
    GeS,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FEq,
    FNe,
    FLt,
    FLe,
    FGt,
    FGe,
    UMin,
    UMax,
    SMin,
    SMax,
    FMin,
    FMax,
    Not,
    INeg,
    IAbs,
    FNeg,
    FAbs,
    IToF,
    UToF,
    FToI,
    FToU,
    FSqrt,
    FFloor,
    FCeil,
    FTrunc,
    FRound,
    CountBits,
    ReverseBits,
    FirstBitLow,
    FirstBitHighU,
    FirstBitHighS,
    F32ToF16,
    F16ToF32,
}

/// The lane loop of `op` with a constant second operand, where there is
/// one (the 32-bit operations on whole lanes, and 32-bit integer division
/// and remainder).
pub(crate) fn binary_imm(op: BinaryOp, ty: ScalarType) -> Option<BinaryImmFn> {
    match (op, ty) {
        (BinaryOp::Div, ScalarType::UInt32) => Some(udiv32_imm),
        (BinaryOp::Rem, ScalarType::UInt32) => Some(urem32_imm),
        (BinaryOp::Div, ScalarType::Int32) => Some(sdiv32_imm),
        (BinaryOp::Rem, ScalarType::Int32) => Some(srem32_imm),
        _ => whole_lane(op, ty).map(|(_, imm)| imm),
    }
}

/// The multiplier and shift that divide every 32-bit number by `d` (2 or
/// more) in [`quotient`]: Granlund and Montgomery's method with a 33-bit
/// multiplier (Hacker's Delight, 10-8). With `l = ⌈log2 d⌉`, the
/// multiplier is `2^32 + m` where `m = ⌊2^32 · (2^l − d) / d⌋ + 1`, which
/// is below 2^32 (as `2^l − d < d`).
fn magic(d: u64) -> (u64, u32) {
    debug_assert!((2..=LOW32).contains(&d));
    let l = 64 - (d - 1).leading_zeros();
    ((((1u64 << 32) * ((1u64 << l) - d)) / d + 1) & LOW32, l - 1)
}

/// `n / d` for a 32-bit `n`, from `d`'s [`magic`]: `t = (m · n) >> 32` is
/// the high half of the product with the multiplier's low 32 bits, and
/// `(t + ((n − t) >> 1)) >> (l − 1)` adds the 2^32 part without leaving
/// 64 bits. Both factors are below 2^32, so the product is one 32 × 32 →
/// 64-bit multiply per lane, which AVX2 does four lanes at a time.
#[inline(always)]
fn quotient(n: u64, m: u64, shift: u32) -> u64 {
    let t = (m * n) >> 32;
    (t + ((n - t) >> 1)) >> shift
}

/// Unsigned 32-bit `x / d` for a constant `d`: a multiply and shifts per
/// lane instead of a division, a shift for a power of two (`d = 0` gives
/// all ones, as `Arith::div` does).
fn udiv32_imm(dst: &mut [u64], a: Option<&[u64]>, d: u64, keep: Option<&[u64]>) {
    match d & LOW32 {
        0 => map2_raw_imm(dst, a, d, keep, |_, _| LOW32),
        1 => map2_raw_imm(dst, a, d, keep, |x, _| x & LOW32),
        d if d.is_power_of_two() => {
            let shift = d.trailing_zeros();
            map2_raw_imm(dst, a, d, keep, move |x, _| (x & LOW32) >> shift);
        }
        d => {
            let (m, shift) = magic(d);
            map2_raw_imm(dst, a, d, keep, move |x, _| quotient(x & LOW32, m, shift));
        }
    }
}

/// Unsigned 32-bit `x % d` for a constant `d`, as `x − (x / d) · d` from
/// [`quotient`] (`d = 0` gives all ones, as `Arith::rem`
/// does).
fn urem32_imm(dst: &mut [u64], a: Option<&[u64]>, d: u64, keep: Option<&[u64]>) {
    match d & LOW32 {
        0 => map2_raw_imm(dst, a, d, keep, |_, _| LOW32),
        1 => map2_raw_imm(dst, a, d, keep, |_, _| 0),
        d if d.is_power_of_two() => map2_raw_imm(dst, a, d, keep, move |x, _| x & (d - 1)),
        d => {
            let (m, shift) = magic(d);
            map2_raw_imm(dst, a, d, keep, move |x, _| {
                // The quotient is below 2^32 (masking says so to the
                // vectoriser: one 32 × 32-bit multiply).
                let n = x & LOW32;
                n - (quotient(n, m, shift) & LOW32) * d
            });
        }
    }
}

/// Signed 32-bit `x / d` for a constant `d`: the unsigned quotient of the
/// magnitudes, negated where the signs differ (`d = 0` gives all ones, and
/// `i32::MIN / -1` wraps to `i32::MIN`, as `Arith::div` does).
fn sdiv32_imm(dst: &mut [u64], a: Option<&[u64]>, d: u64, keep: Option<&[u64]>) {
    signed_imm::<false>(dst, a, d, keep);
}

/// Signed 32-bit `x % d` for a constant `d`: the unsigned remainder of the
/// magnitudes with the sign of `x` (`d = 0` gives all ones, as `Arith::rem`
/// does).
fn srem32_imm(dst: &mut [u64], a: Option<&[u64]>, d: u64, keep: Option<&[u64]>) {
    signed_imm::<true>(dst, a, d, keep);
}

/// [`sdiv32_imm`], or [`srem32_imm`] when `REM`: the magnitude of each lane
/// divided by `|d|` as [`udiv32_imm`] divides, all without a branch per
/// lane.
#[inline(always)]
fn signed_imm<const REM: bool>(dst: &mut [u64], a: Option<&[u64]>, d: u64, keep: Option<&[u64]>) {
    #[inline(always)]
    fn lanes<const REM: bool>(
        dst: &mut [u64],
        a: Option<&[u64]>,
        d: u64,
        keep: Option<&[u64]>,
        magnitude: u64,
        quotient: impl Fn(u64) -> u64 + Copy,
    ) {
        // All ones where `d` is negative.
        let d_sign = 0u64.wrapping_sub((d >> 31) & 1);
        map2_raw_imm(dst, a, d, keep, move |x, _| {
            // `x`'s sign as all ones or zero, and its magnitude (2^31 for
            // `i32::MIN`) as the negation `(x ^ s) − s` where negative.
            let s = 0u64.wrapping_sub((x >> 31) & 1);
            let n = (x ^ s).wrapping_sub(s) & LOW32;
            let q = quotient(n) & LOW32;
            if REM {
                let r = n - q * magnitude;
                (r ^ s).wrapping_sub(s) & LOW32
            } else {
                let t = s ^ d_sign;
                (q ^ t).wrapping_sub(t) & LOW32
            }
        });
    }
    let d = d & LOW32;
    let magnitude = u64::from((d as u32 as i32).unsigned_abs());
    match magnitude {
        0 => map2_raw_imm(dst, a, d, keep, |_, _| LOW32),
        1 => lanes::<REM>(dst, a, d, keep, magnitude, |n| n),
        m if m.is_power_of_two() => {
            let shift = m.trailing_zeros();
            lanes::<REM>(dst, a, d, keep, magnitude, move |n| n >> shift);
        }
        m => {
            let (mul, shift) = magic(m);
            lanes::<REM>(dst, a, d, keep, magnitude, move |n| quotient(n, mul, shift));
        }
    }
}

/// The value of every lane of `b` (as 32-bit numbers), when they are all
/// equal: a divisor the whole batch shares, such as `WaveGetLaneCount()`
/// or a constant-buffer value.
#[inline(always)]
fn uniform32(b: &[u64]) -> Option<u64> {
    let first = *b.first()?;
    // A fold with no early exit, which the compiler vectorises.
    (b.iter().fold(0, |acc, &y| acc | (y ^ first)) & LOW32 == 0).then_some(first & LOW32)
}

/// Unsigned 32-bit `x / y`: [`udiv32_imm`]'s multiply when every lane
/// divides by the same number, else a division per lane.
fn udiv32(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>) {
    match uniform32(b) {
        Some(d) => udiv32_imm(dst, Some(a), d, keep),
        None => div::<u32>(dst, a, b, keep),
    }
}

/// Unsigned 32-bit `x % y`, as [`udiv32`] does it.
fn urem32(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>) {
    match uniform32(b) {
        Some(d) => urem32_imm(dst, Some(a), d, keep),
        None => rem::<u32>(dst, a, b, keep),
    }
}

/// Signed 32-bit `x / y`, as [`udiv32`] does it.
fn sdiv32(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>) {
    match uniform32(b) {
        Some(d) => sdiv32_imm(dst, Some(a), d, keep),
        None => div::<i32>(dst, a, b, keep),
    }
}

/// Signed 32-bit `x % y`, as [`udiv32`] does it.
fn srem32(dst: &mut [u64], a: &[u64], b: &[u64], keep: Option<&[u64]>) {
    match uniform32(b) {
        Some(d) => srem32_imm(dst, Some(a), d, keep),
        None => rem::<i32>(dst, a, b, keep),
    }
}

pub(crate) fn unary(op: UnaryOp, ty: ScalarType) -> Option<UnaryFn> {
    Some(match op {
        UnaryOp::Neg => with_arith!(ty, T => neg::<T>, return None),
        UnaryOp::Not => logical_not,
        UnaryOp::BitNot => with_int!(ty, T => bit_not::<T>, return None),
    })
}

pub(crate) fn binary(op: BinaryOp, ty: ScalarType) -> Option<BinaryFn> {
    use BinaryOp as B;
    if let Some((f, _)) = whole_lane(op, ty) {
        return Some(f);
    }
    match (op, ty) {
        (B::Div, ScalarType::UInt32) => return Some(udiv32),
        (B::Rem, ScalarType::UInt32) => return Some(urem32),
        (B::Div, ScalarType::Int32) => return Some(sdiv32),
        (B::Rem, ScalarType::Int32) => return Some(srem32),
        _ => {}
    }
    Some(match op {
        B::Add => with_arith!(ty, T => add::<T>, return None),
        B::Sub => with_arith!(ty, T => sub::<T>, return None),
        B::Mul => with_arith!(ty, T => mul::<T>, return None),
        B::Div => with_arith!(ty, T => div::<T>, return None),
        B::Rem => with_arith!(ty, T => rem::<T>, return None),
        B::Shl => with_int!(ty, T => shl::<T>, return None),
        B::Shr => with_int!(ty, T => shr::<T>, return None),
        B::BitAnd => with_int!(ty, T => bit_and::<T>, return None),
        B::BitOr => with_int!(ty, T => bit_or::<T>, return None),
        B::BitXor => with_int!(ty, T => bit_xor::<T>, return None),
        B::And => logical_and,
        B::Or => logical_or,
        B::Eq => with_scalar!(ty, T => eq::<T>),
        B::Ne => with_scalar!(ty, T => ne::<T>),
        B::Lt => with_scalar!(ty, T => lt::<T>),
        B::Le => with_scalar!(ty, T => le::<T>),
        B::Gt => with_scalar!(ty, T => gt::<T>),
        B::Ge => with_scalar!(ty, T => ge::<T>),
    })
}


/// The lane loop of a component-wise builtin whose (first) argument has
/// scalar type `ty`; `None` for builtins the compiler expands itself or for
/// types the builtin does not take.
pub(crate) fn builtin(b: Builtin, ty: ScalarType) -> Option<BuiltinFn> {
    use Builtin as F;
    use BuiltinFn::{Binary as B2, Ternary as B3, Unary as B1};
    macro_rules! float1 {
        ($f:ident) => {
            B1(with_float!(ty, T => $f::<T>, return None))
        };
    }
    Some(match b {
        F::Abs => B1(with_arith!(ty, T => abs::<T>, return None)),
        F::Min => B2(with_arith!(ty, T => min::<T>, return None)),
        F::Max => B2(with_arith!(ty, T => max::<T>, return None)),
        F::Clamp => B3(with_arith!(ty, T => clamp::<T>, return None)),
        F::Mad => B3(with_arith!(ty, T => mad::<T>, return None)),
        F::Sign => B1(with_arith!(ty, T => sign::<T>, return None)),
        F::CountBits => B1(with_int!(ty, T => countbits::<T>, return None)),
        F::FirstBitHigh => B1(with_int!(ty, T => firstbithigh::<T>, return None)),
        F::FirstBitLow => B1(with_int!(ty, T => firstbitlow::<T>, return None)),
        F::ReverseBits => B1(with_int!(ty, T => reversebits::<T>, return None)),
        F::Floor => float1!(floor),
        F::Ceil => float1!(ceil),
        F::Round => float1!(round),
        F::Trunc => float1!(trunc),
        F::Frac => float1!(frac),
        F::Sqrt => float1!(sqrt),
        F::Rsqrt => float1!(rsqrt),
        F::Rcp => float1!(rcp),
        F::Exp => float1!(exp),
        F::Exp2 => float1!(exp2),
        F::Log => float1!(log),
        F::Log2 => float1!(log2),
        F::Log10 => float1!(log10),
        F::Sin => float1!(sin),
        F::Cos => float1!(cos),
        F::Tan => float1!(tan),
        F::Asin => float1!(asin),
        F::Acos => float1!(acos),
        F::Atan => float1!(atan),
        F::Sinh => float1!(sinh),
        F::Cosh => float1!(cosh),
        F::Tanh => float1!(tanh),
        F::Saturate => float1!(saturate),
        F::IsNan => float1!(isnan),
        F::IsInf => float1!(isinf),
        F::IsFinite => float1!(isfinite),
        F::Fmod => B2(with_float!(ty, T => fmod::<T>, return None)),
        F::Pow => B2(with_float!(ty, T => pow::<T>, return None)),
        F::Atan2 => B2(with_float!(ty, T => atan2::<T>, return None)),
        F::Step => B2(with_float!(ty, T => step::<T>, return None)),
        F::Lerp => B3(with_float!(ty, T => lerp::<T>, return None)),
        F::SmoothStep => B3(with_float!(ty, T => smoothstep::<T>, return None)),
        F::Fma => B3(with_float!(ty, T => fma::<T>, return None)),
        F::F32ToF16 => B1(f32tof16),
        F::F16ToF32 => B1(f16tof32),
        F::AsDouble => B2(as_double),
        F::Dot
        | F::Cross
        | F::Length
        | F::Distance
        | F::Normalize
        | F::All
        | F::Any
        | F::Mul
        | F::Transpose => return None,
    })
}

/// A conversion between scalar types (HLSL rules, see
/// [`convert_bits`]), as a lane loop specialised for the type pair.
pub(crate) fn convert(from: ScalarType, to: ScalarType) -> UnaryFn {
    match (from, to) {
        (ScalarType::Float32, ScalarType::Int32) => f32_to_i32,
        (ScalarType::Float32, ScalarType::UInt32) => f32_to_u32,
        _ => convert_pair(from, to),
    }
}

// `float` to `int` and `uint`, the shaders' usual float-to-integer
// conversions: `convert_bits`' truncation that saturates and turns NaN
// into 0, as a plain truncation of the number clamped into range and a
// select of the maximum above it, which vectorises (the saturating `as` is
// a conversion and two compares per lane).

fn f32_to_i32(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
    map1(dst, a, keep, |x: f32| -> i32 {
        // 2^31 − 128 is the largest `f32` below 2^31.
        let c = if x.is_nan() { 0.0 } else { x.clamp(-2_147_483_648.0, 2_147_483_520.0) };
        // SAFETY: `c` is a number in `i32`'s range.
        let t: i32 = unsafe { c.to_int_unchecked() };
        if x >= 2_147_483_648.0 { i32::MAX } else { t }
    })
}

fn f32_to_u32(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
    map1(dst, a, keep, |x: f32| -> u32 {
        // 2^32 − 256 is the largest `f32` below 2^32.
        let c = if x.is_nan() { 0.0 } else { x.clamp(0.0, 4_294_967_040.0) };
        // SAFETY: `c` is a number in `u32`'s range.
        let t: u32 = unsafe { c.to_int_unchecked() };
        if x >= 4_294_967_296.0 { u32::MAX } else { t }
    })
}

fn convert_pair(from: ScalarType, to: ScalarType) -> UnaryFn {
    // Each (from, to) pair gets its own function item, so the type decoding
    // in `convert_bits` folds away.
    fn conv<A: ConvTag, B: ConvTag>(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
        map1(dst, a, keep, |x: u64| convert_bits(x, A::TY, B::TY));
    }
    trait ConvTag {
        const TY: ScalarType;
    }
    macro_rules! tags {
        ($($name:ident = $ty:ident),*) => {$(
            struct $name;
            impl ConvTag for $name { const TY: ScalarType = ScalarType::$ty; }
        )*};
    }
    tags!(
        TBool = Bool,
        TI16 = Int16,
        TU16 = UInt16,
        TI32 = Int32,
        TU32 = UInt32,
        TI64 = Int64,
        TU64 = UInt64,
        TF16 = Float16,
        TF32 = Float32,
        TF64 = Float64
    );
    macro_rules! inner {
        ($A:ident) => {
            match to {
                ScalarType::Bool => conv::<$A, TBool>,
                ScalarType::Int16 => conv::<$A, TI16>,
                ScalarType::UInt16 => conv::<$A, TU16>,
                ScalarType::Int32 => conv::<$A, TI32>,
                ScalarType::UInt32 => conv::<$A, TU32>,
                ScalarType::Int64 => conv::<$A, TI64>,
                ScalarType::UInt64 => conv::<$A, TU64>,
                ScalarType::Float16 => conv::<$A, TF16>,
                ScalarType::Float32 => conv::<$A, TF32>,
                ScalarType::Float64 => conv::<$A, TF64>,
            }
        };
    }
    match from {
        ScalarType::Bool => inner!(TBool),
        ScalarType::Int16 => inner!(TI16),
        ScalarType::UInt16 => inner!(TU16),
        ScalarType::Int32 => inner!(TI32),
        ScalarType::UInt32 => inner!(TU32),
        ScalarType::Int64 => inner!(TI64),
        ScalarType::UInt64 => inner!(TU64),
        ScalarType::Float16 => inner!(TF16),
        ScalarType::Float32 => inner!(TF32),
        ScalarType::Float64 => inner!(TF64),
    }
}

/// Reinterprets bits between types of one width: the register already holds
/// the bit pattern, so only the width's mask matters.
pub(crate) fn bitcast(to: ScalarType) -> UnaryFn {
    fn keep32(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
        map1(dst, a, keep, |x: u32| x);
    }
    fn keep16(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
        map1(dst, a, keep, |x: u16| x);
    }
    fn keep64(dst: &mut [u64], a: &[u64], keep: Option<&[u64]>) {
        map1(dst, a, keep, |x: u64| x);
    }
    match to.size() {
        2 => keep16,
        8 => keep64,
        _ => keep32,
    }
}

#[cfg(test)]
mod whole_lane_tests {
    //! The 32-bit operations on whole lanes against the generic loops
    //! (which decode each operand to `u32` or `i32` and use
    //! `lockstep-wave`'s operations), in this instruction set's copy.

    use super::*;
    use BinaryOp as B;

    fn generic(op: BinaryOp, ty: ScalarType) -> BinaryFn {
        // `int`, `uint` and (where the operator has it) `float`.
        macro_rules! pick {
            ($f:ident) => {
                match ty {
                    ScalarType::Int32 => $f::<i32>,
                    ScalarType::Float32 => $f::<f32>,
                    _ => $f::<u32>,
                }
            };
            (int $f:ident) => {
                match ty {
                    ScalarType::Int32 => $f::<i32>,
                    _ => $f::<u32>,
                }
            };
        }
        match op {
            B::Add => pick!(add),
            B::Sub => pick!(sub),
            B::Mul => pick!(mul),
            B::Div => pick!(div),
            B::Rem => pick!(int rem),
            B::Shl => pick!(int shl),
            B::Shr => pick!(int shr),
            B::BitAnd => pick!(int bit_and),
            B::BitOr => pick!(int bit_or),
            B::BitXor => pick!(int bit_xor),
            B::Eq => pick!(eq),
            B::Ne => pick!(ne),
            B::Lt => pick!(lt),
            B::Le => pick!(le),
            B::Gt => pick!(gt),
            B::Ge => pick!(ge),
            _ => unreachable!("{op:?} has no whole-lane loop"),
        }
    }

    /// `imm` with the constant `c` against `generic` with `c` in every
    /// lane: from `a`, and in place (the destination holding `a` where the
    /// write goes, `old` elsewhere).
    fn check_imm(
        generic: BinaryFn,
        imm: BinaryImmFn,
        a: &[u64],
        c: u64,
        keep: Option<&[u64]>,
        old: &[u64],
        what: &str,
    ) {
        let splat = vec![c; a.len()];
        let mut want = old.to_vec();
        generic(&mut want, a, &splat, keep);
        let mut got = old.to_vec();
        imm(&mut got, Some(a), c, keep);
        assert_eq!(got, want, "{what} (masked {})", keep.is_some());
        let mut got: Vec<u64> = match keep {
            None => a.to_vec(),
            Some(k) => (0..a.len()).map(|l| if k[l] != 0 { a[l] } else { old[l] }).collect(),
        };
        imm(&mut got, None, c, keep);
        assert_eq!(got, want, "{what} in place (masked {})", keep.is_some());
    }

    #[test]
    fn whole_lane_32_bit_ops_match_the_generic_loops() {
        // Integer edges, and `float` ones: ±1, infinities, a signalling
        // NaN, the smallest subnormal (0x7FFF_FFFF and 0xFFFF_FFFF are
        // NaNs, 0x8000_0000 is -0).
        let edges = [
            0,
            1,
            2,
            5,
            13,
            27,
            31,
            32,
            33,
            0x7FFF_FFFF,
            0x8000_0000,
            0xFFFF_FFFF,
            0x3F80_0000,
            0xBF80_0000,
            0x7F80_0000,
            0xFF80_0000,
            0x7F80_0001,
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut lanes = |canonical: bool| -> Vec<u64> {
            (0..256)
                .map(|l| {
                    let v = if l % 4 == 0 {
                        edges[(next() % edges.len() as u64) as usize]
                    } else {
                        next()
                    };
                    if canonical { v & LOW32 } else { v }
                })
                .collect()
        };
        let keep: Vec<u64> = (0..256u64).map(|l| if l % 3 == 1 { u64::MAX } else { 0 }).collect();
        let mut found = 0;
        for (op, ty) in super::super::op32_forms() {
            let Some((fast, imm)) = whole_lane(op, ty) else { continue };
            found += 1;
            // Canonical lanes, as registers hold them; other bits above
            // bit 31 are ignored as the generic loops ignore them.
            for canonical in [true, false] {
                let (a, b) = (lanes(canonical), lanes(canonical));
                for k in [None, Some(&keep[..])] {
                    let old: Vec<u64> = (0..256).map(|l| 0xA5A5_0000 + l).collect();
                    let (mut want, mut got) = (old.clone(), old.clone());
                    generic(op, ty)(&mut want, &a, &b, k);
                    fast(&mut got, &a, &b, k);
                    for l in 0..256 {
                        assert_eq!(
                            got[l], want[l],
                            "{op:?} on {ty:?}, lane {l}: {:#x}, {:#x} (canonical {canonical}, masked {})",
                            a[l], b[l], k.is_some()
                        );
                    }
                    // The constant forms, from another register and in
                    // place, with a few of the constants.
                    for &c in &b[..8] {
                        let what = format!("{op:?} on {ty:?} with {c:#x}");
                        check_imm(generic(op, ty), imm, &a, c, k, &old, &what);
                    }
                }
            }
        }
        // Every operator on both integer types, and on `float`.
        assert_eq!(found, 16 * 2 + 10);
    }

    /// `float` to `int` and `uint` against `convert_bits` (Rust's `as`),
    /// masked and not: at the edges of both ranges and next to them, the
    /// specials, and a sweep of bit patterns.
    #[test]
    fn float_to_32_bit_integers_match_convert_bits() {
        let edges: [f32; 19] = [
            0.0,
            -0.0,
            0.5,
            -0.99,
            1.0,
            -1.0,
            2_147_483_520.0,
            2_147_483_648.0,
            -2_147_483_648.0,
            -2_147_483_904.0,
            4_294_967_040.0,
            4_294_967_296.0,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::from_bits(0xFF80_0001),
            f32::from_bits(1),
        ];
        let mut lanes: Vec<u64> = edges
            .iter()
            .flat_map(|x| {
                let b = x.to_bits();
                [b, b.wrapping_add(1), b.wrapping_sub(1)]
            })
            .chain((0..=u32::MAX).step_by(1 << 20).map(|b| b | 0x155))
            .map(u64::from)
            .collect();
        lanes.resize(lanes.len().next_multiple_of(64), 0);
        let keep: Vec<u64> = (0..lanes.len()).map(|l| if l % 3 == 1 { u64::MAX } else { 0 }).collect();
        let old: Vec<u64> = (0..lanes.len() as u64).map(|l| 0xA5A5_0000 + l).collect();
        for to in [ScalarType::Int32, ScalarType::UInt32] {
            let f = convert(ScalarType::Float32, to);
            for k in [None, Some(&keep[..])] {
                let mut got = old.clone();
                f(&mut got, &lanes, k);
                for (l, (&g, &x)) in got.iter().zip(&lanes).enumerate() {
                    let active = k.is_none_or(|k| k[l] != 0);
                    let want = if active { convert_bits(x, ScalarType::Float32, to) } else { old[l] };
                    assert_eq!(g, want, "{:e} ({x:#x}) to {to:?}, lane {l}", f32::from_bits(x as u32));
                }
            }
        }
    }

    /// Unsigned division and remainder by a constant (a multiply and
    /// shifts) against the generic loops (a division per lane), for
    /// divisors from 0 up to 2^32 − 1 and numerators around their
    /// multiples and at the extremes, from another register and in place,
    /// on every lane and on some.
    #[test]
    fn division_by_a_constant_matches_the_generic_loops() {
        let mut divisors = vec![
            0,
            1,
            2,
            3,
            5,
            7,
            10,
            16,
            641,
            1 << 16,
            (1 << 16) + 1,
            6_700_417,
            0x7FFF_FFFF,
            0x8000_0000,
            0x8000_0001,
            0xAAAA_AAAB,
            0xFFFF_FFFE,
            0xFFFF_FFFF,
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        divisors.extend((0..24).map(|_| next() >> (next() % 64)));
        let keep: Vec<u64> = (0..256u64).map(|l| if l % 3 == 1 { u64::MAX } else { 0 }).collect();
        for d in divisors {
            let d32 = d & LOW32;
            // Multiples of the divisor and their neighbours, the extremes,
            // and random numbers, some with bits above bit 31 (ignored).
            let a: Vec<u64> = (0..256u64)
                .map(|l| match l % 4 {
                    0 => (d32.wrapping_mul(next() % 64) & LOW32).wrapping_add(l / 4 % 3).wrapping_sub(1) & LOW32,
                    1 => [0, 1, LOW32, LOW32 - 1, d32, d32.wrapping_sub(1) & LOW32, 0x8000_0000, 0x7FFF_FFFF]
                        [(l / 4 % 8) as usize],
                    2 => next() & LOW32,
                    _ => next(),
                })
                .collect();
            let old: Vec<u64> = (0..256).map(|l| 0xA5A5_0000 + l).collect();
            let cases: [(B, ScalarType, BinaryImmFn, BinaryFn); 4] = [
                (B::Div, ScalarType::UInt32, udiv32_imm, div::<u32>),
                (B::Rem, ScalarType::UInt32, urem32_imm, rem::<u32>),
                (B::Div, ScalarType::Int32, sdiv32_imm, div::<i32>),
                (B::Rem, ScalarType::Int32, srem32_imm, rem::<i32>),
            ];
            for (op, ty, imm, generic) in cases {
                assert_eq!(binary_imm(op, ty).map(|f| f as usize), Some(imm as usize));
                for k in [None, Some(&keep[..])] {
                    check_imm(generic, imm, &a, d, k, &old, &format!("{op:?} on {ty:?} by {d:#x}"));
                }
                // The same division by a register: every lane's divisor
                // the same (with bits above bit 31 in some lanes, which do
                // not count), or one lane's different.
                let register = binary(op, ty).expect("32-bit division");
                let mut b: Vec<u64> = (0..256u64).map(|l| d32 | (l % 5) << 40).collect();
                for differs in [false, true] {
                    if differs {
                        b[77] = d32 ^ 1;
                    }
                    for k in [None, Some(&keep[..])] {
                        let (mut want, mut got) = (old.clone(), old.clone());
                        generic(&mut want, &a, &b, k);
                        register(&mut got, &a, &b, k);
                        let what = format!("{op:?} on {ty:?} by {d:#x} in a register ({differs})");
                        assert_eq!(got, want, "{what} (masked {})", k.is_some());
                    }
                }
            }
        }
    }
}
