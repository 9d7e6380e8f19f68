//! Declarations: type spellings, 16-bit gating, structs, typedefs, arrays,
//! initializer lists, globals, functions and the entry point.

use expect_test::expect;

use crate::{body, check, check_with, with_16bit};

#[test]
fn type_spellings() {
    check(
        &body(
            "bool a; int b; uint c; dword d; float e; double f; half g; int32_t h; uint32_t i;
            int64_t j; uint64_t k; float32_t l; float64_t m; min16float n; min10float o;
            min16int p; min12int q; min16uint r; float3 s; vector<int, 2> t; vector u;
            float4x4 v; matrix<uint, 2, 3> w; matrix x; row_major float2x2 y; column_major float3x2 z;
            unsigned int ui; bool4 bv; uint64_t3 lv; min16float2 mv; int1 one; float1x3 fm;",
        ),
        expect![[r#"
            fn main() -> void {
              local %a: bool
              local %b: int
              local %c: uint
              local %d: uint
              local %e: float
              local %f: double
              local %g: float
              local %h: int
              local %i: uint
              local %j: int64_t
              local %k: uint64_t
              local %l: float
              local %m: double
              local %n: float
              local %o: float
              local %p: int
              local %q: int
              local %r: uint
              local %s: float3
              local %t: int2
              local %u: float4
              local %v: float4x4
              local %w: uint2x3
              local %x: float4x4
              local %y: row_major float2x2
              local %z: float3x2
              local %ui: uint
              local %bv: bool4
              local %lv: uint64_t3
              local %mv: float2
              local %one: int1
              local %fm: float1x3
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn sixteen_bit_types_need_the_option() {
    check(
        &body("int16_t a; uint16_t b; float16_t c; int16_t2 d;"),
        expect![[r#"
        3:1: error: 16-bit types require -enable-16bit-types
        3:12: error: 16-bit types require -enable-16bit-types
        3:24: error: 16-bit types require -enable-16bit-types
        3:37: error: 16-bit types require -enable-16bit-types
    "#]],
    );
    check_with(
        &body(
            "int16_t a; uint16_t b; float16_t c; half d; min16float e; min16int f; min16uint g; uint16_t2 h; a = a + b; d = d * 1.5;",
        ),
        with_16bit(),
        expect![[r#"
            fn main() -> void {
              local %a: int16_t
              local %b: uint16_t
              local %c: half
              local %d: half
              local %e: half
              local %f: int16_t
              local %g: uint16_t
              local %h: uint16_t2
              %a = (int16_t)((uint16_t)%a + %b);
              %d = (%d * 1.5h);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn bad_types() {
    check(
        &body("Foo a;"),
        expect![[r#"
        3:1: error: unknown type name 'Foo'
    "#]],
    );
    check(
        &body("vector<float, 5> b; matrix<float, 0, 2> c;"),
        expect![[r#"
        3:15: error: vector size must be between 1 and 4, but is 5
        3:35: error: matrix row count must be between 1 and 4, but is 0
    "#]],
    );
    check(
        &body("Texture2DMS<float4> t; vector<float3, 2> d;"),
        expect![[r#"
            3:1: error: type 'Texture2DMS' is not supported
            3:24: error: 'float3' is not a scalar type
        "#]],
    );
}

#[test]
fn structs_and_typedefs() {
    check(
        "struct Particle { float3 pos; float mass; uint id[2]; };
        typedef float4 color;
        typedef Particle P;
        typedef int pair[2];
        [numthreads(1, 1, 1)]
        void main() {
            P p; color c; pair q;
            p.pos = c.xyz; q[1] = p.id[0];
        }",
        expect![[r#"
            struct Particle { float3 pos; float mass; uint[2] id; }
            fn main() -> void {
              local %p: Particle
              local %c: float4
              local %q: int[2]
              %p.pos = %c.xyz;
              %q[1u] = (int)%p.id[0u];
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        "struct S { int a; float a; };
        struct S { int b; };
        [numthreads(1, 1, 1)] void main() {}",
        expect![[r#"
            1:25: error: duplicate member 'a'
            2:16: error: redefinition of 'S'
        "#]],
    );
}

#[test]
fn initializer_lists() {
    check(
        "struct S { float2 p; int n; };
        [numthreads(1, 1, 1)]
        void main() {
            float2 v2 = { 1, 2 };
            int a[3] = { 1, 2, 3 };
            float4 v = { v2, 3, 4 };
            S s = { 1, 2, 3 };
            S t[2] = { s, 4, 5, { 6 } };
            float b[] = { 1, 2, 3, 4, 5 };
            float2x2 m = { v };
            int c[2][2] = { 1, 2, 3, 4 };
            float2 split[2] = { v.xyz, 9 };
        }",
        expect![[r#"
            struct S { float2 p; int n; }
            fn main() -> void {
              local %v2: float2
              local %a: int[3]
              local %v: float4
              local %s: S
              local %t: S[2]
              local %b: float[5]
              local %m: float2x2
              local %c: int[2][2]
              local %split: float2[2]
              %v2 = float2(1.0f, 2.0f);
              %a = int[3](1, 2, 3);
              %v = float4(%v2, 3.0f, 4.0f);
              %s = S(float2(1.0f, 2.0f), 3);
              %t = S[2](%s, S(float2(4.0f, 5.0f), 6));
              %b = float[5](1.0f, 2.0f, 3.0f, 4.0f, 5.0f);
              %m = float2x2(%v);
              %c = int[2][2](int[2](1, 2), int[2](3, 4));
              %split = float2[2](%v.xy, float2(%v.z, 9.0f));
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        &body(
            "int a[3] = { 1, 2 }; float2 v = { 1, 2, 3 }; int b[] = { 1, 2, 3 }; int c[][2] = { 1, 2, 3 };",
        ),
        expect![[r#"
            3:12: error: too few elements in initializer list (expected 3 elements, have 2)
            3:33: error: too many elements in initializer list (expected 2 elements, have 3)
            3:73: error: initializer list of 3 elements does not fill whole elements of 'int[2]'
        "#]],
    );
}

#[test]
fn static_const_folding() {
    check(
        "static const uint N = 4;
        static const uint M = N * 2 + 1;
        static const int table[3] = { 10, 20, 30 };
        static const float scale = 0.5;
        static uint counter;
        static float weights[2] = { scale, 1 };
        [numthreads(N, M - 8, table[0] / 10)]
        void main() {
            float a[M];
            int b[table[1] - 18];
            switch (counter) { case N: break; case table[2]: break; }
            counter += N;
        }",
        expect![[r#"
            static @N: uint
            static @M: uint
            static @table: int[3]
            static @scale: float
            static @counter: uint
            static @weights: float[2]
            static_init {
              @N = 4u;
              @M = ((@N * 2u) + 1u);
              @table = int[3](10, 20, 30);
              @scale = 0.5f;
              @counter = 0u;
              @weights = float[2](@scale, 1.0f);
            }
            fn main() -> void {
              local %a: float[9]
              local %b: int[2]
              switch @counter {
                case 4: {
                  break;
                }
                case 30: {
                  break;
                }
              }
              @counter = (@counter + @N);
            }
            entry main: fn main, numthreads(4, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn global_errors() {
    check(
        "static const int K;
        groupshared uint g = 1;
        static int x; int x;
        static float y = undefined_thing;
        [numthreads(1, 1, 1)] void main() { K = 2; y = 1; }",
        expect![[r#"
            1:18: error: const variable 'K' must be initialized
            2:26: error: groupshared variables cannot have an initializer
            3:27: error: redefinition of 'x'
            4:26: error: use of undeclared identifier 'undefined_thing'
            5:45: error: cannot assign to variable 'K' with const-qualified type
        "#]],
    );
}

#[test]
fn local_declarations() {
    check(
        &body("int a = 1, b, c[2] = { a, b }; const float k = 2; { int a = 5; b = a; } b = a;"),
        expect![[r#"
            fn main() -> void {
              local %a.0: int
              local %b: int
              local %c: int[2]
              local %k: float
              local %a.4: int
              %a.0 = 1;
              %c = int[2](%a.0, %b);
              %k = 2.0f;
              %a.4 = 5;
              %b = %a.4;
              %b = %a.0;
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        &body(
            "int a = 1, b, c[2] = { a, b }; const float k = 2; { int a = 5; b = a; } b = a; static int s; int a;",
        ),
        expect![[r#"
            3:98: error: redefinition of 'a'
        "#]],
    );
}

#[test]
fn functions_with_out_params() {
    check(
        "void split(float v, out int whole, inout float rest) { whole = (int)v; rest += v - whole; }
        float twice(float x) { return x * 2; }
        [numthreads(1, 1, 1)]
        void main() {
            int w; float r = 0;
            split(1.5, w, r);
            r = twice(w);
        }",
        expect![[r#"
            fn split(in %v: float, out %whole: int, inout %rest: float) -> void {
              %whole = (int)%v;
              %rest = (%rest + (%v - (float)%whole));
            }
            fn twice(in %x: float) -> float {
              return (%x * 2.0f);
            }
            fn main() -> void {
              local %w: int
              local %r: float
              %r = 0.0f;
              split<void>(1.5f, out %w, inout %r);
              %r = twice<float>((float)%w);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn out_argument_errors() {
    check(
        "void set(out int x) { x = 1; }
        [numthreads(1, 1, 1)]
        void main() {
            int a; const int k = 1;
            set(a + 1);
            set(k);
            set(5);
        }",
        expect![[r#"
            5:17: error: cannot bind a non-lvalue argument to an out parameter
            6:17: error: cannot assign to variable 'k' with const-qualified type
            7:17: error: cannot bind a non-lvalue argument to an out parameter
        "#]],
    );
}

#[test]
fn overloads() {
    check(
        "float f(float x) { return x; }
        int f(int x) { return x; }
        uint f(uint x, uint y) { return x + y; }
        [numthreads(1, 1, 1)]
        void main() {
            float a = f(1.0f);
            int b = f(2);
            uint c = f(1u, 2);
        }",
        expect![[r#"
            fn f#0(in %x: float) -> float {
              return %x;
            }
            fn f#1(in %x: int) -> int {
              return %x;
            }
            fn f#2(in %x: uint, in %y: uint) -> uint {
              return (%x + %y);
            }
            fn main() -> void {
              local %a: float
              local %b: int
              local %c: uint
              %a = f#0<float>(1.0f);
              %b = f#1<int>(2);
              %c = f#2<uint>(1u, 2u);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        "float f(float x) { return x; }
        int f(int x) { return x; }
        [numthreads(1, 1, 1)]
        void main() { float d = f(true); }",
        expect![[r#"
            4:33: error: call to 'f' is ambiguous
              note: candidate function: 'float f(float)'
              note: candidate function: 'int f(int)'
        "#]],
    );
    check(
        "void g(float x, int y) {}
        void g(int x, float y) {}
        [numthreads(1, 1, 1)]
        void main() { g(1, 1); g(1.0f, 2, 3); g(float3(1, 2, 3)); }",
        expect![[r#"
            4:23: error: call to 'g' is ambiguous
              note: candidate function: 'void g(float, int)'
              note: candidate function: 'void g(int, float)'
            4:32: error: no matching function for call to 'g'
              note: candidate function not viable: 'void g(float, int)'
              note: candidate function not viable: 'void g(int, float)'
            4:47: error: no matching function for call to 'g'
              note: candidate function not viable: 'void g(float, int)'
              note: candidate function not viable: 'void g(int, float)'
        "#]],
    );
}

#[test]
fn prototypes_and_defaults() {
    check(
        "float scale(float x, float by = 2);
        [numthreads(1, 1, 1)]
        void main() { float a = scale(3); float b = scale(3, 4); }
        float scale(float x, float by) { return x * by; }",
        expect![[r#"
            fn main() -> void {
              local %a: float
              local %b: float
              %a = scale<float>(3.0f, 2.0f);
              %b = scale<float>(3.0f, 4.0f);
            }
            fn scale(in %x: float, in %by: float) -> float {
              return (%x * %by);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        "void missing();
        [numthreads(1, 1, 1)]
        void main() { missing(); }
        int f() { return 1; }
        int f() { return 2; }
        float f() { return 3; }",
        expect![[r#"
            5:13: error: redefinition of 'f'
            6:15: error: functions that differ only in their return type cannot be overloaded
            3:23: error: function 'missing' is used but never defined
        "#]],
    );
}

#[test]
fn recursion_is_an_error() {
    check(
        "int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
        void ping(int n);
        void pong(int n) { ping(n - 1); }
        void ping(int n) { if (n > 0) pong(n); }
        [numthreads(1, 1, 1)]
        void main() { fact(3); ping(2); }",
        expect![[r#"
            1:43: error: recursive call to 'fact' is not allowed
              note: call cycle: fact -> fact
            4:39: error: recursive call to 'pong' is not allowed
              note: call cycle: pong -> ping -> pong
        "#]],
    );
}

#[test]
fn returns() {
    check(
        "int f() { return; }
        void g() { return 1; }
        void h() {}
        void k() { return h(); }
        float3 v() { return 1; }
        [numthreads(1, 1, 1)]
        void main() { k(); v(); }",
        expect![[r#"
            1:11: error: non-void function 'f' should return a value
            2:27: error: void function 'g' should not return a value
        "#]],
    );
}

#[test]
fn entry_point() {
    check(
        "[shader(\"compute\")]
        [numthreads(8, 4, 2)]
        void main(uint3 dtid : SV_DispatchThreadID, uint2 gid : SV_GroupID,
                  uint3 gtid : sv_groupthreadid, uint index : SV_GroupIndex, int3 signed_id : SV_DispatchThreadID) {}",
        expect![[r#"
            fn main(in %dtid: uint3, in %gid: uint2, in %gtid: uint3, in %index: uint, in %signed_id: int3) -> void {
            }
            entry main: fn main, numthreads(8, 4, 2), inputs(DispatchThreadId, GroupId, GroupThreadId, GroupIndex, DispatchThreadId)
        "#]],
    );
}

#[test]
fn entry_point_errors() {
    check(
        "[numthreads(1, 1, 1)] void other() {}",
        expect![[r#"
            1:1: error: missing entry point 'main'
              note: 'other' has [numthreads]: compile with -E other, or name it in the pipeline's Entry
        "#]],
    );
    check(
        "void main() {}",
        expect![[r#"
        1:6: error: compute entry point must have a numthreads attribute
    "#]],
    );
    check(
        "[numthreads(0, 1, 1)] void main() {}",
        expect![[r#"
        1:13: error: numthreads x value 0 is out of range: must be between 1 and 1024
    "#]],
    );
    check(
        "[numthreads(1, 1, 65)] void main() {}",
        expect![[r#"
        1:19: error: numthreads z value 65 is out of range: must be between 1 and 64
    "#]],
    );
    check(
        "[numthreads(32, 32, 2)] void main() {}",
        expect![[r#"
        1:1: error: thread group size 32 x 32 x 2 = 2048 exceeds the maximum of 1024 threads
    "#]],
    );
    check(
        "[numthreads(1, 1)] void main() {}",
        expect![[r#"
        1:1: error: the numthreads attribute requires exactly 3 arguments
    "#]],
    );
    check(
        "[shader(\"pixel\")] [numthreads(1, 1, 1)] void main() {}",
        expect![[r#"
        1:1: error: entry point 'main' is compiled as a compute shader, but its shader attribute says 'pixel'
    "#]],
    );
    check(
        "[numthreads(1, 1, 1)] float main() { return 0; }",
        expect![[r#"
        1:23: error: compute entry point must return void
    "#]],
    );
    check(
        "[numthreads(1, 1, 1)] void main(uint a, float3 b : SV_DispatchThreadID, uint2 c : SV_GroupIndex, uint d : SV_Position, out uint e : SV_GroupID) {}",
        expect![[r#"
            1:33: error: entry point parameter 'a' must have a system-value semantic
            1:41: error: parameter with semantic 'SV_DispatchThreadID' must have type uint, uint2 or uint3, but has type 'float3'
            1:73: error: parameter with semantic 'SV_GroupIndex' must have type uint, but has type 'uint2'
            1:107: error: invalid semantic 'SV_Position' for a compute shader input
            1:120: error: compute shader inputs cannot be 'out' or 'inout'
        "#]],
    );
}

#[test]
fn entry_name_option() {
    check_with(
        "[numthreads(64, 1, 1)] void CSMain(uint i : SV_GroupIndex) {}",
        lockstep_sema::CompileOptions {
            entry: "CSMain".to_string(),
            ..lockstep_sema::CompileOptions::default()
        },
        expect![[r#"
            fn CSMain(in %i: uint) -> void {
            }
            entry CSMain: fn CSMain, numthreads(64, 1, 1), inputs(GroupIndex)
        "#]],
    );
}

#[test]
fn matrix_orientation() {
    check(
        "row_major float2x2 g_unused_in_globals_is_fine;
        struct T { row_major float3x3 m; float2x2 c; };
        [numthreads(1, 1, 1)]
        void main() {
            row_major float2x2 a; float2x2 b; T t;
            a = a * 2; b = a; a = b + a; t.m._m00 = 1;
        }",
        expect![[r#"
            struct $Globals { row_major float2x2 g_unused_in_globals_is_fine; }
            struct T { row_major float3x3 m; float2x2 c; }
            resource $Globals: ConstantBuffer<$Globals>, register(b0, space0) (implicit)
            fn main() -> void {
              local %a: row_major float2x2
              local %b: float2x2
              local %t: T
              %a = (%a * row_major float2x2(2.0f, 2.0f, 2.0f, 2.0f));
              %b = (float2x2)%a;
              %a = (row_major float2x2)(%b + (float2x2)%a);
              %t.m._m00 = 1.0f;
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn struct_parameters_of_the_entry_point() {
    check(
        "struct In { uint3 tid : SV_GroupThreadID; uint index : SV_GroupIndex; };\n\
         [numthreads(4, 1, 1)] void main(In i, uint3 g : SV_GroupID) {}",
        expect![[r#"
            struct In { uint3 tid; uint index; }
            fn main(in %i: In, in %g: uint3) -> void {
            }
            entry main: fn main, numthreads(4, 1, 1), inputs(GroupThreadId p0[0..3], GroupIndex p0[3..4], GroupId)
        "#]],
    );
    check(
        "struct In { uint3 tid : SV_GroupThreadID; uint extra; };\n\
         [numthreads(4, 1, 1)] void main(In i) {}",
        expect![[r#"
            2:33: error: field 'extra' of entry point parameter 'i' must have a system-value semantic
        "#]],
    );
    check(
        "struct In { float3 tid : SV_GroupThreadID; };\n\
         [numthreads(4, 1, 1)] void main(In i) {}",
        expect![[r#"
            1:26: error: parameter with semantic 'SV_GroupThreadID' must have type uint, uint2 or uint3, but has type 'float3'
        "#]],
    );
}

#[test]
fn an_undeclared_name_is_reported_once() {
    check(
        &body("uint a = foo + 1;\nuint b = foo * a;\nfoo = 3;"),
        expect![[r#"
            3:10: error: use of undeclared identifier 'foo'
        "#]],
    );
    // Nor are the uses of a variable whose declaration failed.
    check(
        &body("uint n = 4;\nuint a[2 * n];\na[0] = 1;\nuint b = a[0];"),
        expect![[r#"
            4:8: error: array size is not a constant expression
              4:12: 'n' is a variable, not a constant (declare it 'static const')
        "#]],
    );
}

#[test]
fn a_missing_entry_point_names_the_candidates() {
    check(
        "void helper() {}\n[numthreads(1, 1, 1)] void CSMain() {}\n[numthreads(2, 1, 1)] void Other() {}",
        expect![[r#"
            1:1: error: missing entry point 'main'
              note: the functions with [numthreads] are CSMain, Other: choose one with -E
        "#]],
    );
    check(
        "void helper() {}",
        expect![[r#"
            1:1: error: missing entry point 'main'
              note: no function has [numthreads]; the file defines helper (a vertex or pixel shader needs its profile, -T vs_6_0 or -T ps_6_0)
        "#]],
    );
}

/// A function template is compiled once per set of arguments, under a name
/// that shows them.
#[test]
fn function_template_instances() {
    check(
        "RWStructuredBuffer<uint> Out;\n\
         template <typename T> T twice(T x) { return x + x; }\n\
         [numthreads(1, 1, 1)]\n\
         void main() { Out[0] = twice(21u) + (uint)twice(1.5f) + twice(2u); }\n",
        expect![[r#"
            resource Out: RWStructuredBuffer<uint>, register(u0, space0) (implicit)
            fn main() -> void {
              Out[0u] = ((twice<uint><uint>(21u) + (uint)twice<float><float>(1.5f)) + twice<uint><uint>(2u));
            }
            fn twice<uint>(in %x: uint) -> uint {
              return (%x + %x);
            }
            fn twice<float>(in %x: float) -> float {
              return (%x + %x);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}
