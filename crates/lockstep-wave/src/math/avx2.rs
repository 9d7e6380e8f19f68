//! The functions of [`math`](super) over `N` vectors of eight lanes in AVX2, for machine code
//! that calls them over a pass's lanes. Each is the scalar function's sequence of operations,
//! in the same order and each rounded alike, so that every lane gets the scalar bits; each step
//! runs on all `N` vectors before the next, so that their dependency chains interleave and the
//! core overlaps them (one vector alone waits on its latency).
//!
//! `sin` and `cos` take their branch-free path (`reduce_near`, then `from_quadrant32`) and hand
//! large, infinite and NaN lanes to the scalar function.
//!
//! # Safety
//! Every function here requires a CPU with AVX2 and FMA.

// The one place in this crate with `unsafe`: the AVX2 functions and their loads and stores.
#![allow(unsafe_code)]

use core::arch::x86_64::*;

/// `N` vectors of eight lanes.
pub type Chunks<const N: usize> = [[f32; 8]; N];

/// Declares operations applied to each of `N` vectors.
macro_rules! each_vector {
    ($($name:ident($($a:ident: $t:ty),*) -> $r:ty = $f:expr;)*) => {$(
        #[inline(always)]
        fn $name<const N: usize>($($a: [$t; N]),*) -> [$r; N] {
            // SAFETY: called only from the `avx2` functions below.
            core::array::from_fn(|i| unsafe { $f($($a[i]),*) })
        }
    )*};
}

each_vector! {
    add(a: __m256, b: __m256) -> __m256 = _mm256_add_ps;
    sub(a: __m256, b: __m256) -> __m256 = _mm256_sub_ps;
    mul(a: __m256, b: __m256) -> __m256 = _mm256_mul_ps;
    // `a * b + c`, `c - a * b` and `a * b - c`, each rounded once.
    fma(a: __m256, b: __m256, c: __m256) -> __m256 = _mm256_fmadd_ps;
    fnma(a: __m256, b: __m256, c: __m256) -> __m256 = _mm256_fnmadd_ps;
    fms(a: __m256, b: __m256, c: __m256) -> __m256 = _mm256_fmsub_ps;
    div(a: __m256, b: __m256) -> __m256 = _mm256_div_ps;
    and(a: __m256, b: __m256) -> __m256 = _mm256_and_ps;
    or(a: __m256, b: __m256) -> __m256 = _mm256_or_ps;
    xor(a: __m256, b: __m256) -> __m256 = _mm256_xor_ps;
    // `max` and `min` return the second operand where either is NaN: NaN lanes are replaced
    // at the end.
    max(a: __m256, b: __m256) -> __m256 = _mm256_max_ps;
    min(a: __m256, b: __m256) -> __m256 = _mm256_min_ps;
    // `m`'s lanes (their sign bits) take `b`, the others `a`.
    select(m: __m256, a: __m256, b: __m256) -> __m256 = |m, a, b| _mm256_blendv_ps(a, b, m);
    is_nan(a: __m256) -> __m256 = |a| _mm256_cmp_ps::<_CMP_UNORD_Q>(a, a);
    lt(a: __m256, b: __m256) -> __m256 = _mm256_cmp_ps::<_CMP_LT_OQ>;
    eq(a: __m256, b: __m256) -> __m256 = _mm256_cmp_ps::<_CMP_EQ_OQ>;
    iadd(a: __m256i, b: __m256i) -> __m256i = _mm256_add_epi32;
    isub(a: __m256i, b: __m256i) -> __m256i = _mm256_sub_epi32;
    bits(a: __m256) -> __m256i = _mm256_castps_si256;
    float(a: __m256i) -> __m256 = _mm256_castsi256_ps;
    to_f32(a: __m256i) -> __m256 = _mm256_cvtepi32_ps;
}

/// `c` in every lane of `N` vectors.
#[inline(always)]
fn k<const N: usize>(c: f32) -> [__m256; N] {
    // SAFETY: called only from the `avx2` functions below.
    [unsafe { _mm256_set1_ps(c) }; N]
}

/// `c` in every lane of `N` vectors, as integers.
#[inline(always)]
fn ik<const N: usize>(c: i32) -> [__m256i; N] {
    // SAFETY: as `k`.
    [unsafe { _mm256_set1_epi32(c) }; N]
}

/// Loads `N` vectors.
#[inline(always)]
fn load<const N: usize>(x: &Chunks<N>) -> [__m256; N] {
    // SAFETY: each chunk holds eight floats; called only from the `avx2` functions below.
    core::array::from_fn(|i| unsafe { _mm256_loadu_ps(x[i].as_ptr()) })
}

/// Stores `N` vectors.
#[inline(always)]
fn store<const N: usize>(v: [__m256; N]) -> Chunks<N> {
    let mut out = [[0.0; 8]; N];
    for (o, v) in out.iter_mut().zip(v) {
        // SAFETY: as `load`.
        unsafe { _mm256_storeu_ps(o.as_mut_ptr(), v) };
    }
    out
}

/// [`super::horner32`] on vectors.
#[inline(always)]
fn horner<const N: usize, const P: usize>(x: [__m256; N], p: [f32; P]) -> [__m256; N] {
    let mut acc = k(p[P - 1]);
    for &c in p[..P - 1].iter().rev() {
        acc = fma(acc, x, k(c));
    }
    acc
}

/// [`super::round_int32`]: `x m` rounded to an integer, as floats and as integers.
#[inline(always)]
fn round_int32<const N: usize>(x: [__m256; N], m: f32) -> ([__m256; N], [__m256i; N]) {
    let shifted = fma(x, k(m), k(super::ROUND32));
    (
        sub(shifted, k(super::ROUND32)),
        isub(bits(shifted), ik(super::ROUND32.to_bits() as i32)),
    )
}

/// [`super::scale`]: `p * 2^k` in two factors.
#[inline(always)]
fn scale<const N: usize>(p: [__m256; N], k: [__m256i; N]) -> [__m256; N] {
    // SAFETY: as `k`.
    let half: [__m256i; N] = core::array::from_fn(|i| unsafe { _mm256_srai_epi32::<1>(k[i]) });
    let factor = |e: [__m256i; N]| -> [__m256; N] {
        let biased = iadd(e, ik(127));
        // SAFETY: as `k`.
        float(core::array::from_fn(|i| unsafe {
            _mm256_slli_epi32::<23>(biased[i])
        }))
    };
    mul(mul(p, factor(half)), factor(isub(k, half)))
}

/// `x` with its NaN lanes replaced by the NaN quieted, as the scalar functions end.
#[inline(always)]
fn keep_nan<const N: usize>(x: [__m256; N], v: [__m256; N]) -> [__m256; N] {
    let quiet = or(x, float(ik(0x0040_0000)));
    select(is_nan(x), v, quiet)
}

/// Whether every lane of `x` lies in `[lo, hi]` (none is NaN).
#[inline(always)]
fn all_within<const N: usize>(x: [__m256; N], lo: f32, hi: f32) -> bool {
    // SAFETY: as `k`.
    unsafe {
        let mut inside = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
        for x in x {
            let above = _mm256_cmp_ps::<_CMP_GE_OQ>(x, _mm256_set1_ps(lo));
            let below = _mm256_cmp_ps::<_CMP_LE_OQ>(x, _mm256_set1_ps(hi));
            inside = _mm256_and_ps(inside, _mm256_and_ps(above, below));
        }
        _mm256_movemask_ps(inside) == 0xFF
    }
}

/// [`scale`] where every `k` lies in `[-125, 126]`: `2^k` is one normal factor, and both
/// products are exact, so one gives the same bits.
#[inline(always)]
fn scale_normal<const N: usize>(p: [__m256; N], k: [__m256i; N]) -> [__m256; N] {
    let biased = iadd(k, ik(127));
    // SAFETY: as `k`.
    mul(
        p,
        float(core::array::from_fn(|i| unsafe {
            _mm256_slli_epi32::<23>(biased[i])
        })),
    )
}

/// `exp2` of each lane: where every lane's result is normal (`2^k` in [`scale_normal`]'s
/// range), without clamping, NaN lanes or the second factor.
#[inline(always)]
fn exp2_v<const N: usize>(x: [__m256; N]) -> [__m256; N] {
    if all_within(x, -125.0, 126.0) {
        let (kf, ki) = round_int32(x, 1.0);
        let r = sub(x, kf);
        return scale_normal(fma(r, horner(r, super::EXP2_POLY), k(1.0)), ki);
    }
    let t = min(max(x, k(-152.0)), k(130.0));
    let (kf, ki) = round_int32(t, 1.0);
    let r = sub(t, kf);
    let v = scale(fma(r, horner(r, super::EXP2_POLY), k(1.0)), ki);
    keep_nan(x, v)
}

/// `exp` of each lane, as [`exp2_v`].
#[inline(always)]
fn exp_v<const N: usize>(x: [__m256; N]) -> [__m256; N] {
    // `k` = `round(x log2(e))` lies in `[-125, 126]`.
    let plain = all_within(x, -86.0, 87.0);
    let t = if plain {
        x
    } else {
        min(max(x, k(-104.0)), k(90.0))
    };
    let (kf, ki) = round_int32(t, core::f32::consts::LOG2_E);
    let hi = fnma(kf, k(super::LN2_HI), t);
    let r = fnma(kf, k(super::LN2_LO), hi);
    let carry = fnma(kf, k(super::LN2_LO), sub(hi, r));
    let poly = fma(mul(r, r), horner(r, super::EXP_POLY), carry);
    let p = add(k(1.0), add(r, poly));
    if plain {
        scale_normal(p, ki)
    } else {
        keep_nan(x, scale(p, ki))
    }
}

/// [`super::log_parts`]: `(k, f, f^2 / 2, r)`.
#[inline(always)]
#[allow(clippy::type_complexity)]
fn log_parts<const N: usize>(
    x: [__m256; N],
    plain: bool,
) -> ([__m256; N], [__m256; N], [__m256; N], [__m256; N]) {
    let (x, bias) = if plain {
        (x, ik(127))
    } else {
        let sub_normal = lt(x, k(f32::MIN_POSITIVE));
        let x = select(sub_normal, x, mul(x, k(33_554_432.0)));
        let bias = float(ik(127));
        (x, bits(select(sub_normal, bias, float(ik(127 + 25)))))
    };
    const SQRT_HALF: i32 = 0x3F35_04F3;
    let ix = iadd(bits(x), ik(0x3F80_0000 - SQRT_HALF));
    // SAFETY: as `k`.
    let exponent = core::array::from_fn(|i| unsafe { _mm256_srli_epi32::<23>(ix[i]) });
    let kf = to_f32(isub(exponent, bias));
    let mantissa = bits(and(float(ix), float(ik(0x007F_FFFF))));
    let f = sub(float(iadd(mantissa, ik(SQRT_HALF))), k(1.0));
    let s = div(f, add(k(2.0), f));
    let z = mul(s, s);
    let w = mul(z, z);
    let lg = super::LG;
    let r = fma(
        z,
        fma(w, k(lg[2]), k(lg[0])),
        mul(w, fma(w, k(lg[3]), k(lg[1]))),
    );
    let half_f2 = mul(mul(k(0.5), f), f);
    (kf, f, half_f2, mul(s, add(half_f2, r)))
}

/// [`super::log_hi_lo`].
#[inline(always)]
fn log_hi_lo<const N: usize>(
    f: [__m256; N],
    half_f2: [__m256; N],
    r: [__m256; N],
) -> ([__m256; N], [__m256; N]) {
    let hi = and(sub(f, half_f2), float(ik(0xFFFF_F000_u32 as i32)));
    (hi, add(sub(sub(f, hi), half_f2), r))
}

/// Whether every lane of `x` is positive, normal and finite, so that a logarithm needs neither
/// the subnormal scaling nor [`log_special`].
#[inline(always)]
fn log_plain<const N: usize>(x: [__m256; N]) -> bool {
    all_within(x, f32::MIN_POSITIVE, f32::MAX)
}

/// [`super::log_special`].
#[inline(always)]
fn log_special<const N: usize>(x: [__m256; N], v: [__m256; N]) -> [__m256; N] {
    let v = select(eq(x, k(f32::INFINITY)), v, x);
    let v = select(lt(x, k(0.0)), v, k(super::DEFAULT_NAN));
    let v = select(eq(x, k(0.0)), v, k(f32::NEG_INFINITY));
    keep_nan(x, v)
}

#[inline(always)]
fn log_v<const N: usize>(x: [__m256; N]) -> [__m256; N] {
    const HI: f32 = f32::from_bits(0x3F31_7180);
    const LO: f32 = f32::from_bits(0x3717_F7D1);
    let plain = log_plain(x);
    let (kf, f, half_f2, r) = log_parts(x, plain);
    let v = fma(kf, k(HI), add(sub(fma(kf, k(LO), r), half_f2), f));
    if plain { v } else { log_special(x, v) }
}

#[inline(always)]
fn log2_v<const N: usize>(x: [__m256; N]) -> [__m256; N] {
    const INV_HI: f32 = f32::from_bits(0x3FB8_B000);
    const INV_LO: f32 = f32::from_bits(0xB938_9AD4);
    let plain = log_plain(x);
    let (kf, f, half_f2, r) = log_parts(x, plain);
    let (hi, lo) = log_hi_lo(f, half_f2, r);
    let v = fma(lo, k(INV_HI), mul(add(lo, hi), k(INV_LO)));
    let v = add(fma(hi, k(INV_HI), v), kf);
    if plain { v } else { log_special(x, v) }
}

#[inline(always)]
fn log10_v<const N: usize>(x: [__m256; N]) -> [__m256; N] {
    const INV_HI: f32 = f32::from_bits(0x3EDE_6000);
    const INV_LO: f32 = f32::from_bits(0xB804_EAD9);
    const LOG10_2_HI: f32 = f32::from_bits(0x3E9A_2080);
    const LOG10_2_LO: f32 = f32::from_bits(0x3554_27DB);
    let plain = log_plain(x);
    let (kf, f, half_f2, r) = log_parts(x, plain);
    let (hi, lo) = log_hi_lo(f, half_f2, r);
    let v = fma(add(lo, hi), k(INV_LO), mul(kf, k(LOG10_2_LO)));
    let v = fma(hi, k(INV_HI), fma(lo, k(INV_HI), v));
    let v = fma(kf, k(LOG10_2_HI), v);
    if plain { v } else { log_special(x, v) }
}

/// `Arith::mul` of floats: the product, or where it is NaN, the first NaN operand quieted, else
/// the default NaN (spelled out: the compiler may swap a product's operands).
#[inline(always)]
fn mul_nan<const N: usize>(a: [__m256; N], b: [__m256; N]) -> [__m256; N] {
    let r = mul(a, b);
    if all_within(r, f32::NEG_INFINITY, f32::INFINITY) {
        return r;
    }
    let quiet = |x: [__m256; N]| or(x, float(ik(0x0040_0000)));
    let nan = select(is_nan(b), k(super::DEFAULT_NAN), quiet(b));
    let nan = select(is_nan(a), nan, quiet(a));
    select(is_nan(r), r, nan)
}

/// `sin` (or with `cos`, `cos`) of `x` on the branch-free path, and as bits per vector the
/// lanes that path does not take (see `trig_far`).
#[inline(always)]
fn trig_near<const N: usize>(x: [__m256; N], cos: bool) -> ([__m256; N], [u32; N]) {
    let sign = float(ik(i32::MIN));
    let abs = and(x, float(ik(0x7FFF_FFFF)));
    // SAFETY: as `k`.
    let far = core::array::from_fn(|i| unsafe {
        _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_NLT_UQ>(
            abs[i],
            _mm256_set1_ps(super::LARGE),
        )) as u32
    });
    // `super::reduce_near`.
    let shifted = fma(abs, k(core::f32::consts::FRAC_2_PI), k(super::ROUND32));
    let n = sub(shifted, k(super::ROUND32));
    let t = fnma(n, k(super::PIO2[0]), abs);
    let p = mul(n, k(super::PIO2[1]));
    let p_err = fms(n, k(super::PIO2[1]), p);
    let hi = sub(t, p);
    let lo = fnma(n, k(super::PIO2[2]), sub(sub(sub(t, hi), p), p_err));
    let n = bits(shifted);
    // `super::from_quadrant32`.
    let r2 = mul(hi, hi);
    let s = add(hi, fma(mul(hi, r2), horner(r2, super::SIN_POLY32), lo));
    let c = add(k(1.0), fms(r2, horner(r2, super::COS_POLY32), mul(hi, lo)));
    // The quadrant's two low bits pick `c` over `s` and flip the sign.
    let quadrant = iadd(n, ik(i32::from(cos)));
    // SAFETY: as `k`.
    let odd = float(core::array::from_fn(|i| unsafe {
        _mm256_slli_epi32::<31>(quadrant[i])
    }));
    // SAFETY: as `k`.
    let flip = float(core::array::from_fn(|i| unsafe {
        _mm256_slli_epi32::<30>(quadrant[i])
    }));
    let mut v = xor(select(odd, s, c), and(flip, sign));
    if !cos {
        v = xor(v, and(x, sign));
    }
    (v, far)
}

/// `sin` or `cos` of each lane, the far lanes from the scalar function.
#[inline(always)]
fn trig<const N: usize>(x: &Chunks<N>, cos: bool) -> Chunks<N> {
    let (v, far) = trig_near(load(x), cos);
    let mut out = store(v);
    for (i, &far) in far.iter().enumerate() {
        let mut far = far;
        while far != 0 {
            let l = far.trailing_zeros() as usize;
            out[i][l] = super::trig_slow(x[i][l], cos);
            far &= far - 1;
        }
    }
    out
}

/// Declares the public functions of `N` vectors.
macro_rules! functions {
    ($($(#[$doc:meta])* $name:ident($($a:ident),*) = $body:expr;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// The CPU has AVX2 and FMA.
        #[target_feature(enable = "avx2,fma")]
        #[inline]
        pub unsafe fn $name<const N: usize>($($a: &Chunks<N>),*) -> Chunks<N> {
            $body
        }
    )*};
}

functions! {
    /// [`super::sin`] of each lane.
    sin(x) = trig(x, false);
    /// [`super::cos`] of each lane.
    cos(x) = trig(x, true);
    /// [`super::exp`] of each lane.
    exp(x) = store(exp_v(load(x)));
    /// [`super::exp2`] of each lane.
    exp2(x) = store(exp2_v(load(x)));
    /// [`super::log`] of each lane.
    log(x) = store(log_v(load(x)));
    /// [`super::log2`] of each lane.
    log2(x) = store(log2_v(load(x)));
    /// [`super::log10`] of each lane.
    log10(x) = store(log10_v(load(x)));
    /// `ops::pow(x, y)`, `exp2(y * log2(x))`, of each lane.
    pow(x, y) = store(exp2_v(mul_nan(load(y), log2_v(load(x)))));
}
