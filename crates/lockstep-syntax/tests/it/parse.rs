//! The parser: every declaration, statement and expression form, HLSL
//! specifics, and recovery from errors.

use expect_test::expect;

use crate::check;

#[test]
fn literals_in_expressions() {
    check(
        "static const float f[] = { 1.0, 1., .5, 1e-3, 1.5f, 1.5h, 1.5L, 2.0e+3F, 0x1F, 017, 1u, 1l, 1ul, 1lu, 1ll, 1ull, 0xFFu, true, false, 'A' };\n[shader(\"com\" \"pute\")] void f() {}\n",
        expect![[r#"
            (var static const float (f[] = {1.0 1.0 0.5 0.001 1.5f 1.5h 1.5l 2000.0f 31 15 1u 1l 1ul 1ul 1ll 1ull 255u true false 65}))
            (fn [shader "compute"] void f ())
        "#]],
    );
}

#[test]
fn bad_literals_are_reported() {
    check(
        "static const uint a = 09;\nstatic const uint b = 1q;\nstatic const float c = 1.0x;\nstatic const uint d = 99999999999999999999;\n",
        expect![[r#"
        (var static const uint (a = 0))
        (var static const uint (b = 0))
        (var static const float (c = 0.0))
        (var static const uint (d = 0))
        ---
        1:23: error: invalid digit '9' in octal constant
        2:23: error: invalid suffix 'q' on integer constant
        3:24: error: invalid suffix 'x' on floating constant
        4:23: error: integer literal is too large to be represented in any integer type
    "#]],
    );
}

#[test]
fn precedence() {
    check(
        "void f() {\n    a = b || c && d | e ^ f & g == h < i << j + k * l;\n    a = b * c + d << e < f == g & h ^ i | j && k || l;\n    a = b - c - d;\n    a = b / c % d;\n    a = b = c += d;\n    a = b ? c : d ? e : f;\n    a = b ? c = 1 : d;\n    a = b, c = d;\n    a = -~!b;\n    a = ++b + c++ - --d - e--;\n    a = - -b;\n    a = b < c > d <= e >= f != g;\n    a <<= b >>= c;\n    a -= b; a *= c; a /= d; a %= e; a &= f; a |= g; a ^= h;\n}\n",
        expect![[r#"
            (fn void f ()
              (= a (|| b (&& c (| d (^ e (& f (== g (< h (<< i (+ j (* k l)))))))))))
              (= a (|| (&& (| (^ (& (== (< (<< (+ (* b c) d) e) f) g) h) i) j) k) l))
              (= a (- (- b c) d))
              (= a (% (/ b c) d))
              (= a (= b (+= c d)))
              (= a (? b c (? d e f)))
              (= a (? b (= c 1) d))
              (, (= a b) (= c d))
              (= a (- (~ (! b))))
              (= a (- (- (+ (pre++ b) (post++ c)) (pre-- d)) (post-- e)))
              (= a (- (- b)))
              (= a (!= (>= (<= (> (< b c) d) e) f) g))
              (<<= a (>>= b c))
              (-= a b)
              (*= a c)
              (/= a d)
              (%= a e)
              (&= a f)
              (|= a g)
              (^= a h))
        "#]],
    );
}

#[test]
fn postfix_members_methods_and_calls() {
    check(
        "void f() {\n    a.b.c[1][2].xyz;\n    m._m00_m11;\n    buf.Load<float2>(a);\n    buf.Load<vector<float, 2> >(a);\n    buf.Load(a).x;\n    Counter.InterlockedAdd(0, 1, old);\n    tex.GetDimensions(w, h);\n    x = a.x < b;\n    x = a.x < float(3);\n    x = a.x < b > (c);\n    f()[0];\n    i++.x;\n    WaveActiveSum(v)++;\n}\n",
        expect![[r#"
            (fn void f ()
              (. (index (index (. (. a b) c) 1) 2) xyz)
              (. m _m00_m11)
              (method buf Load<float2> a)
              (method buf Load<vector<float, 2>> a)
              (. (method buf Load a) x)
              (method Counter InterlockedAdd 0 1 old)
              (method tex GetDimensions w h)
              (= x (< (. a x) b))
              (= x (< (. a x) (ctor float 3)))
              (= x (> (< (. a x) b) c))
              (index (call f) 0)
              (. (post++ i) x)
              (post++ (call WaveActiveSum v)))
        "#]],
    );
}

#[test]
fn casts_constructors_and_parentheses() {
    check(
        "struct S { float a; };\ntypedef float4 F4;\nvoid f() {\n    a = (float)x;\n    a = (x);\n    a = (float3)(1);\n    a = (float3(1, 2, 3)).x;\n    a = (S)0;\n    a = (F4)v;\n    a = (uint[2])x;\n    a = (const uint)-1;\n    a = (unsigned int)b;\n    a = (vector<float, 3>)b;\n    a = (row_major float2x2)m;\n    a = (float2)(float)x;\n    a = (float)x.y;\n    a = (float)x * 2;\n    a = float4(v.xyz, 1);\n    a = vector<float, 2>(1, 2);\n    a = S(1);\n    a = (b) + c;\n    a = (b)(c);\n}\n",
        expect![[r#"
            (struct S
              (field float a))
            (typedef float4 F4)
            (fn void f ()
              (= a (cast float x))
              (= a x)
              (= a (cast float3 1))
              (= a (. (ctor float3 1 2 3) x))
              (= a (cast S 0))
              (= a (cast F4 v))
              (= a (cast uint[2] x))
              (= a (cast const uint (- 1)))
              (= a (cast unsigned int b))
              (= a (cast vector<float, 3> b))
              (= a (cast row_major float2x2 m))
              (= a (cast float2 (cast float x)))
              (= a (cast float (. x y)))
              (= a (* (cast float x) 2))
              (= a (ctor float4 (. v xyz) 1))
              (= a (ctor vector<float, 2> 1 2))
              (= a (ctor S 1))
              (= a (+ b c))
              (= a b)
              c)
            ---
            22:12: error: expected ';' after expression
        "#]],
    );
}

#[test]
fn templates() {
    check(
        "RWStructuredBuffer<vector<float,4>> a;\nRWStructuredBuffer<vector<float,4> > b;\nStructuredBuffer<Item> c;\nBuffer<uint> d;\nBuffer e;\nByteAddressBuffer f;\nTexture2D<float4> g;\nRWTexture2DArray<float> h;\nmatrix<float, 2 + 1, 4> i;\nvector<float, N> j;\nvector<float, (4 > 3 ? 2 : 1)> k;\nConstantBuffer<Params> l : register(b1);\nTexture2DMS<float4, 8> m;\nSamplerState s : register(s0);\nRWStructuredBuffer<RWStructuredBuffer<vector<uint, 2>>> n;\nvector v;\nmatrix mat;\nAppendStructuredBuffer<uint> o;\nConsumeStructuredBuffer<uint> p;\nTextureCube<float4> q;\n",
        expect![[r#"
            (var RWStructuredBuffer<vector<float, 4>> a)
            (var RWStructuredBuffer<vector<float, 4>> b)
            (var StructuredBuffer<Item> c)
            (var Buffer<uint> d)
            (var Buffer e)
            (var ByteAddressBuffer f)
            (var Texture2D<float4> g)
            (var RWTexture2DArray<float> h)
            (var matrix<float, (+ 2 1), 4> i)
            (var vector<float, N> j)
            (var vector<float, (? (> 4 3) 2 1)> k)
            (var ConstantBuffer<Params> (l register(b1, space0)))
            (var Texture2DMS<float4, 8> m)
            (var SamplerState (s register(s0, space0)))
            (var RWStructuredBuffer<RWStructuredBuffer<vector<uint, 2>>> n)
            (var vector v)
            (var matrix mat)
            (var AppendStructuredBuffer<uint> o)
            (var ConsumeStructuredBuffer<uint> p)
            (var TextureCube<float4> q)
        "#]],
    );
}

#[test]
fn template_errors() {
    check(
        "vector<float, 4 v;\nRWBuffer<> w;\nfloat ok;\n",
        expect![[r#"
        (var float ok)
        ---
        1:17: error: expected '>'
          1:7: note: to match this '<'
        2:10: error: expected a type
    "#]],
    );
}

#[test]
fn type_spellings() {
    check(
        "bool a; int b; uint c; dword d; half e; float f; double g; min16float h; min10float i; min16int j; min12int k; min16uint l;\nint16_t m; uint16_t n; int32_t o; uint32_t p; int64_t q; uint64_t r; float16_t s; float32_t t; float64_t u;\nfloat1 v1; uint2 v2; half3 v3; min16float4 v4; uint64_t2 v5; bool4 v6;\nfloat4x4 m1; uint2x3 m2; half1x4 m3; double3x1 m4;\nunsigned int ui; unsigned u2; row_major float4x4 rm; column_major float3x3 cm; snorm float sn; unorm float un;\n",
        expect![[r#"
            (var bool a)
            (var int b)
            (var uint c)
            (var dword d)
            (var half e)
            (var float f)
            (var double g)
            (var min16float h)
            (var min10float i)
            (var min16int j)
            (var min12int k)
            (var min16uint l)
            (var int16_t m)
            (var uint16_t n)
            (var int32_t o)
            (var uint32_t p)
            (var int64_t q)
            (var uint64_t r)
            (var float16_t s)
            (var float32_t t)
            (var float64_t u)
            (var float1 v1)
            (var uint2 v2)
            (var half3 v3)
            (var min16float4 v4)
            (var uint64_t2 v5)
            (var bool4 v6)
            (var float4x4 m1)
            (var uint2x3 m2)
            (var half1x4 m3)
            (var double3x1 m4)
            (var unsigned int ui)
            (var unsigned int u2)
            (var row_major float4x4 rm)
            (var column_major float3x3 cm)
            (var snorm float sn)
            (var unorm float un)
        "#]],
    );
}

#[test]
fn not_types() {
    check(
        "float5 a;\nfloat4x5 b;\nfloat0 c;\nint1x1 ok;\n",
        expect![[r#"
        (var float5 a)
        (var float4x5 b)
        (var float0 c)
        (var int1x1 ok)
        ---
        1:1: error: unknown type name 'float5'
        2:1: error: unknown type name 'float4x5'
        3:1: error: unknown type name 'float0'
    "#]],
    );
}

#[test]
fn global_declarations() {
    check(
        "static const uint N = 4, M = 8;\ngroupshared float s[64][2];\nuniform float u;\nextern float e;\nfloat a[] = { 1, 2, { 3, 4 }, };\nfloat b[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };\nstatic float3 v = float3(1, 2, 3), w;\ngloballycoherent RWByteAddressBuffer g : register(u2, space3);\nprecise float p;\nnointerpolation float q;\nfloat linear;\n;\n",
        expect![[r#"
            (var static const uint (N = 4) (M = 8))
            (var groupshared float (s[64][2]))
            (var uniform float u)
            (var extern float e)
            (var float (a[] = {1 2 {3 4}}))
            (var float (b[2][3] = {{1 2 3} {4 5 6}}))
            (var static float3 (v = (ctor float3 1 2 3)) w)
            (var globallycoherent RWByteAddressBuffer (g register(u2, space3)))
            (var precise float p)
            (var nointerpolation float q)
            (var float linear)
        "#]],
    );
}

#[test]
fn registers_semantics_packoffset() {
    check(
        "RWBuffer<uint> a : register(u0);\nRWBuffer<uint> b : register(U7, space2);\nTexture2D c : register(t3) : SOMETHING;\nSamplerState d : register(ps_6_0, s1);\ncbuffer P : register(b0, space1) { float4 x : packoffset(c0); float y : packoffset(c1.y); uint z; };\nRWBuffer<uint> e : register(x0);\nRWBuffer<uint> f : register(u0, spacex);\nRWBuffer<uint> g : register(uu);\nRWBuffer<uint> h : register(space1);\n",
        expect![[r#"
            (var RWBuffer<uint> (a register(u0, space0)))
            (var RWBuffer<uint> (b register(u7, space2)))
            (var Texture2D (c register(t3, space0) : SOMETHING))
            (var SamplerState (d register(s1, space0)))
            (cbuffer P register(b0, space1)
              (var float4 (x packoffset(c0)))
              (var float (y packoffset(c1.y)))
              (var uint z))
            (var RWBuffer<uint> e)
            (var RWBuffer<uint> f)
            (var RWBuffer<uint> g)
            (var RWBuffer<uint> h)
            ---
            6:29: error: invalid register specification, expected 'b', 'c', 's', 't', or 'u' binding
            7:33: error: invalid space specifier 'spacex' used; expected 'space' followed by an integer, like space1
            8:29: error: invalid register specification, expected 'b', 'c', 's', 't', or 'u' binding
            9:20: error: expected register name
        "#]],
    );
}

#[test]
fn cbuffers() {
    check(
        "cbuffer A { float a; }\ncbuffer B : register(b3) { row_major float4x4 m; uint n[4]; static const uint k = 2; };\ntbuffer T : register(t1) { float4 t; }\ncbuffer Empty {};\ncbuffer Bad : x { float z; };\ncbuffer C { float c; int = 3; float d; };\n",
        expect![[r#"
            (cbuffer A
              (var float a))
            (cbuffer B register(b3, space0)
              (var row_major float4x4 m)
              (var uint (n[4]))
              (var static const uint (k = 2)))
            (tbuffer T register(t1, space0)
              (var float4 t))
            (cbuffer Empty)
            (cbuffer C
              (var float c)
              (var float d))
            ---
            5:15: error: expected 'register'
            6:26: error: expected identifier
        "#]],
    );
}

#[test]
fn structs() {
    check(
        "struct Item { uint key; float value; };\nstruct Multi { float a, b[2]; nointerpolation float3 n : NORMAL; precise float p; row_major float4x4 m; Item nested; };\nstruct WithVar { int x; } instance, many[2];\nstruct Fwd;\nstruct Item copy;\nItem other;\nStructuredBuffer<Item> buf;\nstruct Empty {};\nstruct Method { float f() { return 1; } float after; };\nstruct Derived : Item { };\nstruct { float x; } anon;\nstruct Missing { float a; }\nfloat follows;\n",
        expect![[r#"
            (struct Item
              (field uint key)
              (field float value))
            (struct Multi
              (field float a)
              (field float b[2])
              (field nointerpolation float3 n : NORMAL)
              (field precise float p)
              (field row_major float4x4 m)
              (field Item nested))
            (struct WithVar
              (field int x))
            (var WithVar instance (many[2]))
            (var Item copy)
            (var Item other)
            (var StructuredBuffer<Item> buf)
            (struct Empty)
            (struct Method
              (field float after))
            (fn float Method.f ((inout Method this)) proto)
            (fn float Method.f ((inout Method this))
              (return 1))
            (struct Derived : Item)
            (struct Missing
              (field float a))
            (var float follows)
            ---
            11:8: error: anonymous structs are not supported
            12:28: error: expected ';' after struct
        "#]],
    );
}

#[test]
fn typedefs() {
    check(
        "typedef float4 F4;\ntypedef vector<float, 3> V3, Other;\ntypedef uint Arr[4];\ntypedef const float CF;\nF4 a;\nV3 b;\nOther c;\nvoid f(F4 p) { F4 local = (F4)0; Arr x; }\ntypedef 3 bad;\n",
        expect![[r#"
            (typedef float4 F4)
            (typedef vector<float, 3> V3)
            (typedef vector<float, 3> Other)
            (typedef uint Arr[4])
            (typedef const float CF)
            (var F4 a)
            (var V3 b)
            (var Other c)
            (fn void f ((F4 p))
              (var F4 (local = (cast F4 0)))
              (var Arr x))
            ---
            9:9: error: expected a type
        "#]],
    );
}

#[test]
fn functions() {
    check(
        "uint helper(in uint a, out uint b, inout float c, in out float d, uniform float e, const uint f = 2, float g[4] : G);\nvoid none(void) {}\nfloat4 ps(float4 p : SV_Position) : SV_Target { return p; }\nstatic inline float sq(float x) { return x * x; }\nexport const float k() { return 1; }\n[numthreads(8, 8, 1)] [WaveSize(32)]\nvoid main(uint3 id : SV_DispatchThreadID) {}\n[shader(\"compute\")]\n[numthreads(64, 1, 1)]\nvoid entry() {}\n[[vk::binding(0, 1)]] RWBuffer<uint> vkb;\n[[maybe_unused]] RWBuffer<uint> other;\nfloat proto(float, int);\n",
        expect![[r#"
            (fn uint helper ((uint a) (out uint b) (inout float c) (inout float d) (uniform float e) (const uint f = 2) (float g[4] : G)) proto)
            (fn void none ())
            (fn float4 ps ((float4 p : SV_Position)) : SV_Target
              (return p))
            (fn static inline float sq ((float x))
              (return (* x x)))
            (fn export const float k ()
              (return 1))
            (fn [numthreads 8 8 1] [WaveSize 32] void main ((uint3 id : SV_DispatchThreadID)))
            (fn [shader "compute"] [numthreads 64 1 1] void entry ())
            (var RWBuffer<uint> vkb)
            (var RWBuffer<uint> other)
            (fn float proto ((float) (int)) proto)
            ---
            12:1: warning: attributes on variable declarations are ignored
        "#]],
    );
}

#[test]
fn statements() {
    check(
        "void f() {\n    ;\n    {}\n    { int a; { a = 1; } }\n    if (a) b = 1;\n    if (a) b = 1; else if (c) b = 2; else b = 3;\n    if (a) if (b) c = 1; else c = 2;\n    for (;;) break;\n    for (int i = 0, j = 1; i < j; i++, j--) continue;\n    for (i = 0; ; ) {}\n    while (a) a--;\n    do { a++; } while (a < 10);\n    return;\n    return a + 1;\n    discard;\n    [unroll] for (uint k = 0; k < 4; ++k) {}\n    [unroll(4)] [fastopt] while (true) {}\n    [loop] do {} while (false);\n    [branch] if (a) {} else {}\n    [flatten] if (a) {}\n    [forcecase] switch (a) { default: break; }\n    static const uint s = 1;\n    const float c = 2, d[2] = { 1, 2 };\n    float3 v = 1, w;\n    float4x4 m;\n    Item it;\n    unsigned int u = 1u;\n    vector<float, 2> vv;\n    RWStructuredBuffer<uint> local;\n}\n",
        expect![[r#"
            (fn void f ()
              (empty)
              (block)
              (block
                (var int a)
                (block
                  (= a 1)))
              (if a
                (= b 1))
              (if a
                (= b 1)
                (if c
                  (= b 2)
                  (= b 3)))
              (if a
                (if b
                  (= c 1)
                  (= c 2)))
              (for (empty) _ _
                (break))
              (for (var int (i = 0) (j = 1)) (< i j) (, (post++ i) (post-- j))
                (continue))
              (for (= i 0) _ _
                (block))
              (while a
                (post-- a))
              (do-while (< a 10)
                (block
                  (post++ a)))
              (return)
              (return (+ a 1))
              (discard)
              [unroll] (for (var uint (k = 0)) (< k 4) (pre++ k)
                (block))
              [unroll 4] [fastopt] (while true
                (block))
              [loop] (do-while false
                (block))
              [branch] (if a
                (block)
                (block))
              [flatten] (if a
                (block))
              [forcecase] (switch a
                (case default
                  (break)))
              (var static const uint (s = 1))
              (var const float (c = 2) (d[2] = {1 2}))
              (var float3 (v = 1) w)
              (var float4x4 m)
              (var Item it)
              (var unsigned int (u = 1u))
              (var vector<float, 2> vv)
              (var RWStructuredBuffer<uint> local))
            ---
            26:5: error: unknown type name 'Item'
        "#]],
    );
}

#[test]
fn switch_fallthrough_grouping() {
    check(
        "void f(int x) {\n    switch (x) {\n    case 0:\n    case 1:\n        a();\n    case 2:\n        b();\n        break;\n    case 1 + 2:\n    case N:\n    case (4):\n    default:\n        c();\n    case -1: { d(); }\n        e();\n        return;\n    }\n    switch (x) {}\n    switch (x) { stray(); case 0: break; }\n    switch (x) { case 0 a(); case 1: break; }\n}\n",
        expect![[r#"
            (fn void f ((int x))
              (switch x
                (case 0 1
                  (call a))
                (case 2
                  (call b)
                  (break))
                (case (+ 1 2) N 4 default
                  (call c))
                (case (- 1)
                  (block
                    (call d))
                  (call e)
                  (return)))
              (switch x)
              (switch x
                (case 0
                  (break)))
              (switch x
                (case 1
                  (break))))
            ---
            19:18: warning: statement before the first 'case' label will never be executed
            20:25: error: expected ':' after 'case'
        "#]],
    );
}

#[test]
fn unknown_type_names() {
    check(
        "flaot g;\nvoid f() {\n    flaot x = 1;\n    Foo y;\n    x = 1;\n}\nFoo bar() { return 0; }\n",
        expect![[r#"
            (var flaot g)
            (fn void f ()
              (var flaot (x = 1))
              (var Foo y)
              (= x 1))
            (fn Foo bar ()
              (return 0))
            ---
            1:1: error: unknown type name 'flaot'
            3:5: error: unknown type name 'flaot'
            4:5: error: unknown type name 'Foo'
            7:1: error: unknown type name 'Foo'
        "#]],
    );
}

#[test]
fn statement_errors() {
    check(
        "void f() {\n    if a) {}\n    if (a {}\n    while (a) \n    for (int i = 0 i < 1; i++) {}\n    do a++; (a);\n    return 1\n    x = 2;\n    break\n    default: ;\n    case 1: ;\n    struct L { int a; };\n    typedef int T;\n    int g() { }\n    a = b ? c;\n    a = (1;\n    a = [1];\n    else a = 1;\n    float float = 1;\n}\n",
        expect![[r#"
            (struct f::L
              (field int a))
            (typedef int f::T)
            (fn void f ()
              (while a
                (for (var int (i = 0)) (< i 1) (post++ i)
                  (block)))
              (return 1)
              (= x 2)
              (break)
              (empty)
              (empty))
            ---
            2:8: error: expected '(' after 'if'
            3:11: error: expected ')'
              3:8: note: to match this '('
            5:19: error: expected ';' in 'for' statement specifier
            6:13: error: expected 'while' in do/while loop
            7:13: error: expected ';' after return statement
            9:10: error: expected ';' after break statement
            10:5: error: 'default' statement not in switch statement
            11:5: error: 'case' statement not in switch statement
            14:10: error: function declarations are not allowed inside a function
            15:14: error: expected ':'
              15:11: note: to match this '?'
            16:11: error: expected ')'
              16:9: note: to match this '('
            17:9: error: expected expression
            18:5: error: expected expression
            19:11: error: expected identifier
        "#]],
    );
}

#[test]
fn top_level_errors() {
    check(
        "}\nint 3;\nnamespace N { int x; }\ntemplate<typename T> T id(T x) { return x; }\nvoid f() {\nfloat after;\n",
        expect![[r#"
            (var int N::x)
            (fn template<typename T> T id ((T x))
              (return x))
            (fn void f ()
              (var float after))
            ---
            1:1: error: extraneous closing brace ('}')
            2:5: error: expected identifier
            7:1: error: expected '}'
              5:10: note: to match this '{'
        "#]],
    );
}

#[test]
fn missing_semicolons_do_not_lose_statements() {
    check(
        "void f() {\n    a = 1\n    b = 2\n    int c\n    return\n}\nfloat x\nfloat y;\n",
        expect![[r#"
        (fn void f ()
          (= a 1)
          (= b 2)
          (var int c))
        (var float x)
        (var float y)
        ---
        2:10: error: expected ';' after expression
        3:10: error: expected ';' after expression
        4:10: error: expected ';' at end of declaration
        6:1: error: expected expression
        7:8: error: expected ';' after top level declarator
    "#]],
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!(
        "void f() {{ a = {}1{}; b = 1; }}\n",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let out = crate::ast_and_diags(&[(crate::MAIN, &deep)], &Default::default());
    expect![[r#"
        (fn void f ()
          (= b 1))
        ---
        1:270: error: nesting level exceeded maximum of 256 (brackets, unary operators and statements inside one another)
    "#]]
    .assert_eq(&out);

    let blocks = format!(
        "void f() {{ {} }}\nfloat ok;\n",
        "{".repeat(5_000) + &"}".repeat(5_000)
    );
    let out = crate::ast_and_diags(&[(crate::MAIN, &blocks)], &Default::default());
    let diagnostics = &out[out.find("---").unwrap_or(0)..];
    expect![[r#"
        ---
        1:139: error: nesting level exceeded maximum of 256 (brackets, unary operators and statements inside one another)
    "#]]
    .assert_eq(diagnostics);
    assert!(out.contains("(var float ok)"));

    let unary = format!("void f() {{ a = {}1; }}\n", "-".repeat(10_000));
    let out = crate::ast_and_diags(&[(crate::MAIN, &unary)], &Default::default());
    expect![[r#"
        (fn void f ())
        ---
        1:524: error: nesting level exceeded maximum of 256 (brackets, unary operators and statements inside one another)
    "#]]
    .assert_eq(&out);
}

#[test]
fn long_operator_chains_are_limited() {
    let ok = format!("void f() {{ a = 1{}; }}\n", " + 1".repeat(500));
    let out = crate::ast_and_diags(&[(crate::MAIN, &ok)], &Default::default());
    assert!(
        !out.contains("error"),
        "{}",
        &out[out.len().saturating_sub(200)..]
    );

    let long = format!("void f() {{ a = 1{}; b = 2; }}\n", " + 1".repeat(100_000));
    let out = crate::ast_and_diags(&[(crate::MAIN, &long)], &Default::default());
    expect![[r#"
        (fn void f ()
          (= b 2))
        ---
        1:12: error: expression nesting depth exceeds maximum of 4096
    "#]]
    .assert_eq(&out);

    let members = format!("void f() {{ a = b{}; }}\n", ".x".repeat(100_000));
    let out = crate::ast_and_diags(&[(crate::MAIN, &members)], &Default::default());
    expect![[r#"
        (fn void f ())
        ---
        1:12: error: expression nesting depth exceeds maximum of 4096
    "#]]
    .assert_eq(&out);
}

#[test]
fn step_limit_stops_a_runaway_lookahead() {
    // Deciding whether `(vector<…` is a cast scans ahead without consuming
    // tokens; far past any real shader, the step limit ends the parse.
    let text = format!(
        "void f() {{ a = (vector<float, {}1>)b; }}\nfloat after;\n",
        "1 + ".repeat(60_000)
    );
    let out = crate::ast_and_diags(&[(crate::MAIN, &text)], &Default::default());
    expect![[r#"
        (fn void f ())
        ---
        3:1: error: expected expression
        3:1: error: expected '}'
          1:10: note: to match this '{'
        1:16: error: parser step limit exceeded
    "#]]
    .assert_eq(&out);
}
