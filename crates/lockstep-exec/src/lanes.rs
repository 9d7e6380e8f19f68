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
    /// The CPU has AVX2, and `dst`, `a`, `b` and `keep` (unless null) hold `n`
    /// words each, `n - c` a multiple of `8 N`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn chunks<const N: usize>(
        dst: *mut u32,
        a: *const u32,
        b: *const u32,
        keep: *const u32,
        (c, n): (usize, usize),
        f: impl Fn(&Chunks<N>, &Chunks<N>) -> Chunks<N>,
    ) {
        for c in (c..n).step_by(8 * N) {
            // SAFETY: the caller vouches for `n` words at each pointer.
            unsafe {
                let x = a.add(c).cast::<Chunks<N>>().read_unaligned();
                let y = b.add(c).cast::<Chunks<N>>().read_unaligned();
                let r = f(&x, &y);
                let to = dst.add(c).cast::<[[u32; 8]; N]>();
                let mut out = to.read_unaligned();
                let kept = if keep.is_null() {
                    [[u32::MAX; 8]; N]
                } else {
                    keep.add(c).cast::<[[u32; 8]; N]>().read_unaligned()
                };
                // A blend rather than a branch per lane.
                for ((o, r), k) in out.iter_mut().zip(&r).zip(&kept) {
                    for ((o, &v), &k) in o.iter_mut().zip(r).zip(k) {
                        *o = if k != 0 { v.to_bits() } else { *o };
                    }
                }
                to.write_unaligned(out);
            }
        }
    }

    /// How many vectors of eight lanes a lane function takes at once: their
    /// operations interleave, so the core overlaps their latencies. Four
    /// measured faster than two or eight on `float4_shading`.
    const VECTORS: usize = 4;

    /// Declares a [`LaneFn`] per function of `math::avx2`: [`VECTORS`]
    /// vectors at a time, then the pass's last lanes a vector at a time.
    macro_rules! lane_fns {
    ($($name:ident: |$x:ident, $y:ident| ($($arg:ident),*);)*) => {$(
        unsafe extern "sysv64" fn $name(
            dst: *mut u32,
            a: *const u32,
            b: *const u32,
            keep: *const u32,
            n: usize,
        ) {
            let whole = n / (8 * VECTORS) * (8 * VECTORS);
            // SAFETY: the machine code runs only on CPUs with AVX2 and
            // passes its frame's registers, `n` words each, `n` a multiple of
            // 8 (see `LaneFn`).
            unsafe {
                #[allow(unused_variables)]
                chunks(dst, a, b, keep, (0, whole), |$x: &Chunks<VECTORS>, $y| avx2::$name($($arg),*));
                #[allow(unused_variables)]
                chunks(dst, a, b, keep, (whole, n), |$x: &Chunks<1>, $y| avx2::$name($($arg),*));
            }
        }
    )*};
}

    lane_fns! {
        sin: |x, y| (x);
        cos: |x, y| (x);
        exp: |x, y| (x);
        exp2: |x, y| (x);
        log: |x, y| (x);
        log2: |x, y| (x);
        log10: |x, y| (x);
        pow: |x, y| (x, y);
    }
}
