//! Expressions: literal typing, arithmetic conversions, operators,
//! swizzles, constructors, casts, assignments and access paths.

use expect_test::expect;

use crate::{body, check};

#[test]
fn smoke() {
    check(
        &body("float x = 1; int i = 2; uint u = 3; x = x + i * u;"),
        expect![[r#"
            fn main() -> void {
              local %x: float
              local %i: int
              local %u: uint
              %x = 1.0f;
              %i = 2;
              %u = 3u;
              %x = (%x + (float)((uint)%i * %u));
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn literal_typing() {
    check(
        &body(
            "int i; uint u; float f; double d;
            u = u + 1; f = i + 1.5; f = f * 2; d = d + 1.5; i = 1 + 2 * 3;
            int a = WaveReadLaneFirst(5);
            uint b = WaveReadLaneFirst(0xFFFFFFFF);
            int64_t c = WaveReadLaneFirst(5000000000);
            float e = WaveReadLaneFirst(1.5);
            uint64_t g = WaveReadLaneFirst(18446744073709551615);",
        ),
        expect![[r#"
            fn main() -> void {
              local %i: int
              local %u: uint
              local %f: float
              local %d: double
              local %a: int
              local %b: uint
              local %c: int64_t
              local %e: float
              local %g: uint64_t
              %u = (%u + 1u);
              %f = ((float)%i + 1.5f);
              %f = (%f * 2.0f);
              %d = (%d + 1.5L);
              %i = 7;
              %a = WaveReadLaneFirst<int>(5);
              %b = WaveReadLaneFirst<uint>(4294967295u);
              %c = WaveReadLaneFirst<int64_t>(5000000000l);
              %e = WaveReadLaneFirst<float>(1.5f);
              %g = WaveReadLaneFirst<uint64_t>(18446744073709551615ul);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn literal_suffixes() {
    check(
        &body(
            "WaveReadLaneFirst(1u); WaveReadLaneFirst(1l); WaveReadLaneFirst(1ul); WaveReadLaneFirst(1ll); WaveReadLaneFirst(1ull); WaveReadLaneFirst(1.5f); WaveReadLaneFirst(1.5h); WaveReadLaneFirst(1.5L); WaveReadLaneFirst(0x10); WaveReadLaneFirst(010); WaveReadLaneFirst(true);",
        ),
        expect![[r#"
            fn main() -> void {
              WaveReadLaneFirst<uint>(1u);
              WaveReadLaneFirst<int64_t>(1l);
              WaveReadLaneFirst<uint64_t>(1ul);
              WaveReadLaneFirst<int64_t>(1l);
              WaveReadLaneFirst<uint64_t>(1ul);
              WaveReadLaneFirst<float>(1.5f);
              WaveReadLaneFirst<float>(1.5f);
              WaveReadLaneFirst<double>(1.5L);
              WaveReadLaneFirst<int>(16);
              WaveReadLaneFirst<int>(8);
              WaveReadLaneFirst<bool>(true);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn arithmetic_conversions() {
    check(
        &body(
            "int i; uint u; float f; int64_t l; uint64_t ul; double d; half h; bool b;
            WaveReadLaneFirst(i + u); WaveReadLaneFirst(i + f); WaveReadLaneFirst(u + l);
            WaveReadLaneFirst(l + ul); WaveReadLaneFirst(ul + h); WaveReadLaneFirst(f + d);
            WaveReadLaneFirst(b + b); WaveReadLaneFirst(b == b); WaveReadLaneFirst(-b);",
        ),
        expect![[r#"
            fn main() -> void {
              local %i: int
              local %u: uint
              local %f: float
              local %l: int64_t
              local %ul: uint64_t
              local %d: double
              local %h: float
              local %b: bool
              WaveReadLaneFirst<uint>(((uint)%i + %u));
              WaveReadLaneFirst<float>(((float)%i + %f));
              WaveReadLaneFirst<int64_t>(((int64_t)%u + %l));
              WaveReadLaneFirst<uint64_t>(((uint64_t)%l + %ul));
              WaveReadLaneFirst<float>(((float)%ul + %h));
              WaveReadLaneFirst<double>(((double)%f + %d));
              WaveReadLaneFirst<int>(((int)%b + (int)%b));
              WaveReadLaneFirst<bool>((%b == %b));
              WaveReadLaneFirst<int>(-(int)%b);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn vector_shapes() {
    check(
        &body(
            "float4 a; float3 b; int2 c; float s;
            float3 r = a + b;
            float4 t = a * 2;
            float2 m = c * s;
            float3 w = a;
            bool3 cmp = b < 1;",
        ),
        expect![[r#"
            4:24: warning: implicit truncation of vector type
            7:24: warning: implicit truncation of vector type
            fn main() -> void {
              local %a: float4
              local %b: float3
              local %c: int2
              local %s: float
              local %r: float3
              local %t: float4
              local %m: float2
              local %w: float3
              local %cmp: bool3
              %r = (%a.xyz + %b);
              %t = (%a * float4(2.0f, 2.0f, 2.0f, 2.0f));
              %m = ((float2)%c * splat<float2>(%s));
              %w = %a.xyz;
              %cmp = (%b < float3(1.0f, 1.0f, 1.0f));
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn vector_widening_is_an_error() {
    check(
        &body("float2 a; float4 b = a;"),
        expect![[r#"
        3:22: error: cannot convert from 'float2' to 'float4'
    "#]],
    );
}

#[test]
fn logical_and_conditional() {
    check(
        &body(
            "int a; float b; float3 v;
            bool r = a && b;
            r = !a || (b > 0);
            float c = a ? b : 2;
            bool3 n = !v;",
        ),
        expect![[r#"
            fn main() -> void {
              local %a: int
              local %b: float
              local %v: float3
              local %r: bool
              local %c: float
              local %n: bool3
              %r = ((bool)%a && (bool)%b);
              %r = (!(bool)%a || (%b > 0.0f));
              %c = ((bool)%a ? %b : 2.0f);
              %n = !(bool3)%v;
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        &body("float3 v; bool3 r = v && v; float3 s = v ? v : v;"),
        expect![[r#"
            3:21: error: operands for short-circuiting logical binary operator must be scalar, for non-scalar types use 'and'
            3:40: error: condition for short-circuiting ternary operator must be scalar, for non-scalar types use 'select'
        "#]],
    );
}

#[test]
fn integer_operators() {
    check(
        &body(
            "int i; uint u; float f;
            i = i % 3; f = f % 2.5; u = u << 2; i = 1 << u; u = u & 0xFF; i = ~i; u = u / 0; i = i % 0;",
        ),
        expect![[r#"
            4:87: warning: division by zero is undefined
            4:98: warning: remainder by zero is undefined
            fn main() -> void {
              local %i: int
              local %u: uint
              local %f: float
              %i = (%i % 3);
              %f = fmod<float>(%f, 2.5f);
              %u = (%u << 2u);
              %i = (1 << (int)%u);
              %u = (%u & 255u);
              %i = ~%i;
              %u = (%u / 0u);
              %i = (%i % 0);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        &body("float f; f = f & 1; f = ~f; f = f << 1;"),
        expect![[r#"
        3:14: error: invalid operands to binary expression ('float' and 'int')
        3:25: error: invalid argument type 'float' to unary expression
        3:33: error: invalid operands to binary expression ('float' and 'int')
    "#]],
    );
}

#[test]
fn swizzles() {
    check(
        &body(
            "float4 v; float f; float2x3 m;
            float2 a = v.xy; float3 b = v.bgr; float4 c = f.xxxx; float d = v.w;
            v.zx = a; v.w = 1; v.xy.y = 2;
            float2 e = m._m01_m12; float g = m._11; m._m00_m12 = a;",
        ),
        expect![[r#"
            fn main() -> void {
              local %v: float4
              local %f: float
              local %m: float2x3
              local %a: float2
              local %b: float3
              local %c: float4
              local %d: float
              local %e: float2
              local %g: float
              %a = %v.xy;
              %b = %v.zyx;
              %c = splat<float4>(%f);
              %d = %v.w;
              %v.zx = %a;
              %v.w = 1.0f;
              %v.y = 2.0f;
              %e = %m._m01_m12;
              %g = %m._m00;
              %m._m00_m12 = %a;
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn bad_swizzles() {
    check(
        &body(
            "float4 v; float2 w; v.xx = w; v.xr; w.z; v.xyzwx; float2x2 m; m._m22; m._11_m00; v.q;",
        ),
        expect![[r#"
            3:21: error: vector is not assignable (contains duplicate components)
            3:33: error: illegal vector component name 'r'
            3:39: error: vector component access exceeds type 'float2'
            3:44: error: vector swizzle 'xyzwx' has more than 4 components
            3:65: error: matrix swizzle '_m22' is out of bounds for 'float2x2'
            3:73: error: invalid matrix swizzle '_11_m00' on 'float2x2'
            3:84: error: illegal vector component name 'q'
        "#]],
    );
}

#[test]
fn constructors() {
    check(
        &body(
            "float2 a; int i;
            float4 v = float4(a.xy, 0, 1);
            float4 w = float4(a, a);
            float4 c = float4(1, 2, 3, 4);
            int3 n = int3(a, i);
            float s = float(i);
            float2x2 m = float2x2(1, 2, a);
            vector<float, 3> t = vector<float, 3>(a, 1);",
        ),
        expect![[r#"
            fn main() -> void {
              local %a: float2
              local %i: int
              local %v: float4
              local %w: float4
              local %c: float4
              local %n: int3
              local %s: float
              local %m: float2x2
              local %t: float3
              %v = float4(%a.xy, 0.0f, 1.0f);
              %w = float4(%a, %a);
              %c = float4(1.0f, 2.0f, 3.0f, 4.0f);
              %n = int3((int2)%a, %i);
              %s = (float)%i;
              %m = float2x2(1.0f, 2.0f, %a);
              %t = float3(%a, 1.0f);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        &body("float2 a; float4 v = float4(a, 1); float3 w = float3(a, a); float4 z = float4(1);"),
        expect![[r#"
            3:22: error: too few elements in vector initialization (expected 4 elements, have 3)
            3:47: error: too many elements in vector initialization (expected 3 elements, have 4)
            3:72: error: too few elements in vector initialization (expected 4 elements, have 1)
        "#]],
    );
}

#[test]
fn casts() {
    check(
        "struct S { float a; int b[2]; };
        [numthreads(1, 1, 1)]
        void main() {
            float f; float4 v; int i;
            float3 a = (float3)f;
            int b = (int)f;
            float2 c = (float2)v;
            S s = (S)0;
            uint u = (uint)-1;
            float2x2 m = (float2x2)v;
        }",
        expect![[r#"
            struct S { float a; int[2] b; }
            fn main() -> void {
              local %f: float
              local %v: float4
              local %i: int
              local %a: float3
              local %b: int
              local %c: float2
              local %s: S
              local %u: uint
              local %m: float2x2
              %a = splat<float3>(%f);
              %b = (int)%f;
              %c = %v.xy;
              %s = S(0.0f, 0, 0);
              %u = 4294967295u;
              %m = float2x2(%v);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn assignments() {
    check(
        &body(
            "int i; float f; float3 v; int j;
            i += 2; f *= i; v += 1; i <<= 1; i = j = 3;
            ++i; i--; j = i++; f -= 0.5;
            i = (f = 2, 5);",
        ),
        expect![[r#"
            fn main() -> void {
              local %i: int
              local %f: float
              local %v: float3
              local %j: int
              %i = (%i + 2);
              %f = (%f * (float)%i);
              %v = (%v + float3(1.0f, 1.0f, 1.0f));
              %i = (%i << 1);
              %i = (%j = 3);
              %i = (%i + 1);
              (%i = (%i - 1), yield old);
              %j = (%i = (%i + 1), yield old);
              %f = (%f - 0.5f);
              %i = ((%f = 2.0f), 5);
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn assignment_errors() {
    check(
        &body(
            "int i; const int k = 1; 1 = i; (i + 1) = 2; k = 3; i++ = 2; float3 v; (v + v).x = 1; ++(i + 1);",
        ),
        expect![[r#"
            3:25: error: cannot assign to a non-lvalue
            3:33: error: cannot assign to a non-lvalue
            3:45: error: cannot assign to variable 'k' with const-qualified type
            3:52: error: cannot assign to a non-lvalue
            3:72: error: cannot assign to a non-lvalue
            3:89: error: cannot assign to a non-lvalue
        "#]],
    );
}

#[test]
fn indexing() {
    check(
        &body(
            "float a[4]; int b[2][3]; float4 v; float4x4 m; uint i;
            float x = a[i]; int y = b[1][i]; float z = v[2]; float4 row = m[1]; float e = m[i][3];
            a[0] = 1; b[i][2] = 3; v[i] = 4; m[0][1] = 5; m[2] = v;",
        ),
        expect![[r#"
            fn main() -> void {
              local %a: float[4]
              local %b: int[3][2]
              local %v: float4
              local %m: float4x4
              local %i: uint
              local %x: float
              local %y: int
              local %z: float
              local %row: float4
              local %e: float
              %x = %a[%i];
              %y = %b[1u][%i];
              %z = %v[2u];
              %row = %m[1u];
              %e = %m[%i][3u];
              %a[0u] = 1.0f;
              %b[%i][2u] = 3;
              %v[%i] = 4.0f;
              %m[0u][1u] = 5.0f;
              %m[2u] = %v;
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
    check(
        &body("float a[4]; float4 v; float f; a[4] = 1; v[-1]; f[0]; a[1.5];"),
        expect![[r#"
        3:34: error: index 4 is out of bounds (the size is 4)
        3:44: error: index -1 is out of bounds (the size is 4)
        3:49: error: subscripted value is not an array, matrix, or vector
        3:57: error: array subscript is not an integer (has type 'float')
    "#]],
    );
}

#[test]
fn struct_members() {
    check(
        "struct Inner { float2 p; };
        struct S { int n; Inner inner[2]; };
        [numthreads(1, 1, 1)]
        void main() {
            S s;
            s.n = 1;
            s.inner[1].p.y = 2;
            float2 q = s.inner[0].p;
        }",
        expect![[r#"
            struct Inner { float2 p; }
            struct S { int n; Inner[2] inner; }
            fn main() -> void {
              local %s: S
              local %q: float2
              %s.n = 1;
              %s.inner[1u].p.y = 2.0f;
              %q = %s.inner[0u].p;
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}

#[test]
fn unknown_member() {
    check(
        "struct S { int n; };
        [numthreads(1, 1, 1)]
        void main() { S s; s.missing = 1; int i; i.n = 2; }",
        expect![[r#"
            3:30: error: no member named 'missing' in 'S'
            3:52: error: illegal vector component name 'n'
        "#]],
    );
}

#[test]
fn undeclared_identifiers() {
    check(
        &body("int x = foo + 1; Foo(2); x = bar.y;"),
        expect![[r#"
        3:9: error: use of undeclared identifier 'foo'
        3:18: error: use of undeclared identifier 'Foo'
        3:30: error: use of undeclared identifier 'bar'
    "#]],
    );
}

#[test]
fn conditional_with_literal_arms() {
    check(
        &body("uint n; bool b = n ? 1 : 0; float f = n > 2 ? 1.5 : 2; int k = true ? 3 : 4;"),
        expect![[r#"
            fn main() -> void {
              local %n: uint
              local %b: bool
              local %f: float
              local %k: int
              %b = (bool)((bool)%n ? 1 : 0);
              %f = ((%n > 2u) ? 1.5f : 2.0f);
              %k = 3;
            }
            entry main: fn main, numthreads(1, 1, 1), inputs()
        "#]],
    );
}
