//! The branch-free path of `sin` and `cos` over eight lanes in AVX2: the operations of
//! `reduce_near` (four `f64` lanes at a time) and `from_quadrant32` (eight `f32` lanes), in the
//! same order and each rounded alike, so that every lane gets the scalar path's bits.

// The one place in this crate with `unsafe`: the AVX2 function and its loads and stores.
#![allow(unsafe_code)]

/// `sin` (or with `cos`, `cos`) of each lane of `x` on the branch-free path, into `out`, and the
/// lanes that path does not take (see `trig_far`) as bits; `None` where the CPU has no AVX2.
#[inline(always)]
pub(super) fn trig8_near(x: &[f32; 8], cos: bool, out: &mut [f32; 8]) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return Some(unsafe { near(x, cos, out) });
    }
    let _ = (x, cos, out);
    None
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn near(x: &[f32; 8], cos: bool, out: &mut [f32; 8]) -> u32 {
    use core::arch::x86_64::*;
    // SAFETY: `x` holds eight floats.
    let xs = unsafe { _mm256_loadu_ps(x.as_ptr()) };
    let abs = _mm256_and_ps(xs, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFF_FFFF)));
    let far = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_NLT_UQ>(
        abs,
        _mm256_set1_ps(super::LARGE),
    ));
    // `reduce_near` and the split of `r`, four lanes at a time in `f64`.
    let (hi0, lo0, n0) = reduce(_mm256_cvtps_pd(_mm256_castps256_ps128(abs)));
    let (hi1, lo1, n1) = reduce(_mm256_cvtps_pd(_mm256_extractf128_ps::<1>(abs)));
    let (hi, lo) = (_mm256_set_m128(hi1, hi0), _mm256_set_m128(lo1, lo0));
    let n = _mm256_set_m128i(n1, n0);
    // `from_quadrant32`, eight lanes at a time.
    let k = _mm256_set1_ps;
    let (mul, add, sub) = (_mm256_mul_ps, _mm256_add_ps, _mm256_sub_ps);
    let horner = |x: __m256, p: &[f32]| {
        let mut acc = k(p[p.len() - 1]);
        for &c in p[..p.len() - 1].iter().rev() {
            acc = add(mul(acc, x), k(c));
        }
        acc
    };
    let r2 = mul(hi, hi);
    let s = add(
        hi,
        add(lo, mul(mul(hi, r2), horner(r2, &super::SIN_POLY32))),
    );
    let c = add(
        k(1.0),
        sub(mul(r2, horner(r2, &super::COS_POLY32)), mul(hi, lo)),
    );
    // The quadrant's two low bits pick `c` over `s` and flip the sign.
    let quadrant = _mm256_add_epi32(n, _mm256_set1_epi32(i32::from(cos)));
    let v = _mm256_blendv_ps(s, c, _mm256_castsi256_ps(_mm256_slli_epi32::<31>(quadrant)));
    let sign = _mm256_set1_epi32(i32::MIN);
    let flip = _mm256_and_si256(_mm256_slli_epi32::<30>(quadrant), sign);
    let mut v = _mm256_xor_ps(v, _mm256_castsi256_ps(flip));
    if !cos {
        v = _mm256_xor_ps(v, _mm256_and_ps(xs, _mm256_castsi256_ps(sign)));
    }
    // SAFETY: `out` holds eight floats.
    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), v) };
    far as u32
}

/// Four lanes of `a = |x|`, widened: `reduce_near`'s `r` as `hi + lo` (two `f32`s each) and the
/// quadrant's low 32 bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn reduce(
    a: core::arch::x86_64::__m256d,
) -> (
    core::arch::x86_64::__m128,
    core::arch::x86_64::__m128,
    core::arch::x86_64::__m128i,
) {
    use core::arch::x86_64::*;
    let k = _mm256_set1_pd;
    let (mul, add, sub) = (_mm256_mul_pd, _mm256_add_pd, _mm256_sub_pd);
    let shifted = add(mul(a, k(core::f64::consts::FRAC_2_PI)), k(super::ROUND));
    let n = sub(shifted, k(super::ROUND));
    let r = sub(sub(a, mul(n, k(super::PIO2_HI))), mul(n, k(super::PIO2_LO)));
    let hi = _mm256_cvtpd_ps(r);
    let lo = _mm256_cvtpd_ps(sub(r, _mm256_cvtps_pd(hi)));
    // The low words of the four 64-bit lanes.
    let low = _mm256_permutevar8x32_epi32(
        _mm256_castpd_si256(shifted),
        _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6),
    );
    (hi, lo, _mm256_castsi256_si128(low))
}
