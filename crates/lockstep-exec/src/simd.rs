//! Run-time choice of the instruction set the hot loops are compiled for.
//!
//! The lane loops (`alu`) and the interpreter's own loop (`engine`) are
//! compiled twice on x86-64: for the baseline (SSE2) and for AVX2, whose
//! 256-bit vectors do four 64-bit register lanes per operation and have
//! per-lane variable shifts, with the bit instructions every AVX2 CPU also
//! has (POPCNT, BMI1, BMI2, LZCNT: population counts and lane searches in
//! one instruction). The AVX2 code is only entered when the CPU has all of
//! them. Both are the same source, so they give the same bits.

/// Whether this CPU runs AVX2 code: AVX2 and the bit instructions
/// [`with_avx2`] enables with it (detected once, then cached by std).
#[inline]
pub fn avx2_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        !forced_baseline()
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("lzcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `LOCKSTEP_SIMD=baseline` keeps every loop on the baseline instruction
/// set (to compare the two, or to rule AVX2 out when chasing a problem).
#[cfg(target_arch = "x86_64")]
fn forced_baseline() -> bool {
    use std::sync::OnceLock;
    static BASELINE: OnceLock<bool> = OnceLock::new();
    *BASELINE.get_or_init(|| {
        std::env::var_os("LOCKSTEP_SIMD").is_some_and(|v| v.eq_ignore_ascii_case("baseline"))
    })
}

/// Runs `f` compiled with AVX2 and its bit instructions enabled (`f` is
/// inlined into this function, so its loops are vectorised for AVX2).
///
/// # Safety
/// The CPU must have them ([`avx2_available`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1,bmi2,lzcnt")]
#[inline]
pub unsafe fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
    f()
}
