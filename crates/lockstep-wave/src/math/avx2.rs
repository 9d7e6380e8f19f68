//! The branch-free path of `sin` and `cos` over eight lanes in AVX2: the operations of
//! `reduce_near`, `sin_cos_poly` and `from_quadrant`, in the same order and each rounded alike,
//! four `f64` lanes at a time, so that every lane gets the scalar path's bits.

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
    let lo = quadrant(
        _mm256_cvtps_pd(_mm256_castps256_ps128(abs)),
        _mm256_cvtps_pd(_mm256_castps256_ps128(xs)),
        cos,
    );
    let hi = quadrant(
        _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(abs)),
        _mm256_cvtps_pd(_mm256_extractf128_ps::<1>(xs)),
        cos,
    );
    // SAFETY: `out` holds eight floats.
    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), _mm256_set_m128(hi, lo)) };
    far as u32
}

/// Four lanes: `a = |x|` and `x` itself, widened.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn quadrant(
    a: core::arch::x86_64::__m256d,
    x: core::arch::x86_64::__m256d,
    cos: bool,
) -> core::arch::x86_64::__m128 {
    use core::arch::x86_64::*;
    let k = _mm256_set1_pd;
    let (mul, add, sub) = (_mm256_mul_pd, _mm256_add_pd, _mm256_sub_pd);
    let horner = |x: __m256d, p: &[f64]| {
        let mut acc = k(p[p.len() - 1]);
        for &c in p[..p.len() - 1].iter().rev() {
            acc = add(mul(acc, x), k(c));
        }
        acc
    };
    // `reduce_near`.
    let shifted = add(mul(a, k(core::f64::consts::FRAC_2_PI)), k(super::ROUND));
    let n = sub(shifted, k(super::ROUND));
    let r = sub(sub(a, mul(n, k(super::PIO2_HI))), mul(n, k(super::PIO2_LO)));
    // `sin_cos_poly`.
    let r2 = mul(r, r);
    let s = add(r, mul(mul(r, r2), horner(r2, &super::SIN_POLY)));
    let c = add(k(1.0), mul(r2, horner(r2, &super::COS_POLY)));
    // `from_quadrant`: the quadrant's two low bits pick `c` over `s` and flip the sign.
    let quadrant = _mm256_add_epi64(
        _mm256_castpd_si256(shifted),
        _mm256_set1_epi64x(i64::from(cos)),
    );
    let v = _mm256_blendv_pd(s, c, _mm256_castsi256_pd(_mm256_slli_epi64::<63>(quadrant)));
    let sign = _mm256_set1_epi64x(i64::MIN);
    let flip = _mm256_and_si256(_mm256_slli_epi64::<62>(quadrant), sign);
    let mut v = _mm256_xor_pd(v, _mm256_castsi256_pd(flip));
    if !cos {
        v = _mm256_xor_pd(v, _mm256_and_pd(x, _mm256_castsi256_pd(sign)));
    }
    _mm256_cvtpd_ps(v)
}
