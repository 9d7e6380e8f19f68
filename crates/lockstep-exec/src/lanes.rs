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
    use lockstep_wave::{Arith, math};

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

    /// `dst[l] = f(a[l], b[l])`, eight lanes at a time, where `keep` is null
    /// or nonzero.
    ///
    /// # Safety
    /// The CPU has AVX2, and `dst`, `a`, `b` and `keep` (unless null) hold `n`
    /// words each, `n` a multiple of 8.
    #[target_feature(enable = "avx2")]
    unsafe fn lanes(
        dst: *mut u32,
        a: *const u32,
        b: *const u32,
        keep: *const u32,
        n: usize,
        f: impl Fn([f32; 8], [f32; 8]) -> [f32; 8],
    ) {
        for c in (0..n).step_by(8) {
            // SAFETY: the caller vouches for `n` words at each pointer.
            unsafe {
                let x: [f32; 8] = a.add(c).cast::<[f32; 8]>().read_unaligned();
                let y: [f32; 8] = b.add(c).cast::<[f32; 8]>().read_unaligned();
                let r = f(x, y);
                let to = dst.add(c).cast::<[u32; 8]>();
                let mut out = to.read_unaligned();
                let kept: [u32; 8] = if keep.is_null() {
                    [u32::MAX; 8]
                } else {
                    keep.add(c).cast::<[u32; 8]>().read_unaligned()
                };
                // A blend rather than a branch per lane.
                for ((o, &v), &k) in out.iter_mut().zip(&r).zip(&kept) {
                    *o = if k != 0 { v.to_bits() } else { *o };
                }
                to.write_unaligned(out);
            }
        }
    }

    /// `f` on each lane (`map` is not always inlined).
    #[inline(always)]
    fn each(x: [f32; 8], f: impl Fn(f32) -> f32) -> [f32; 8] {
        let mut r = [0.0; 8];
        for (r, &x) in r.iter_mut().zip(&x) {
            *r = f(x);
        }
        r
    }

    /// Declares a [`LaneFn`] per function of eight lanes.
    macro_rules! lane_fns {
    ($($name:ident: |$x:ident, $y:ident| $body:expr;)*) => {$(
        unsafe extern "sysv64" fn $name(
            dst: *mut u32,
            a: *const u32,
            b: *const u32,
            keep: *const u32,
            n: usize,
        ) {
            #[allow(unused_variables)]
            // SAFETY: the machine code runs only on CPUs with AVX2 and
            // passes its frame's registers, `n` words each (see `LaneFn`).
            unsafe { lanes(dst, a, b, keep, n, |$x: [f32; 8], $y: [f32; 8]| $body) }
        }
    )*};
}

    lane_fns! {
        sin: |x, y| math::sin8(x);
        cos: |x, y| math::cos8(x);
        exp: |x, y| each(x, math::exp);
        exp2: |x, y| each(x, math::exp2);
        log: |x, y| each(x, math::log);
        log2: |x, y| each(x, math::log2);
        log10: |x, y| each(x, math::log10);
        // `ops::pow`'s `exp2(y * log2(x))`, a step at a time so that each
        // step runs on all eight lanes.
        pow: |x, y| {
            let l = each(x, math::log2);
            let mut p = [0.0; 8];
            for ((p, &y), &l) in p.iter_mut().zip(&y).zip(&l) {
                *p = Arith::mul(y, l);
            }
            each(p, math::exp2)
        };
    }
}
