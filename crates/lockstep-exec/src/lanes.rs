//! Lane functions of the machine code: the `float` transcendentals that it
//! calls over a pass's lanes rather than hand to the interpreter, with the
//! bits of `lockstep_wave::math`, as the interpreter computes them.

use lockstep_ir::{Builtin, ScalarType};

/// A builtin that the machine code calls as a [`LaneFn`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneMath {
    Sin,
    Cos,
    Exp,
    Exp2,
    Log,
    Log2,
    Log10,
    Pow,
}

impl LaneMath {
    /// The lane function of builtin `b` on `ty`, where it has one.
    pub(crate) fn of(b: Builtin, ty: ScalarType) -> Option<LaneMath> {
        if ty != ScalarType::Float32 {
            return None;
        }
        Some(match b {
            Builtin::Sin => LaneMath::Sin,
            Builtin::Cos => LaneMath::Cos,
            Builtin::Exp => LaneMath::Exp,
            Builtin::Exp2 => LaneMath::Exp2,
            Builtin::Log => LaneMath::Log,
            Builtin::Log2 => LaneMath::Log2,
            Builtin::Log10 => LaneMath::Log10,
            Builtin::Pow => LaneMath::Pow,
            _ => return None,
        })
    }
}

#[cfg(all(feature = "jit", target_arch = "x86_64"))]
pub(crate) use entries::entry;

#[cfg(all(feature = "jit", target_arch = "x86_64"))]
mod entries {
    use super::LaneMath;
    use lockstep_jit::wave::LaneFn;
    use lockstep_wave::math::avx2::{self, Chunks};

    /// The function the machine code calls for `m`.
    pub(crate) fn entry(m: LaneMath) -> LaneFn {
        match m {
            LaneMath::Sin => sin,
            LaneMath::Cos => cos,
            LaneMath::Exp => exp,
            LaneMath::Exp2 => exp2,
            LaneMath::Log => log,
            LaneMath::Log2 => log2,
            LaneMath::Log10 => log10,
            LaneMath::Pow => pow,
        }
    }

    /// `dst[l] = f(a[l], b[l])` for `l` in `c..n`, `N` vectors of eight lanes
    /// at a time, where `keep` is null or nonzero.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA, and `dst`, `a`, `b` and `keep` (unless null)
    /// hold `n` words each, `n - c` a multiple of `8 N`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn chunks<const N: usize>(
        dst: *mut u32,
        a: *const u32,
        b: *const u32,
        keep: *const u32,
        (c, n): (usize, usize),
        f: impl Fn(&Chunks<N>, &Chunks<N>) -> Chunks<N>,
    ) {
        use core::arch::x86_64::*;
        for c in (c..n).step_by(8 * N) {
            // SAFETY: the caller vouches for `n` words at each pointer.
            unsafe {
                let x = a.add(c).cast::<Chunks<N>>().read_unaligned();
                let y = b.add(c).cast::<Chunks<N>>().read_unaligned();
                let r = f(&x, &y);
                for (i, r) in r.iter().enumerate() {
                    let v = _mm256_loadu_ps(r.as_ptr());
                    let to = dst.add(c + 8 * i).cast::<f32>();
                    let v = if keep.is_null() {
                        v
                    } else {
                        // A blend rather than a branch per lane.
                        let k = _mm256_loadu_si256(keep.add(c + 8 * i).cast());
                        let off = _mm256_cmpeq_epi32(k, _mm256_setzero_si256());
                        _mm256_blendv_ps(v, _mm256_loadu_ps(to), _mm256_castsi256_ps(off))
                    };
                    _mm256_storeu_ps(to, v);
                }
            }
        }
    }

    /// How many vectors of eight lanes a lane function takes at once: their
    /// operations interleave, so the core overlaps their latencies. Four
    /// measured faster than two or eight on `float4_shading`.
    const VECTORS: usize = 4;

    /// `dst[l] = f(a[l], b[l])` lane by lane, for CPUs without FMA.
    ///
    /// # Safety
    /// As [`chunks`], without the CPU's part.
    unsafe fn lanes(
        dst: *mut u32,
        a: *const u32,
        b: *const u32,
        keep: *const u32,
        n: usize,
        f: impl Fn(f32, f32) -> f32,
    ) {
        for l in 0..n {
            // SAFETY: the caller vouches for `n` words at each pointer.
            unsafe {
                if keep.is_null() || *keep.add(l) != 0 {
                    let (x, y) = (f32::from_bits(*a.add(l)), f32::from_bits(*b.add(l)));
                    *dst.add(l) = f(x, y).to_bits();
                }
            }
        }
    }

    /// Declares a [`LaneFn`] per function of `math::avx2`: [`VECTORS`]
    /// vectors at a time, then the pass's last lanes a vector at a time (on
    /// a CPU without FMA, the scalar function lane by lane).
    macro_rules! lane_fns {
    ($($name:ident: |$x:ident, $y:ident| ($($arg:ident),*) $scalar:expr;)*) => {$(
        unsafe extern "sysv64" fn $name(
            dst: *mut u32,
            a: *const u32,
            b: *const u32,
            keep: *const u32,
            n: usize,
        ) {
            if !std::is_x86_feature_detected!("fma") {
                // SAFETY: as below.
                #[allow(unused_variables)]
                return unsafe { lanes(dst, a, b, keep, n, |$x, $y| $scalar) };
            }
            let whole = n / (8 * VECTORS) * (8 * VECTORS);
            // SAFETY: the machine code runs only on CPUs with AVX2 (FMA is
            // checked above) and passes its frame's registers, `n` words
            // each, `n` a multiple of 8 (see `LaneFn`).
            unsafe {
                #[allow(unused_variables)]
                chunks(dst, a, b, keep, (0, whole), |$x: &Chunks<VECTORS>, $y| avx2::$name($($arg),*));
                #[allow(unused_variables)]
                chunks(dst, a, b, keep, (whole, n), |$x: &Chunks<1>, $y| avx2::$name($($arg),*));
            }
        }
    )*};
}

    use lockstep_wave::math;

    lane_fns! {
        sin: |x, y| (x) math::sin(x);
        cos: |x, y| (x) math::cos(x);
        exp: |x, y| (x) math::exp(x);
        exp2: |x, y| (x) math::exp2(x);
        log: |x, y| (x) math::log(x);
        log2: |x, y| (x) math::log2(x);
        log10: |x, y| (x) math::log10(x);
        pow: |x, y| (x, y) lockstep_wave::ops::pow(x, y);
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The lane functions and the path for CPUs without FMA give the
        /// scalar functions' bits in the kept lanes and leave the others.
        #[test]
        fn lane_functions_keep_masked_lanes_and_match_the_scalar_functions() {
            if !crate::simd::avx2_available() || !std::is_x86_feature_detected!("fma") {
                return;
            }
            let n = 40;
            let a: Vec<u32> = (0..n).map(|l| (l as f32 * 1.7 - 20.0).to_bits()).collect();
            let b: Vec<u32> = (0..n).map(|l| (0.5 + l as f32 * 0.1).to_bits()).collect();
            let keep: Vec<u32> = (0..n).map(|l| u32::from(l % 3 != 1)).collect();
            let old: Vec<u32> = (0..n).map(|l| 0xDEAD_0000 + l as u32).collect();
            type Scalar = fn(f32, f32) -> f32;
            let scalar: [(LaneMath, Scalar); 3] = [
                (LaneMath::Sin, |x, _| math::sin(x)),
                (LaneMath::Log, |x, _| math::log(x)),
                (LaneMath::Pow, lockstep_wave::ops::pow),
            ];
            for (m, f) in scalar {
                let want: Vec<u32> = (0..n)
                    .map(|l| {
                        let (x, y) = (f32::from_bits(a[l]), f32::from_bits(b[l]));
                        if keep[l] != 0 {
                            f(x, y).to_bits()
                        } else {
                            old[l]
                        }
                    })
                    .collect();
                let mut fast = old.clone();
                let mut slow = old.clone();
                // SAFETY: each buffer holds `n` words, a multiple of 8, and
                // the CPU has AVX2 and FMA.
                unsafe {
                    entry(m)(fast.as_mut_ptr(), a.as_ptr(), b.as_ptr(), keep.as_ptr(), n);
                    lanes(
                        slow.as_mut_ptr(),
                        a.as_ptr(),
                        b.as_ptr(),
                        keep.as_ptr(),
                        n,
                        f,
                    );
                }
                assert_eq!(fast, want, "{m:?}");
                assert_eq!(slow, want, "{m:?} lane by lane");
            }
        }
    }
}
