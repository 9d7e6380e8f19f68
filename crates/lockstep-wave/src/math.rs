//! `sin`, `cos`, `exp`, `exp2`, `log`, `log2` and `log10` of `f32`, each a fixed sequence of
//! floating-point and integer operations without a branch or a call, so that a loop over lanes
//! vectorizes and every lane, at any vector width and on any CPU, gets the same bits. Each result
//! is the exact value rounded once, or one unit in the last place from it, for every input (the
//! tests measure the error against `f64` references; an ignored test visits all 2^32 floats);
//! NaN inputs give the input quieted, and invalid inputs the x86 default NaN.
//!
//! Every function computes in `f32` with fused multiply-adds (`f32::mul_add`, one rounding: the
//! FMA instruction where the CPU has one, an exact library routine where it has none), with the
//! constants and the last sums split in two parts where one rounding would cost precision (the
//! logarithms are FreeBSD msun's `logf`, `log2f` and `log10f`). `sin` and `cos` reduce their
//! argument by pi/2 in three `f32` parts below 2^19, keeping the reduced argument as two `f32`s,
//! and above, by integer arithmetic on a 192-bit table of 2/pi, as glibc's `sinf` does, with
//! polynomials in `f64`, so large arguments keep their precision too.
//!
//! On x86-64 the public functions run a copy compiled for the FMA instruction when the CPU has
//! it (the same operations, so the same bits).

#[cfg(target_arch = "x86_64")]
pub mod avx2;

/// The x86 default NaN: the result of an invalid operation.
const DEFAULT_NAN: f32 = f32::from_bits(0xFFC0_0000);

/// The input NaN, quieted.
fn quiet(x: f32) -> f32 {
    f32::from_bits(x.to_bits() | 0x0040_0000)
}

/// `1.5 * 2^23`: adding it rounds an `f32` below 2^22 in magnitude to an integer (ties to
/// even), which the low bits of the sum's significand then hold.
const ROUND32: f32 = 12_582_912.0;

/// `x * m` rounded to an integer (ties to even), as an `f32` and an `i32`, for `|x m| < 2^22`.
#[inline(always)]
fn round_int32(x: f32, m: f32) -> (f32, i32) {
    let shifted = fma(x, m, ROUND32);
    (
        shifted - ROUND32,
        (shifted.to_bits() as i32).wrapping_sub(ROUND32.to_bits() as i32),
    )
}

/// `p[0] + x * (p[1] + x * (p[2] + …))` in `f64`, each step rounded twice.
#[inline(always)]
fn horner<const N: usize>(x: f64, p: [f64; N]) -> f64 {
    let mut acc = p[N - 1];
    for &c in p[..N - 1].iter().rev() {
        acc = acc * x + c;
    }
    acc
}

/// `a * b + c`, rounded once.
#[inline(always)]
fn fma(a: f32, b: f32, c: f32) -> f32 {
    a.mul_add(b, c)
}

/// `p[0] + x * (p[1] + x * (p[2] + …))` in `f32`, each step one [`fma`].
#[inline(always)]
fn horner32<const N: usize>(x: f32, p: [f32; N]) -> f32 {
    let mut acc = p[N - 1];
    for &c in p[..N - 1].iter().rev() {
        acc = fma(acc, x, c);
    }
    acc
}

/// `p * 2^k` for `p` in `[1/2, 2]` and `|k| <= 160`, rounded once: `2^k` is two normal factors,
/// and the product with the first is exact.
#[inline(always)]
fn scale(p: f32, k: i32) -> f32 {
    let k1 = k >> 1;
    let factor = |k: i32| f32::from_bits((k.wrapping_add(127) as u32) << 23);
    p * factor(k1) * factor(k.wrapping_sub(k1))
}

/// `(2^r - 1) / r` for `|r| <= 1/2`: a fit at Chebyshev nodes, with `f32` coefficients (relative
/// error below 5 * 10^-9).
const EXP2_POLY: [f32; 7] = [
    core::f32::consts::LN_2,
    0.240_226_5,
    0.055_504_106,
    0.009_618_057,
    0.001_333_369_3,
    0.000_154_613_02,
    1.524_635_8e-5,
];

/// [`exp2`]'s body.
#[inline(always)]
fn exp2_f(x: f32) -> f32 {
    // Past these, the result is infinite or rounds to zero either way.
    let t = x.clamp(-152.0, 130.0);
    let (k, ki) = round_int32(t, 1.0);
    let r = t - k;
    let v = scale(fma(r, horner32(r, EXP2_POLY), 1.0), ki);
    if x.is_nan() { quiet(x) } else { v }
}

/// ln 2 in two parts: the first has 16 significant bits, so its product with an exponent below
/// 2^8 is exact.
const LN2_HI: f32 = f32::from_bits(0x3F31_7200);
const LN2_LO: f32 = f32::from_bits(0x35BF_BE8E);

/// `(e^r - 1 - r) / r^2` for `|r| <= ln(2)/2`, as [`EXP2_POLY`] (relative error below
/// 2 * 10^-8, scaled by `r^2` in the result).
const EXP_POLY: [f32; 6] = [
    0.5,
    0.166_666_67,
    0.041_666_467,
    0.008_333_373,
    0.001_393_358_8,
    0.000_198_495_2,
];

/// [`exp`]'s body.
#[inline(always)]
fn exp_f(x: f32) -> f32 {
    let t = x.clamp(-104.0, 90.0);
    let (k, ki) = round_int32(t, core::f32::consts::LOG2_E);
    // Exact: `k LN2_HI` is, and it is close to `t`.
    let hi = fma(-k, LN2_HI, t);
    let r = fma(-k, LN2_LO, hi);
    // `r`'s rounding error (`hi - r` is exact).
    let carry = fma(-k, LN2_LO, hi - r);
    let p = 1.0 + (r + fma(r * r, horner32(r, EXP_POLY), carry));
    let v = scale(p, ki);
    if x.is_nan() { quiet(x) } else { v }
}

/// The coefficients of `log(1 + f) = 2s + s (s^2 * (2/3 + …))` with `s = f / (2 + f)`, as in the
/// `logf` of FreeBSD's msun, in two interleaved halves.
const LG: [f32; 4] = [
    f32::from_bits(0x3F2A_AAAA),
    f32::from_bits(0x3ECC_CE13),
    f32::from_bits(0x3E91_E9EE),
    f32::from_bits(0x3E78_9E26),
];

/// The parts of a positive, finite `x = 2^k (1 + f)` with `sqrt(1/2) <= 1 + f < sqrt(2)`:
/// `(k, f, f^2 / 2, r)` where `log(1 + f) = f - f^2 / 2 + r`, `f` exact.
#[inline(always)]
fn log_parts(x: f32) -> (f32, f32, f32, f32) {
    // Subnormals are scaled to normals by 2^25.
    let sub = x < f32::MIN_POSITIVE;
    let x = if sub { x * 33_554_432.0 } else { x };
    let bias: i32 = if sub { 127 + 25 } else { 127 };
    // Adding 1 - sqrt(1/2) to the bits carries into the exponent where the significand is at
    // least sqrt(2).
    const SQRT_HALF: u32 = 0x3F35_04F3;
    let ix = x.to_bits().wrapping_add(0x3F80_0000 - SQRT_HALF);
    let k = ((ix >> 23) as i32).wrapping_sub(bias);
    let f = f32::from_bits((ix & 0x007F_FFFF).wrapping_add(SQRT_HALF)) - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let r = fma(z, fma(w, LG[2], LG[0]), w * fma(w, LG[3], LG[1]));
    let half_f2 = 0.5 * f * f;
    (k as f32, f, half_f2, s * (half_f2 + r))
}

/// `log(1 + f)` as `hi + lo`, `hi` with 12 significant bits, from [`log_parts`].
#[inline(always)]
fn log_hi_lo(f: f32, half_f2: f32, r: f32) -> (f32, f32) {
    let hi = f32::from_bits((f - half_f2).to_bits() & 0xFFFF_F000);
    (hi, (f - hi) - half_f2 + r)
}

/// `x`'s logarithm `v` where `x` is positive and finite; otherwise the logarithm's special value.
#[inline(always)]
fn log_special(x: f32, v: f32) -> f32 {
    if x.is_nan() {
        quiet(x)
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x < 0.0 {
        DEFAULT_NAN
    } else if x == f32::INFINITY {
        x
    } else {
        v
    }
}

/// [`log`]'s body.
#[inline(always)]
fn log_f(x: f32) -> f32 {
    const HI: f32 = f32::from_bits(0x3F31_7180);
    const LO: f32 = f32::from_bits(0x3717_F7D1);
    let (k, f, half_f2, r) = log_parts(x);
    // `k HI` is exact.
    log_special(x, fma(k, HI, fma(k, LO, r) - half_f2 + f))
}

/// [`log2`]'s body.
#[inline(always)]
fn log2_f(x: f32) -> f32 {
    const INV_HI: f32 = f32::from_bits(0x3FB8_B000);
    const INV_LO: f32 = f32::from_bits(0xB938_9AD4);
    let (k, f, half_f2, r) = log_parts(x);
    let (hi, lo) = log_hi_lo(f, half_f2, r);
    // `hi INV_HI` is exact.
    log_special(x, fma(hi, INV_HI, fma(lo, INV_HI, (lo + hi) * INV_LO)) + k)
}

/// [`log10`]'s body.
#[inline(always)]
fn log10_f(x: f32) -> f32 {
    const INV_HI: f32 = f32::from_bits(0x3EDE_6000);
    const INV_LO: f32 = f32::from_bits(0xB804_EAD9);
    const LOG10_2_HI: f32 = f32::from_bits(0x3E9A_2080);
    const LOG10_2_LO: f32 = f32::from_bits(0x3554_27DB);
    let (k, f, half_f2, r) = log_parts(x);
    let (hi, lo) = log_hi_lo(f, half_f2, r);
    // `hi INV_HI` and `k LOG10_2_HI` are exact.
    let v = fma(lo, INV_HI, fma(lo + hi, INV_LO, k * LOG10_2_LO));
    log_special(x, fma(k, LOG10_2_HI, fma(hi, INV_HI, v)))
}

/// pi/2 in three `f32` parts, each the `f32` nearest what the ones before leave (72 bits).
const PIO2: [f32; 3] = [
    f32::from_bits(0x3FC9_0FDB),
    f32::from_bits(0xB33B_BD2E),
    f32::from_bits(0xA6F7_2CED),
];

/// Arguments from here on are reduced with the table.
const LARGE: f32 = 524_288.0;

/// The bits of 2/pi: entry `i` holds bits `8(i - 3) .. 8(i - 3) + 32` after the binary point (the
/// first three entries, fewer).
const INV_PIO4: [u32; 24] = [
    0x0000_00a2,
    0x0000_a2f9,
    0x00a2_f983,
    0xa2f9_836e,
    0xf983_6e4e,
    0x836e_4e44,
    0x6e4e_4415,
    0x4e44_1529,
    0x4415_29fc,
    0x1529_fc27,
    0x29fc_2757,
    0xfc27_57d1,
    0x2757_d1f5,
    0x57d1_f534,
    0xd1f5_34dd,
    0xf534_ddc0,
    0x34dd_c0db,
    0xddc0_db62,
    0xc0db_6295,
    0xdb62_9599,
    0x6295_993c,
    0x9599_3c43,
    0x993c_4390,
    0x3c43_9041,
];

/// `|x|` reduced by pi/2 for `|x| >= 2`: `(r, n)` with `|x| = r + n pi/2 (mod 2 pi)` and
/// `|r| <= pi/4`. The product of the 24-bit significand with 96 bits of 2/pi, taken from where
/// the exponent points, is the exact fixed-point quotient with two integer bits and 62 fraction
/// bits (glibc's `reduce_large`).
#[inline(always)]
fn reduce_large(x: f32) -> (f64, u32) {
    let xi = x.to_bits() & 0x7FFF_FFFF;
    let at = ((xi >> 26) & 15) as usize;
    let shift = (xi >> 23) & 7;
    let m = ((xi & 0x00FF_FFFF) | 0x0080_0000) << shift;
    let res0 = u64::from(m.wrapping_mul(INV_PIO4[at]));
    let res1 = u64::from(m) * u64::from(INV_PIO4[at + 4]);
    let res2 = u64::from(m) * u64::from(INV_PIO4[at + 8]);
    let res = ((res2 >> 32) | (res0 << 32)).wrapping_add(res1);
    let n = res.wrapping_add(1 << 61) >> 62;
    let frac = res.wrapping_sub(n << 62) as i64;
    // pi/2 * 2^-62.
    let pi63 = core::f64::consts::PI / 9_223_372_036_854_775_808.0;
    (frac as f64 * pi63, n as u32)
}

/// `|x|` reduced by pi/2 for `|x| < LARGE`: `(hi, lo, n)` with `|x| = hi + lo + n pi/2 (mod 2
/// pi)`, `|hi + lo| <= pi/4` (about). `|x| - n PIO2[0]` is exact; the product with `PIO2[1]` is
/// carried as two `f32`s, its rounding error going into `lo` with the third part's product.
#[inline(always)]
fn reduce_near(x: f32) -> (f32, f32, u32) {
    let a = x.abs();
    let shifted = fma(a, core::f32::consts::FRAC_2_PI, ROUND32);
    let n = shifted - ROUND32;
    let t = fma(-n, PIO2[0], a);
    let p = n * PIO2[1];
    let p_err = fma(n, PIO2[1], -p);
    let hi = t - p;
    let lo = fma(-n, PIO2[2], ((t - hi) - p) - p_err);
    // The low bits of `shifted`'s significand are `n`'s.
    (hi, lo, shifted.to_bits())
}

/// `sin(r)` and `cos(r)` for `|r| <= pi/4`: Taylor series to degrees 9 and 10 (relative errors
/// below 2 * 10^-9 and 10^-9).
#[inline(always)]
fn sin_cos_poly(r: f64) -> (f64, f64) {
    let r2 = r * r;
    let s = r + r * r2 * horner(r2, SIN_POLY);
    let c = 1.0 + r2 * horner(r2, COS_POLY);
    (s, c)
}

/// `(sin(r) - r) / r^3` as a polynomial in `r^2`: Taylor's coefficients.
const SIN_POLY: [f64; 4] = [-1.0 / 6.0, 1.0 / 120.0, -1.0 / 5040.0, 1.0 / 362_880.0];

/// `(cos(r) - 1) / r^2` as a polynomial in `r^2`: Taylor's coefficients.
const COS_POLY: [f64; 5] = [
    -0.5,
    1.0 / 24.0,
    -1.0 / 720.0,
    1.0 / 40_320.0,
    -1.0 / 3_628_800.0,
];

/// `sin(x)` (or with `cos`, `cos(x)`) from `|x|` reduced to `(r, n)`.
#[inline(always)]
fn from_quadrant(x: f32, (r, n): (f64, u32), cos: bool) -> f32 {
    let (s, c) = sin_cos_poly(r);
    pick_quadrant(x, n, cos, s, c) as f32
}

/// `sin(x)` (or `cos(x)`) from `sin(r)` and `cos(r)`, where `|x| = r + n pi/2`.
#[inline(always)]
fn pick_quadrant<T: core::ops::Neg<Output = T>>(x: f32, n: u32, cos: bool, s: T, c: T) -> T {
    // cos(|x|) = sin(|x| + pi/2): one quadrant on.
    let n = n.wrapping_add(u32::from(cos));
    let v = if n & 1 == 0 { s } else { c };
    let v = if n & 2 == 0 { v } else { -v };
    // sin(x) = -sin(-x); cos is even.
    if x.is_sign_negative() && !cos { -v } else { v }
}

/// [`SIN_POLY`] in `f32` (each coefficient rounds to the `f32` nearest its exact value).
const SIN_POLY32: [f32; 4] = [
    SIN_POLY[0] as f32,
    SIN_POLY[1] as f32,
    SIN_POLY[2] as f32,
    SIN_POLY[3] as f32,
];

/// [`COS_POLY`] in `f32`, as [`SIN_POLY32`].
const COS_POLY32: [f32; 5] = [
    COS_POLY[0] as f32,
    COS_POLY[1] as f32,
    COS_POLY[2] as f32,
    COS_POLY[3] as f32,
    COS_POLY[4] as f32,
];

/// [`from_quadrant`] with the polynomials in `f32` on `r = hi + lo`: `lo` enters each sum where
/// it counts (`sin(r) = hi + lo + …`, `cos(r) = 1 - hi^2 / 2 - hi lo + …`), so the error stays
/// below one unit in the last place plus the final rounding.
#[inline(always)]
fn from_quadrant32(x: f32, (hi, lo, n): (f32, f32, u32), cos: bool) -> f32 {
    let r2 = hi * hi;
    let s = hi + fma(hi * r2, horner32(r2, SIN_POLY32), lo);
    let c = 1.0 + fma(r2, horner32(r2, COS_POLY32), -(hi * lo));
    pick_quadrant(x, n, cos, s, c)
}

/// Whether `x` is one that `sin` and `cos` do not take on their branch-free path: large,
/// infinite or NaN.
#[inline(always)]
fn trig_far(x: f32) -> bool {
    x.abs().partial_cmp(&LARGE) != Some(core::cmp::Ordering::Less)
}

/// `sin` or `cos` of any `x`.
#[inline(always)]
fn trig(x: f32, cos: bool) -> f32 {
    if x.is_nan() {
        quiet(x)
    } else if x.is_infinite() {
        DEFAULT_NAN
    } else if trig_far(x) {
        from_quadrant(x, reduce_large(x), cos)
    } else {
        from_quadrant32(x, reduce_near(x), cos)
    }
}

/// [`sin`]'s body.
#[inline(always)]
fn sin_f(x: f32) -> f32 {
    trig(x, false)
}

/// [`cos`]'s body.
#[inline(always)]
fn cos_f(x: f32) -> f32 {
    trig(x, true)
}

/// Declares the public functions: each runs its `_f` body, compiled for the FMA instruction on
/// x86-64 CPUs that have it.
macro_rules! public {
    ($($(#[$doc:meta])* $name:ident = $body:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(x: f32) -> f32 {
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("fma") {
                #[target_feature(enable = "fma")]
                fn with_fma(x: f32) -> f32 {
                    $body(x)
                }
                // SAFETY: the CPU has FMA.
                #[allow(unsafe_code)]
                return unsafe { with_fma(x) };
            }
            $body(x)
        }
    )*};
}

public! {
    /// HLSL `sin(x)`.
    sin = sin_f;
    /// HLSL `cos(x)`.
    cos = cos_f;
    /// HLSL `exp(x)`: `e^x = 2^k e^r` with `r = x - k ln 2` reduced in two parts, and its
    /// rounding error carried into the sum.
    exp = exp_f;
    /// HLSL `exp2(x)`: `2^x = 2^k 2^r` with `k` the integer nearest `x`.
    exp2 = exp2_f;
    /// HLSL `log(x)`: the natural logarithm, `k ln 2 + log(1 + f)` with ln 2 in two parts.
    log = log_f;
    /// HLSL `log2(x)`: `k + log(1 + f) / ln 2`, with `log(1 + f)` and `1 / ln 2` in two parts
    /// each.
    log2 = log2_f;
    /// HLSL `log10(x)`: `k log10(2) + log(1 + f) / ln 10`, each constant in two parts.
    log10 = log10_f;
}

/// [`trig`] out of line: the lanes that `avx2`'s `sin` and `cos` pass on are rare, and
/// inlined, the compiler would compute them for every lane.
#[inline(never)]
fn trig_slow(x: f32, cos: bool) -> f32 {
    trig(x, cos)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sweep's stride through the floats' bits (a prime, so every exponent and many
    /// significands are visited).
    const STEP: usize = 1021;

    /// The distance in units in the last place between two finite floats.
    fn ulps(a: f32, b: f32) -> u32 {
        let key = |x: f32| {
            let i = x.to_bits() as i32;
            if i < 0 { i32::MIN - i } else { i }
        };
        key(a).abs_diff(key(b))
    }

    /// Every 1021st float (about 4 million), against `f64` references rounded once.
    fn sweep(name: &str, f: fn(f32) -> f32, reference: fn(f64) -> f64, max_ulps: u32) {
        let mut worst = (0, 0.0f32);
        for bits in (0..=u32::MAX).step_by(STEP) {
            let x = f32::from_bits(bits);
            let want = reference(f64::from(x)) as f32;
            let got = f(x);
            if want.is_nan() {
                assert!(got.is_nan(), "{name}({x:e}) = {got:e}, expected NaN");
                continue;
            }
            let d = ulps(got, want);
            if d > worst.0 {
                worst = (d, x);
            }
        }
        assert!(
            worst.0 <= max_ulps,
            "{name}: {} ulps at {:e} ({:e}, expected {:e})",
            worst.0,
            worst.1,
            f(worst.1),
            reference(f64::from(worst.1)) as f32
        );
    }

    /// A function, its name and its `f64` reference.
    type Case = (&'static str, fn(f32) -> f32, fn(f64) -> f64);

    const FUNCTIONS: [Case; 7] = [
        ("exp2", exp2, f64::exp2),
        ("exp", exp, f64::exp),
        ("log", log, f64::ln),
        ("log2", log2, f64::log2),
        ("log10", log10, f64::log10),
        ("sin", sin, f64::sin),
        ("cos", cos, f64::cos),
    ];

    #[test]
    fn within_one_ulp_everywhere() {
        for (name, f, reference) in FUNCTIONS {
            sweep(name, f, reference, 1);
        }
    }

    /// Every float, on all cores: `cargo test --release -p lockstep-wave -- --ignored`.
    #[test]
    #[ignore = "visits all 2^32 floats for each function: minutes in release"]
    fn every_float_within_one_ulp() {
        let parts = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
        for (name, f, reference) in FUNCTIONS {
            let worst = std::thread::scope(|s| {
                let handles: Vec<_> = (0..parts)
                    .map(|part| {
                        s.spawn(move || {
                            let mut worst = 0;
                            let mut bits = part;
                            while bits <= u64::from(u32::MAX) {
                                let x = f32::from_bits(bits as u32);
                                let (want, got) = (reference(f64::from(x)) as f32, f(x));
                                if want.is_nan() {
                                    assert!(got.is_nan(), "{name}({x:e}) = {got:e}");
                                } else {
                                    worst = worst.max(ulps(got, want));
                                }
                                bits += parts;
                            }
                            worst
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).max()
            });
            assert!(worst <= Some(1), "{name}: {worst:?} ulps");
        }
    }

    /// Every `avx2` function of `N` vectors against its scalar function, lane by lane, over
    /// `xs` (and `ys` for `pow`) `8 N` lanes at a time.
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    fn vectors_agree<const N: usize>(xs: &[f32], ys: &[f32]) {
        type Vector<const N: usize> = unsafe fn(&avx2::Chunks<N>) -> avx2::Chunks<N>;
        type Case<const N: usize> = (&'static str, Vector<N>, fn(f32) -> f32);
        let unary: [Case<N>; 7] = [
            ("sin", avx2::sin, sin),
            ("cos", avx2::cos, cos),
            ("exp", avx2::exp, exp),
            ("exp2", avx2::exp2, exp2),
            ("log", avx2::log, log),
            ("log2", avx2::log2, log2),
            ("log10", avx2::log10, log10),
        ];
        let chunks = |v: &[f32]| -> avx2::Chunks<N> {
            core::array::from_fn(|i| v[8 * i..8 * i + 8].try_into().unwrap())
        };
        for (x, y) in xs.chunks_exact(8 * N).zip(ys.chunks_exact(8 * N)) {
            let (cx, cy) = (chunks(x), chunks(y));
            for (name, vector, scalar) in unary {
                // SAFETY: the caller checked for AVX2.
                let got = unsafe { vector(&cx) };
                for (l, &x) in x.iter().enumerate() {
                    let g = got[l / 8][l % 8];
                    assert_eq!(g.to_bits(), scalar(x).to_bits(), "{name}({x:e}), N = {N}");
                }
            }
            // SAFETY: as above.
            let got = unsafe { avx2::pow(&cx, &cy) };
            for (l, (&x, &y)) in x.iter().zip(y).enumerate() {
                let want = crate::ops::pow(x, y);
                let g = got[l / 8][l % 8];
                assert_eq!(g.to_bits(), want.to_bits(), "pow({x:e}, {y:e}), N = {N}");
            }
        }
    }

    /// The special values of [`special_values`] and the sweep's floats, in the order swept
    /// and reversed (as the exponents of `pow`).
    fn vector_inputs() -> (Vec<f32>, Vec<f32>) {
        let nan = f32::from_bits(0x7F80_1234);
        let special = [
            0.5,
            -3.0,
            1e6,
            -2e30,
            f32::INFINITY,
            nan,
            -0.0,
            12345.678,
            0.0,
            f32::NEG_INFINITY,
            f32::from_bits(1),
            f32::MIN_POSITIVE,
            -1.0,
            1.0,
            f32::MAX,
            -nan,
        ];
        let mut xs: Vec<f32> = special.to_vec();
        xs.extend((0..=u32::MAX).step_by(STEP).map(f32::from_bits));
        xs.truncate(xs.len() / 32 * 32);
        let ys = xs.iter().rev().copied().collect();
        (xs, ys)
    }

    /// The AVX2 functions give each lane the scalar function's bits, one vector at a time and
    /// four interleaved, as the machine code calls them.
    #[test]
    fn vectors_give_each_lanes_bits() {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            let (xs, ys) = vector_inputs();
            vectors_agree::<1>(&xs, &ys);
            vectors_agree::<4>(&xs, &ys);
        }
    }

    /// Every float through the AVX2 functions: `cargo test --release -p lockstep-wave --
    /// --ignored`.
    #[test]
    #[ignore = "visits all 2^32 floats: minutes in release"]
    fn every_float_same_bits_in_vectors() {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            let parts = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
            std::thread::scope(|s| {
                for part in 0..parts {
                    s.spawn(move || {
                        let block = 1u64 << 16;
                        let mut start = u64::from(part) * block;
                        while start <= u64::from(u32::MAX) {
                            let xs: Vec<f32> = (start..start + block)
                                .map(|b| f32::from_bits(b as u32))
                                .collect();
                            let ys: Vec<f32> = xs.iter().rev().copied().collect();
                            vectors_agree::<4>(&xs, &ys);
                            start += u64::from(parts) * block;
                        }
                    });
                }
            });
        }
    }

    #[test]
    fn special_values() {
        assert_eq!(exp2(3.0), 8.0);
        assert_eq!(exp2(-149.0), f32::from_bits(1));
        assert_eq!(exp2(-151.0), 0.0);
        assert_eq!(exp2(128.0), f32::INFINITY);
        assert_eq!(exp2(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(log2(8.0), 3.0);
        assert_eq!(log2(1.0), 0.0);
        assert_eq!(log2(f32::from_bits(1)), -149.0);
        assert_eq!(log(0.0), f32::NEG_INFINITY);
        assert_eq!(log(-0.0), f32::NEG_INFINITY);
        assert_eq!(log(f32::INFINITY), f32::INFINITY);
        assert_eq!(log(-1.0).to_bits(), DEFAULT_NAN.to_bits());
        assert_eq!(log10(1000.0), 3.0);
        assert_eq!(sin(0.0), 0.0);
        assert_eq!(sin(-0.0).to_bits(), (-0.0f32).to_bits());
        assert_eq!(cos(0.0), 1.0);
        assert_eq!(sin(f32::INFINITY).to_bits(), DEFAULT_NAN.to_bits());
        assert_eq!(cos(f32::NEG_INFINITY).to_bits(), DEFAULT_NAN.to_bits());
        let nan = f32::from_bits(0x7F80_1234);
        for f in [exp, exp2, log, log2, log10, sin, cos] {
            assert_eq!(f(nan).to_bits(), 0x7FC0_1234);
        }
        // Large arguments keep their precision: sin(2^100) and cos(f32::MAX), from f64.
        let big = 2f32.powi(100);
        assert_eq!(sin(big), f64::from(big).sin() as f32);
        assert_eq!(cos(f32::MAX), f64::from(f32::MAX).cos() as f32);
    }
}
