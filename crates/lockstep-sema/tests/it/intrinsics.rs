//! Intrinsics: the math catalogue, `mul`, `select`, bit casts, every wave
//! and quad intrinsic with its result type, legacy names and shader-model
//! gating.

use expect_test::expect;

use crate::{body, check, check_with, sm, with_16bit};

#[test]
fn math_result_types() {
    check(
        &body(
            "float f; float3 v; int i; int3 iv; uint u; double d; float2x3 m; bool b;
            abs(i); abs(v); min(i, 2); max(f, i); clamp(v, 0, 1); saturate(f); sign(v); sign(i);
            floor(v); ceil(f); round(f); trunc(f); frac(v); sqrt(i); rsqrt(f); rcp(d);
            exp(f); exp2(f); log(f); log2(f); log10(f); pow(v, 2); sin(f); cos(f); tan(f);
            asin(f); acos(f); atan(f); atan2(f, 1); sinh(f); cosh(f); tanh(f);
            lerp(v, v, 0.5); step(0.5, f); smoothstep(0, 1, v); mad(i, i, 1); fma(d, d, d);
            dot(v, v); dot(iv, iv); cross(v, v); length(v); distance(v, v); normalize(v);
            all(v); any(b); countbits(u); firstbithigh(iv); firstbitlow(u); reversebits(u);
            f32tof16(f); f16tof32(u); isnan(v); isinf(f); isfinite(v); transpose(m); abs(m);",
        ),
        expect![[r#"
            fn main() -> void {
              local %f: float
              local %v: float3
              local %i: int
              local %iv: int3
              local %u: uint
              local %d: double
              local %m: float2x3
              local %b: bool
              abs<int>(%i);
              abs<float3>(%v);
              min<int>(%i, 2);
              max<float>(%f, (float)%i);
              clamp<float3>(%v, float3(0.0f, 0.0f, 0.0f), float3(1.0f, 1.0f, 1.0f));
              saturate<float>(%f);
              sign<int3>(%v);
              sign<int>(%i);
              floor<float3>(%v);
              ceil<float>(%f);
              round<float>(%f);
              trunc<float>(%f);
              frac<float3>(%v);
              sqrt<float>((float)%i);
              rsqrt<float>(%f);
              rcp<double>(%d);
              exp<float>(%f);
              exp2<float>(%f);
              log<float>(%f);
              log2<float>(%f);
              log10<float>(%f);
              pow<float3>(%v, float3(2.0f, 2.0f, 2.0f));
              sin<float>(%f);
              cos<float>(%f);
              tan<float>(%f);
              asin<float>(%f);
              acos<float>(%f);
              atan<float>(%f);
              atan2<float>(%f, 1.0f);
              sinh<float>(%f);
              cosh<float>(%f);
              tanh<float>(%f);
              lerp<float3>(%v, %v, float3(0.5f, 0.5f, 0.5f));
              step<float>(0.5f, %f);
              smoothstep<float3>(float3(0.0f, 0.0f, 0.0f), float3(1.0f, 1.0f, 1.0f), %v);
              mad<int>(%i, %i, 1);
              fma<double>(%d, %d, %d);
              dot<float>(%v, %v);
              dot<int>(%iv, %iv);
              cross<float3>(%v, %v);
              length<float>(%v);
              distance<float>(%v, %v);
              normalize<float3>(%v);
              all<bool>(%v);
              any<bool>(%b);
              countbits<uint>(%u);
              firstbithigh<uint3>(%iv);
              firstbitlow<uint>(%u);
              reversebits<uint>(%u);
              f32tof16<uint>(%f);
              f16tof32<float>(%u);
              isnan<bool3>(%v);
              isinf<bool>(%f);
              isfinite<bool3>(%v);
              transpose<float3x2>(%m);
              abs<float2x3>(%m);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn math_errors() {
    check(
        &body(
            "float f; float2x2 m; countbits(f); cross(f, f); dot(m, m); transpose(f); sqrt(); min(f); sqrt(m, m);",
        ),
        expect![[r#"
            3:22: error: countbits requires an integer type, but argument has type 'float'
            3:36: error: no matching function for call to 'cross'
              note: candidate: T cross(T, T) with T a 3-component vector of a floating-point type
            3:49: error: no matching function for call to 'dot'
              note: candidate: scalar of T dot(T, T) with T a scalar or vector of a numeric type
            3:60: error: no matching function for call to 'transpose'
              note: candidate: transposed T transpose(T) with T a matrix of any type
            3:74: error: no matching function for call to 'sqrt'
              note: candidate function not viable: requires 1 argument, but 0 were provided
            3:82: error: no matching function for call to 'min'
              note: candidate function not viable: requires 2 arguments, but 1 was provided
            3:90: error: no matching function for call to 'sqrt'
              note: candidate function not viable: requires 1 argument, but 2 were provided
        "#]],
    );
}

#[test]
fn mul_forms() {
    check(
        &body(
            "float s; float3 v; float4 w; float3x4 m; float4x2 n; int i;
            mul(s, s); mul(s, v); mul(m, s); mul(v, v); mul(v, m); mul(m, w); mul(m, n); mul(i, s);",
        ),
        expect![[r#"
            fn main() -> void {
              local %s: float
              local %v: float3
              local %w: float4
              local %m: float3x4
              local %n: float4x2
              local %i: int
              mul<float>(%s, %s);
              mul<float3>(%s, %v);
              mul<float3x4>(%m, %s);
              mul<float>(%v, %v);
              mul<float4>(%v, %m);
              mul<float3>(%m, %w);
              mul<float3x2>(%m, %n);
              mul<float>((float)%i, %s);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        &body("float3 v; float4 w; float3x4 m; mul(v, w); mul(w, m);"),
        expect![[r#"
        3:33: error: no matching function for call to 'mul'
          note: no overload of 'mul' takes (float3, float4)
        3:44: error: no matching function for call to 'mul'
          note: no overload of 'mul' takes (float4, float3x4)
    "#]],
    );
}

#[test]
fn select_and_or() {
    check(
        &body(
            "bool3 c; float3 a; float s; int3 i; select(c, a, s); select(true, 1, 2.5); and(c, i); or(true, false);",
        ),
        expect![[r#"
            fn main() -> void {
              local %c: bool3
              local %a: float3
              local %s: float
              local %i: int3
              select<float3>(%c, %a, splat<float3>(%s));
              select<float>(true, 1.0f, 2.5f);
              and(%c, (bool3)%i);
              or(true, false);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn bit_casts() {
    check(
        &body(
            "float f; uint u; int2 i; double d; uint lo, hi;
            asuint(f); asint(f); asfloat(u); asfloat(i); asuint(u); asdouble(lo, hi); asuint(d, lo, hi); asuint(1.0);",
        ),
        expect![[r#"
            fn main() -> void {
              local %f: float
              local %u: uint
              local %i: int2
              local %d: double
              local %lo: uint
              local %hi: uint
              bitcast<uint>(%f);
              bitcast<int>(%f);
              bitcast<float>(%u);
              bitcast<float2>(%i);
              %u;
              asdouble<double>(%lo, %hi);
              ((%lo = (uint)bitcast<uint64_t>(%d)), (%hi = (uint)(bitcast<uint64_t>(%d) >> 32ul)));
              bitcast<uint>(1.0f);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        &body("double d; bool b; asuint(d); asfloat(b); asuint16(1);"),
        expect![[r#"
        3:19: error: no matching function for call to 'asuint'
          note: no overload of 'asuint' takes (double)
        3:30: error: no matching function for call to 'asfloat'
          note: no overload of 'asfloat' takes (bool)
        3:42: error: 'asuint16' requires -enable-16bit-types
    "#]],
    );
    check_with(
        &body("int16_t s; half h; asuint16(s); asfloat16(s); asint16(h);"),
        with_16bit(),
        expect![[r#"
            fn main() -> void {
              local %s: int16_t
              local %h: half
              bitcast<uint16_t>(%s);
              bitcast<half>(%s);
              bitcast<int16_t>(%h);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn wave_result_types() {
    check(
        &body(
            "bool b; int i; uint u; float f; float3 v; uint4 mask; int2 iv; double d; uint64_t l;
            WaveIsFirstLane(); WaveGetLaneCount(); WaveGetLaneIndex();
            WaveActiveAnyTrue(b); WaveActiveAllTrue(i); WaveActiveBallot(b);
            WaveReadLaneFirst(v); WaveReadLaneAt(f, 3); WaveReadLaneAt(b, u);
            WaveActiveAllEqual(v); WaveActiveAllEqual(b); WaveActiveCountBits(b);
            WaveActiveSum(v); WaveActiveProduct(i); WaveActiveMin(d); WaveActiveMax(u);
            WaveActiveBitAnd(u); WaveActiveBitOr(iv); WaveActiveBitXor(l);
            WavePrefixCountBits(b); WavePrefixSum(f); WavePrefixProduct(iv);
            WaveMatch(v); WaveMultiPrefixSum(f, mask); WaveMultiPrefixProduct(i, mask);
            WaveMultiPrefixCountBits(b, mask); WaveMultiPrefixBitAnd(u, mask);
            WaveMultiPrefixBitOr(iv, mask); WaveMultiPrefixBitXor(u, mask);
            QuadReadAcrossX(f); QuadReadAcrossY(v); QuadReadAcrossDiagonal(i); QuadReadLaneAt(u, 2);
            QuadAny(b); QuadAll(b);",
        ),
        expect![[r#"
            fn main() -> void {
              local %b: bool
              local %i: int
              local %u: uint
              local %f: float
              local %v: float3
              local %mask: uint4
              local %iv: int2
              local %d: double
              local %l: uint64_t
              WaveIsFirstLane<bool>();
              WaveGetLaneCount<uint>();
              WaveGetLaneIndex<uint>();
              WaveActiveAnyTrue<bool>(%b);
              WaveActiveAllTrue<bool>((bool)%i);
              WaveActiveBallot<uint4>(%b);
              WaveReadLaneFirst<float3>(%v);
              WaveReadLaneAt<float>(%f, 3u);
              WaveReadLaneAt<bool>(%b, %u);
              WaveActiveAllEqual<bool3>(%v);
              WaveActiveAllEqual<bool>(%b);
              WaveActiveCountBits<uint>(%b);
              WaveActiveSum<float3>(%v);
              WaveActiveProduct<int>(%i);
              WaveActiveMin<double>(%d);
              WaveActiveMax<uint>(%u);
              WaveActiveBitAnd<uint>(%u);
              WaveActiveBitOr<int2>(%iv);
              WaveActiveBitXor<uint64_t>(%l);
              WavePrefixCountBits<uint>(%b);
              WavePrefixSum<float>(%f);
              WavePrefixProduct<int2>(%iv);
              WaveMatch<uint4>(%v);
              WaveMultiPrefixSum<float>(%f, %mask);
              WaveMultiPrefixProduct<int>(%i, %mask);
              WaveMultiPrefixCountBits<uint>(%b, %mask);
              WaveMultiPrefixBitAnd<uint>(%u, %mask);
              WaveMultiPrefixBitOr<int2>(%iv, %mask);
              WaveMultiPrefixBitXor<uint>(%u, %mask);
              QuadReadAcrossX<float>(%f);
              QuadReadAcrossY<float3>(%v);
              QuadReadAcrossDiagonal<int>(%i);
              QuadReadLaneAt<uint>(%u, 2u);
              QuadAny<bool>(%b);
              QuadAll<bool>(%b);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn wave_argument_errors() {
    check(
        &body(
            "float f; bool b; float m[2]; float3 v;
            WaveActiveBitAnd(f); WaveActiveBitOr(b); WaveActiveSum(b); WaveActiveSum(m);
            WaveReadLaneAt(f); WaveIsFirstLane(1); WaveActiveBitXor(v);",
        ),
        expect![[r#"
            4:13: error: WaveActiveBitAnd requires an integer type, but argument has type 'float'
            4:34: error: WaveActiveBitOr requires an integer type, but argument has type 'bool'
            4:54: error: WaveActiveSum requires a numeric type, but argument has type 'bool'
            4:72: error: no matching function for call to 'WaveActiveSum'
              note: candidate: T WaveActiveSum(T) with T a scalar, vector or matrix of a numeric type
            5:13: error: no matching function for call to 'WaveReadLaneAt'
              note: candidate function not viable: requires 2 arguments, but 1 was provided
            5:32: error: no matching function for call to 'WaveIsFirstLane'
              note: candidate function not viable: requires 0 arguments, but 1 was provided
            5:52: error: WaveActiveBitXor requires an integer type, but argument has type 'float'
        "#]],
    );
}

/// `WaveMultiPrefixAnd/Or/Xor` are not HLSL (compilers know only the `Bit`
/// names): accepted as the real intrinsic, with a warning naming it.
#[test]
fn multiprefix_names_that_are_not_hlsl() {
    check(
        &body(
            "uint u; uint4 mask;
            WaveMultiPrefixAnd(u, mask); WaveMultiPrefixOr(u, mask); WaveMultiPrefixXor(u, mask);",
        ),
        expect![[r#"
            4:13: warning: 'WaveMultiPrefixAnd' is not an HLSL intrinsic: use 'WaveMultiPrefixBitAnd' instead
            4:42: warning: 'WaveMultiPrefixOr' is not an HLSL intrinsic: use 'WaveMultiPrefixBitOr' instead
            4:70: warning: 'WaveMultiPrefixXor' is not an HLSL intrinsic: use 'WaveMultiPrefixBitXor' instead
            fn main() -> void {
              local %u: uint
              local %mask: uint4
              WaveMultiPrefixBitAnd<uint>(%u, %mask);
              WaveMultiPrefixBitOr<uint>(%u, %mask);
              WaveMultiPrefixBitXor<uint>(%u, %mask);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn legacy_wave_names() {
    check(
        &body(
            "uint u; bool b; float f;
            WaveAllSum(u); WaveAllProduct(u); WaveAllBitAnd(u); WaveAllBitOr(u); WaveAllBitXor(u);
            WaveAllMin(f); WaveAllMax(f); WaveAnyTrue(b); WaveAllTrue(b); WaveBallot(b);
            WaveAllEqual(f); WaveAllEqualBool(b); WaveAllCountBits(b); WaveReadFirstLane(u);",
        ),
        expect![[r#"
            4:13: warning: 'WaveAllSum' is deprecated: use 'WaveActiveSum' instead
            4:28: warning: 'WaveAllProduct' is deprecated: use 'WaveActiveProduct' instead
            4:47: warning: 'WaveAllBitAnd' is deprecated: use 'WaveActiveBitAnd' instead
            4:65: warning: 'WaveAllBitOr' is deprecated: use 'WaveActiveBitOr' instead
            4:82: warning: 'WaveAllBitXor' is deprecated: use 'WaveActiveBitXor' instead
            5:13: warning: 'WaveAllMin' is deprecated: use 'WaveActiveMin' instead
            5:28: warning: 'WaveAllMax' is deprecated: use 'WaveActiveMax' instead
            5:43: warning: 'WaveAnyTrue' is deprecated: use 'WaveActiveAnyTrue' instead
            5:59: warning: 'WaveAllTrue' is deprecated: use 'WaveActiveAllTrue' instead
            5:75: warning: 'WaveBallot' is deprecated: use 'WaveActiveBallot' instead
            6:13: warning: 'WaveAllEqual' is deprecated: use 'WaveActiveAllEqual' instead
            6:30: warning: 'WaveAllEqualBool' is deprecated: use 'WaveActiveAllEqual' instead
            6:51: warning: 'WaveAllCountBits' is deprecated: use 'WaveActiveCountBits' instead
            6:72: warning: 'WaveReadFirstLane' is deprecated: use 'WaveReadLaneFirst' instead
            fn main() -> void {
              local %u: uint
              local %b: bool
              local %f: float
              WaveActiveSum<uint>(%u);
              WaveActiveProduct<uint>(%u);
              WaveActiveBitAnd<uint>(%u);
              WaveActiveBitOr<uint>(%u);
              WaveActiveBitXor<uint>(%u);
              WaveActiveMin<float>(%f);
              WaveActiveMax<float>(%f);
              WaveActiveAnyTrue<bool>(%b);
              WaveActiveAllTrue<bool>(%b);
              WaveActiveBallot<uint4>(%b);
              WaveActiveAllEqual<bool>(%f);
              WaveActiveAllEqual<bool>(%b);
              WaveActiveCountBits<uint>(%b);
              WaveReadLaneFirst<uint>(%u);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn shader_model_gating() {
    check_with(
        &body(
            "float f; bool b; uint4 m = WaveMatch(f); WaveMultiPrefixSum(f, m); QuadAny(b); WaveActiveSum(f);",
        ),
        sm(6, 0),
        expect![[r#"
            3:28: error: 'WaveMatch' requires shader model 6.5 or later
            3:42: error: 'WaveMultiPrefixSum' requires shader model 6.5 or later
            3:68: error: 'QuadAny' requires shader model 6.7 or later
        "#]],
    );
    check_with(
        &body("bool b; QuadAll(b); WaveMatch(b);"),
        sm(6, 5),
        expect![[r#"
        3:9: error: 'QuadAll' requires shader model 6.7 or later
    "#]],
    );
}

#[test]
fn interlocked_on_groupshared() {
    check(
        "groupshared uint counter;
        groupshared int slots[4];
        groupshared float notint;
        [numthreads(4, 1, 1)]
        void main(uint i : SV_GroupIndex) {
            uint old;
            InterlockedAdd(counter, 1);
            InterlockedAdd(counter, i, old);
            InterlockedMin(slots[i], -1);
            InterlockedMax(slots[0], 5, old);
            InterlockedAnd(counter, 0xF); InterlockedOr(counter, 1); InterlockedXor(counter, 3);
            InterlockedExchange(counter, 7, old);
            InterlockedCompareExchange(counter, 1, 2, old);
            InterlockedCompareStore(counter, 2, 3);
        }",
        expect![[r#"
            groupshared @counter: uint
            groupshared @slots: int[4]
            groupshared @notint: float
            fn main(in %i: uint) -> void {
              local %old: uint
              atomic_add(@counter, 1u);
              %old = atomic_add(@counter, %i);
              atomic_min(@slots[%i], -1);
              %old = (uint)atomic_max(@slots[0u], 5);
              atomic_and(@counter, 15u);
              atomic_or(@counter, 1u);
              atomic_xor(@counter, 3u);
              %old = atomic_exchange(@counter, 7u);
              %old = atomic_compare_exchange(@counter, 1u, 2u);
              atomic_compare_store(@counter, 2u, 3u);
            }
            entry main: fn main, numthreads(4, 1, 1), inputs(GroupIndex)
        "#]],
    );
}

#[test]
fn interlocked_errors() {
    check(
        "groupshared float notint;
        static uint s;
        [numthreads(1, 1, 1)]
        void main() {
            uint local_value; uint old;
            InterlockedAdd(local_value, 1);
            InterlockedAdd(s, 1);
            InterlockedAdd(notint, 1);
            InterlockedAdd(5, 1);
            InterlockedExchange(old, 1);
            InterlockedAdd(old, 1, 2, 3, 4);
        }",
        expect![[r#"
            6:28: error: the destination of 'InterlockedAdd' must be an lvalue in groupshared memory or a RW buffer
            7:28: error: the destination of 'InterlockedAdd' must be an lvalue in groupshared memory or a RW buffer
            8:13: error: atomic operations require an int or uint destination, but it has type 'float' (floats take InterlockedExchange, InterlockedCompareStoreFloatBitwise and InterlockedCompareExchangeFloatBitwise)
            9:28: error: the destination of 'InterlockedAdd' must be an lvalue in groupshared memory or a RW buffer
            10:13: error: no matching function for call to 'InterlockedExchange'
              note: candidate function not viable: requires 3 arguments, but 2 were provided
            11:13: error: no matching function for call to 'InterlockedAdd'
              note: candidate function not viable: requires 2 or 3 arguments, but 5 were provided
        "#]],
    );
}
