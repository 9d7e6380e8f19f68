//! HLSL language features end to end, with hand-derived expectations:
//! structs, matrices, arrays, swizzles, parameters, resources and their
//! layouts, atomics, the preprocessor.

use lockstep::pipeline::Kind;
use lockstep::{CompileOptions, MemoryLoader, RunOptions};

use crate::harness::{buf, pipeline, run_words};

fn single(source: &str, n: usize) -> Vec<u32> {
    run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; n])],
        8,
    )
    .remove(0)
}

#[test]
fn structs_arrays_swizzles_and_parameters() {
    let source = r#"
struct Pair { uint a; uint2 b; };
typedef uint Word;
static const Word kTable[4] = { 10, 20, 30, 40 };
RWStructuredBuffer<uint> Out : register(u0);

void twice(inout uint x, out uint y) { y = x * 2; x += 1; }

[numthreads(4, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    Pair p;
    p.a = gi;
    p.b = uint2(5, 6);
    p.b.yx = p.b;             // swizzle write: b = (6, 5)
    uint arr[4];
    for (uint i = 0; i < 4; ++i)
        arr[i] = kTable[(i + gi) % 4];
    uint y;
    uint x = arr[gi];          // dynamic index: kTable[(2 * gi) % 4]
    twice(x, y);
    uint4 v = uint4(p.b, p.a, 1);
    Out[gi] = v.x * 1000000 + v.y * 100000 + v.z * 10000 + x * 10 + (y == (x - 1) * 2);
}
"#;
    // x = kTable[(2gi) % 4] + 1, y = 2 * (x - 1).
    let want: Vec<u32> = (0..4u32)
        .map(|g| {
            6_000_000 + 500_000 + g * 10_000 + ([10, 20, 30, 40][(2 * g as usize) % 4] + 1) * 10 + 1
        })
        .collect();
    assert_eq!(single(source, 4), want);
}

#[test]
fn matrices_and_mul() {
    let source = r#"
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main()
{
    float2x3 m = float2x3(1, 2, 3,
                          4, 5, 6);
    float3 v = float3(1, 0, -1);
    float2 mv = mul(m, v);                 // (1 - 3, 4 - 6) = (-2, -2)
    float2 vm = mul(float2(1, 1), m);      // (5, 7, 9)
    float3x2 t = transpose(m);
    Out[0] = float4(mv, m[1].z, t[2].x);   // (-2, -2, 6, 3)
    Out[1] = float4(vm.xy, dot(v, v), m._m12);
}
"#;
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 8])],
        4,
    )
    .remove(0);
    let f: Vec<f32> = out.iter().map(|&b| f32::from_bits(b)).collect();
    assert_eq!(f, [-2.0, -2.0, 6.0, 3.0, 5.0, 7.0, 2.0, 6.0]);
}

#[test]
fn structured_buffer_of_structs_and_cbuffer_packing() {
    let source = r#"
struct Item { uint key; float3 pos; uint2 extra; };   // 4 + 12 + 8 = 24 bytes
StructuredBuffer<Item> Items : register(t0);
cbuffer Params : register(b0)
{
    uint count;       // offset 0
    float3 scale;     // offset 4: fits in the first register
    float2 bias;      // offset 16: a new register
    uint tail;        // offset 24
};
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(2, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    Item it = Items[gi];
    Out[gi] = it.key + uint(it.pos.y * scale.z) + it.extra.y + count + uint(bias.y) + tail;
}
"#;
    let f = |x: f32| x.to_bits();
    // Item 0: key 1, pos (0, 2, 0), extra (0, 100); item 1: key 2, pos (0, 3, 0), extra (0, 200).
    let items = vec![
        1,
        f(0.0),
        f(2.0),
        f(0.0),
        0,
        100,
        2,
        f(0.0),
        f(3.0),
        f(0.0),
        0,
        200,
    ];
    // count = 1000, scale = (0, 0, 10), bias = (0, 5), tail = 7: 32 bytes.
    let params = vec![1000, f(0.0), f(0.0), f(10.0), f(0.0), f(5.0), 7, 0];
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("Items", Kind::StructuredBuffer, 0, items),
            buf("Params", Kind::ConstantBuffer, 0, params),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 2]),
        ],
        4,
    );
    assert_eq!(
        out[2],
        [1 + 20 + 100 + 1000 + 5 + 7, 2 + 30 + 200 + 1000 + 5 + 7]
    );
}

#[test]
fn byte_address_buffers_and_get_dimensions() {
    let source = r#"
ByteAddressBuffer In : register(t0);
RWByteAddressBuffer Raw : register(u0);
RWStructuredBuffer<uint2> Out : register(u1);
[numthreads(1, 1, 1)]
void main()
{
    uint4 q = In.Load4(0);
    uint2 d = In.Load2(8);
    float f = In.Load<float>(16);
    Raw.Store(0, q.x + q.w);
    Raw.Store2(4, d.yx);
    Raw.Store<float>(12, f * 2);
    uint bytes;
    In.GetDimensions(bytes);
    uint count, stride;
    Out.GetDimensions(count, stride);
    Out[0] = uint2(bytes, count * 100 + stride);
}
"#;
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf(
                "In",
                Kind::ByteAddressBuffer,
                0,
                vec![1, 2, 3, 4, 1.5f32.to_bits()],
            ),
            buf("Raw", Kind::RwByteAddressBuffer, 0, vec![0; 4]),
            buf("Out", Kind::RwStructuredBuffer, 1, vec![0; 6]),
        ],
        4,
    );
    assert_eq!(out[1], [5, 4, 3, 3.0f32.to_bits()]);
    assert_eq!(&out[2][..2], [20, 3 * 100 + 8]);
}

#[test]
fn interlocked_family_on_buffers_and_groupshared() {
    let source = r#"
RWStructuredBuffer<uint> U : register(u0);
RWStructuredBuffer<int> I : register(u1);
RWStructuredBuffer<uint64_t> Wide : register(u2);
groupshared uint g;
[numthreads(16, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi == 0) g = 0;
    GroupMemoryBarrierWithGroupSync();
    InterlockedOr(g, 1u << gi);
    InterlockedAdd(U[0], 1);
    InterlockedMax(U[1], gi * 3);
    InterlockedMin(I[0], -int(gi));
    InterlockedAnd(U[2], ~(1u << gi));
    InterlockedXor(U[3], gi);
    uint old;
    InterlockedCompareExchange(U[4], gi, gi + 1, old);   // counts 0 -> 16 only in lane order
    InterlockedExchange(U[5], 7, old);
    InterlockedCompareStore(U[6], 0, 9);
    InterlockedAdd(Wide[0], 0x100000000ull + gi);
    GroupMemoryBarrierWithGroupSync();
    if (gi == 0) U[7] = g;
}
"#;
    for w in [4, 16] {
        let out = run_words(
            source,
            [1, 1, 1],
            &[
                buf(
                    "U",
                    Kind::RwStructuredBuffer,
                    0,
                    vec![0, 0, 0xFFFF_FFFF, 0, 0, 0, 0, 0],
                ),
                buf("I", Kind::RwStructuredBuffer, 1, vec![0]),
                buf("Wide", Kind::RwStructuredBuffer, 2, vec![0, 0]),
            ],
            w,
        );
        // Xor of 0..15 is 0; the compare-exchange chain advances once per
        // lane in lane order.
        assert_eq!(
            out[0],
            [16, 45, 0xFFFF_0000, 0, 16, 7, 9, 0xFFFF],
            "wave size {w}"
        );
        assert_eq!(out[1], [(-15i32) as u32]);
        assert_eq!(out[2], [120, 16], "wave size {w}");
    }
}

#[test]
fn preprocessor_and_includes() {
    let mut loader = MemoryLoader::default();
    loader.files.insert(
        "common.hlsli".to_string(),
        "#define SCALE(x) ((x) * FACTOR)\n#define CAT(a, b) a##b\n".to_string(),
    );
    let source = r#"
#include "common.hlsli"
#ifndef FACTOR
#error FACTOR must be defined
#endif
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
#if FACTOR > 2 && defined(EXTRA)
    uint CAT(va, lue) = SCALE(gi) + EXTRA;
#else
    uint value = 0;
#endif
    Out[gi] = value;
}
"#;
    let opts = CompileOptions {
        defines: vec![
            ("FACTOR".into(), "3".into()),
            ("EXTRA".into(), "100".into()),
        ],
        ..CompileOptions::default()
    };
    let shader = lockstep::compile("main.hlsl", source, &opts, &loader)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let p = pipeline(
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4])],
    );
    let out = lockstep::run(&shader, &p, &RunOptions::default()).unwrap();
    assert_eq!(
        out.contents[0],
        [100u32, 103, 106, 109]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>()
    );

    // Without FACTOR the #error fires, pointing into the main file.
    let err = lockstep::compile("main.hlsl", source, &CompileOptions::default(), &loader)
        .err()
        .unwrap();
    let text = err.render(false);
    assert!(
        text.starts_with("main.hlsl:4:1: error: FACTOR must be defined"),
        "{text}"
    );
}

#[test]
fn diagnostics_show_the_include_chain() {
    let mut loader = MemoryLoader::default();
    loader.files.insert(
        "bad.hlsli".to_string(),
        "uint broken() { return undefinedName; }\n".to_string(),
    );
    let source = "#include \"bad.hlsli\"\n[numthreads(1,1,1)]\nvoid main() {}\n";
    let err = lockstep::compile("main.hlsl", source, &CompileOptions::default(), &loader)
        .err()
        .unwrap();
    let text = err.render(false);
    assert!(
        text.starts_with("in file included from main.hlsl:1:"),
        "{text}"
    );
    assert!(
        text.contains("bad.hlsli:1:24: error: use of undeclared identifier 'undefinedName'"),
        "{text}"
    );
}

#[test]
fn compound_assignment_evaluates_the_index_once() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main()
{
    uint a[4] = { 1, 2, 3, 4 };
    uint i = 0;
    a[i++] += 10;     // a[0] = 11, i = 1
    a[i++]++;         // a[1] = 3, i = 2
    Out[i++] *= 5;    // Out[2] = 35, i = 3
    Out[0] = a[0];
    Out[1] = a[1];
    Out[3] = i;
}
"#;
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0, 0, 7, 0])],
        4,
    )
    .remove(0);
    assert_eq!(out, [11, 3, 35, 3]);
}

/// Entry parameters of struct type get each field's system value.
#[test]
fn struct_entry_parameters_take_system_values() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        struct Ids { uint index : SV_GroupIndex; uint2 group : SV_GroupID; uint3 id : SV_DispatchThreadID; };\n\
        [numthreads(2, 1, 1)]\n\
        void main(Ids ids, uint3 local : SV_GroupThreadID) {\n\
            Out[ids.id.x] = ids.index * 100 + ids.group.x * 10 + local.x;\n\
        }\n";
    let out = run_words(
        source,
        [2, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4])],
        4,
    );
    // Thread t of group g: index t, group g, local t.
    assert_eq!(out[0], [0, 101, 10, 111]);
}

/// A flat expression of thousands of terms compiles and runs.
#[test]
fn long_flat_expressions() {
    let terms = vec!["a"; 2000].join(" + ");
    let source = format!(
        "RWStructuredBuffer<uint> Out : register(u0);\n\
         [numthreads(4, 1, 1)]\n\
         void main(uint gi : SV_GroupIndex) {{ uint a = gi; Out[gi] = {terms}; }}\n"
    );
    let out = run_words(
        &source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4])],
        4,
    );
    assert_eq!(out[0], [0, 2000, 4000, 6000]);
}

/// A local resource variable names the global resource it is initialized
/// from, in its scope.
#[test]
fn local_resource_variables() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        RWByteAddressBuffer Raw : register(u1);\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            RWStructuredBuffer<uint> dst = Out;\n\
            dst[gi] = gi + 1;\n\
            if (gi > 1) {\n\
                RWByteAddressBuffer raw = Raw;\n\
                raw.Store(gi * 4, dst[gi] * 10);\n\
            }\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4]),
            buf("Raw", Kind::RwByteAddressBuffer, 1, vec![0; 4]),
        ],
        4,
    );
    assert_eq!(out[0], [1, 2, 3, 4]);
    assert_eq!(out[1], [0, 0, 30, 40]);
}

/// A function with resource parameters is compiled for the resources each
/// call passes, through nested calls too.
#[test]
fn resource_parameters() {
    let source = "RWStructuredBuffer<uint> A : register(u0);\n\
        RWStructuredBuffer<uint> B : register(u1);\n\
        StructuredBuffer<uint> In : register(t0);\n\
        void scale(RWStructuredBuffer<uint> dst, StructuredBuffer<uint> src, uint i, uint k) { dst[i] = src[i] * k; }\n\
        uint twice(RWStructuredBuffer<uint> b, uint i) { scale(b, In, i, 2); return b[i]; }\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            scale(A, In, gi, 3);\n\
            B[gi] = twice(B, gi) + 1;\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("A", Kind::RwStructuredBuffer, 0, vec![0; 4]),
            buf("B", Kind::RwStructuredBuffer, 1, vec![0; 4]),
            buf("In", Kind::StructuredBuffer, 0, vec![1, 2, 3, 4]),
        ],
        4,
    );
    assert_eq!(out[0], [3, 6, 9, 12]);
    assert_eq!(out[1], [3, 5, 7, 9]);
}

/// Member functions of a class (a struct): fields by name or through
/// `this`, calls to each other in any order, `const` ones.
#[test]
fn struct_member_functions() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        class Acc {\n\
            uint total;\n\
            uint count;\n\
            void push(uint v) { total += v; bump(); }\n\
            void bump() { this.count = count + 1; }\n\
            uint mean() const { return total / count; }\n\
        };\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            Acc a;\n\
            a.total = 0;\n\
            a.count = 0;\n\
            a.push(gi * 10);\n\
            a.push(gi * 30);\n\
            Out[gi] = a.mean() * 100 + a.count;\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4])],
        4,
    );
    // Two values 10 gi and 30 gi: mean 20 gi, count 2.
    assert_eq!(out[0], [2, 2002, 4002, 6002]);
}

/// Struct inheritance: a derived struct has its base's fields first, calls
/// its base's member functions, and converts to its base.
#[test]
fn struct_inheritance() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        struct Base {\n\
            uint a;\n\
            uint twice() { return a * 2; }\n\
            void set(uint v) { a = v; }\n\
        };\n\
        struct Derived : Base {\n\
            uint b;\n\
            uint sum() { return twice() + b + a; }\n\
        };\n\
        uint first(Base x) { return x.a; }\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            Derived d;\n\
            d.set(gi + 1);\n\
            d.b = 10 * gi;\n\
            Out[gi] = d.sum() * 100 + first(d);\n\
            if (gi == 0) Out[4] = sizeof(Derived);\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 5])],
        4,
    );
    // sum = 2 (gi + 1) + 10 gi + (gi + 1) = 13 gi + 3; first(d) = gi + 1.
    assert_eq!(out[0], [301, 1602, 2903, 4204, 8]);
}

/// Namespaces (nested, with names found inside without their qualifier),
/// plain and scoped enums, static member functions called as `S::f()`, and
/// `Base::f()` from a derived struct's member function.
#[test]
fn namespaces_enums_and_qualified_calls() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        namespace Math {\n\
            static const uint Scale = 3;\n\
            uint triple(uint x) { return x * Scale; }\n\
            struct Acc { uint n; void add(uint v) { n += triple(v); } };\n\
            namespace Inner { uint twice(uint x) { return triple(x) * 2 / 3; } }\n\
        }\n\
        enum Color { Red, Green = 5, Blue };\n\
        enum class Mode : uint { Off, On = 10, Auto };\n\
        struct Base { uint v; uint get() { return v; } static uint seven() { return 7; } };\n\
        struct Der : Base { uint get() { return Base::get() + 100; } };\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Math::Acc a;\n\
            a.n = 0;\n\
            a.add(2);\n\
            Out[0] = a.n;\n\
            Out[1] = Math::Inner::twice(5);\n\
            Out[2] = Blue;\n\
            Out[3] = (uint)Mode::Auto;\n\
            Out[4] = Color::Green;\n\
            Der d;\n\
            d.v = 1;\n\
            Out[5] = d.get();\n\
            Out[6] = Base::seven() + Math::Scale;\n\
            Color c = Red;\n\
            Out[7] = c == Red ? 1 : 0;\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 8])],
        4,
    );
    // 2·3; 5·3·2/3; Green + 1; On + 1; Green; 1 + 100; 7 + 3; Red == Red.
    assert_eq!(out[0], [6, 10, 6, 11, 5, 101, 10, 1]);
}

/// Function and struct templates: arguments deduced from `T`,
/// `vector<T, N>` and the object's instance, or written; constant
/// parameters; member functions of a struct template.
#[test]
fn templates() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        template <typename T> T twice(T x) { return x + x; }\n\
        template <typename T, uint N> T sum(vector<T, N> v) {\n\
            T s = 0;\n\
            for (uint i = 0; i < N; ++i) s += v[i];\n\
            return s;\n\
        }\n\
        template <typename T> struct Pair {\n\
            T a;\n\
            T b;\n\
            T total() { return a + b; }\n\
            Pair<T> swapped() { Pair<T> p; p.a = b; p.b = a; return p; }\n\
        };\n\
        template <uint N> uint scaled(uint x) { return x * N; }\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Out[0] = twice(21u);\n\
            Out[1] = (uint)twice(1.5f);\n\
            Out[2] = sum(uint3(1, 2, 3));\n\
            Out[3] = (uint)sum(float2(2.5, 0.5));\n\
            Pair<uint> p;\n\
            p.a = 7;\n\
            p.b = 100;\n\
            Out[4] = p.total();\n\
            Out[5] = p.swapped().a;\n\
            Out[6] = scaled<5>(3);\n\
            Out[7] = twice<uint>(4);\n\
            Out[8] = sizeof(Pair<float>);\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 9])],
        4,
    );
    // 2·21; 2·1.5; 1+2+3; 2.5+0.5; 7+100; b; 3·5; 2·4; two floats.
    assert_eq!(out[0], [42, 3, 6, 3, 107, 100, 15, 8, 8]);
}

/// `packoffset` places constant buffer members where it says, in any
/// order, whatever the declaration order would give.
#[test]
fn cbuffer_packoffset() {
    let source = "cbuffer CB : register(b0) {\n\
            float4 second : packoffset(c1);\n\
            float first : packoffset(c0.y);\n\
            uint2 pair : packoffset(c0.z);\n\
        };\n\
        RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(1, 1, 1)]\n\
        void main() { Out[0] = first; Out[1] = second.w; Out[2] = pair.y; }\n";
    let f = |x: f32| x.to_bits();
    let cb = vec![0, f(1.5), 7, 9, f(10.0), f(20.0), f(30.0), f(40.0)];
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("CB", Kind::ConstantBuffer, 0, cb),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 3]),
        ],
        4,
    );
    // first at byte 4, second at 16 (its w at 28), pair at 8 (its y at 12).
    assert_eq!(out[1], [f(1.5), f(40.0), f(9.0)]);
}

/// Member functions declared in the struct and defined after it
/// (`uint S::f() {…}`), a static one called as `S::f()`, through an
/// object and from a sibling.
#[test]
fn member_functions_defined_outside_the_struct() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        struct Counter {\n\
            uint n;\n\
            void add(uint v);\n\
            uint get();\n\
            static uint scale();\n\
        };\n\
        void Counter::add(uint v) { n += v * scale(); }\n\
        uint Counter::get() { return n; }\n\
        uint Counter::scale() { return 3; }\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            Counter c;\n\
            c.n = 1;\n\
            c.add(gi);\n\
            Out[gi] = c.get() * 10 + Counter::scale() + c.scale();\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4])],
        4,
    );
    // n = 1 + 3 gi; then 10 n + 3 + 3.
    assert_eq!(out[0], [16, 46, 76, 106]);
}

/// `sizeof` gives a type's bytes as buffers lay it out, as a constant; of
/// an expression, its type's.
#[test]
fn sizeof_types() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        struct S { float3 a; uint b; double d; };\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            uint a[sizeof(float2)];\n\
            a[7] = sizeof(S);\n\
            Out[0] = sizeof(uint4);\n\
            Out[1] = a[7];\n\
            Out[2] = sizeof(bool);\n\
            double x = 1.0;\n\
            uint n = 0;\n\
            Out[3] = sizeof(x + 1) * 100 + sizeof(-x) * 10 + sizeof x;\n\
            Out[4] = sizeof(asuint(1.0f)) + sizeof(n++) * 10;\n\
            Out[5] = n;\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 6])],
        4,
    );
    // S: 12 + 4 bytes, then the double at offset 16. `sizeof` of an
    // expression is its type's size, the expression not run (`n` stays 0).
    assert_eq!(out[0], [16, 24, 4, 888, 44, 0]);
}

/// UAV counters: `IncrementCounter` returns the value before, and
/// `DecrementCounter` the value after, in lane order; `Append` writes the
/// slot an increment gives, `Consume` reads the slot a decrement gives,
/// starting from the consume buffer's element count.
#[test]
fn counters_append_and_consume() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        AppendStructuredBuffer<uint> Kept : register(u1);\n\
        ConsumeStructuredBuffer<uint> Work : register(u2);\n\
        RWStructuredBuffer<uint> Down : register(u3);\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            uint slot = Out.IncrementCounter();\n\
            Out[slot] = gi * 10;\n\
            if (gi % 2 == 1)\n\
                Kept.Append(gi + 100);\n\
            Down[gi] = Down.DecrementCounter();\n\
            if (gi < 3)\n\
                Out[4 + gi] = Work.Consume();\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 8]),
            buf("Kept", Kind::RwStructuredBuffer, 1, vec![0; 4]),
            buf("Work", Kind::RwStructuredBuffer, 2, vec![5, 6, 7, 8]),
            buf("Down", Kind::RwStructuredBuffer, 3, vec![0; 4]),
        ],
        4,
    );
    // Slots 0..3 in lane order; Consume from 4 elements takes 3, 2, 1.
    assert_eq!(out[0], [0, 10, 20, 30, 8, 7, 6, 0]);
    assert_eq!(out[1], [101, 103, 0, 0]);
    assert_eq!(out[2], [5, 6, 7, 8]);
    assert_eq!(out[3], [u32::MAX, u32::MAX - 1, u32::MAX - 2, u32::MAX - 3]);
}

/// From SM 6.6, a compute group whose numthreads X and Y are even makes
/// quads of 2×2 blocks of SV_GroupThreadID, four adjacent lanes each:
/// the quad reads and the derivatives see the x and y neighbours, at every
/// wave size. Below SM 6.6 quads are four consecutive group indices.
#[test]
fn sm66_compute_quads_are_2x2_blocks() {
    let source = "RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(4, 4, 1)]\n\
        void main(uint3 id : SV_GroupThreadID, uint gi : SV_GroupIndex) {\n\
            float v = id.x + 10 * id.y;\n\
            float w = id.x * id.y;\n\
            uint o = gi * 8;\n\
            Out[o + 0] = QuadReadAcrossX(v);\n\
            Out[o + 1] = QuadReadAcrossY(v);\n\
            Out[o + 2] = QuadReadAcrossDiagonal(v);\n\
            Out[o + 3] = ddx(v) + 100 * ddy(v);\n\
            Out[o + 4] = ddx_coarse(w);\n\
            Out[o + 5] = ddx_fine(w);\n\
            Out[o + 6] = ddy_coarse(w);\n\
            Out[o + 7] = ddy_fine(w);\n\
        }\n";
    let sm66 = CompileOptions {
        shader_model: (6, 6),
        ..CompileOptions::default()
    };
    let shader = crate::harness::compile(source, &sm66);
    let bufs = [buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 128])];
    let mut expected = Vec::new();
    for y in 0..4u32 {
        for x in 0..4u32 {
            let v = |x: u32, y: u32| (x + 10 * y) as f32;
            let (x0, y0) = (x & !1, y & !1);
            expected.extend([
                v(x ^ 1, y),
                v(x, y ^ 1),
                v(x ^ 1, y ^ 1),
                1.0 + 100.0 * 10.0,
                // x·y along x: y0 over the quad's top row; y on its own row.
                y0 as f32,
                y as f32,
                // Along y: x0 in the left column; x in its own column.
                x0 as f32,
                x as f32,
            ]);
        }
    }
    let expected: Vec<u32> = expected.iter().map(|f| f.to_bits()).collect();
    for wave_size in [4, 8, 16] {
        let out = crate::harness::run_compiled(&shader, [1, 1, 1], &bufs, wave_size);
        assert_eq!(out[0], expected, "wave size {wave_size}");
    }
    // SM 6.5: a quad is four consecutive group indices, one row of four.
    let source = "RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(4, 4, 1)]\n\
        void main(uint3 id : SV_GroupThreadID, uint gi : SV_GroupIndex) {\n\
            Out[gi] = QuadReadAcrossY(id.x + 10.0 * id.y);\n\
        }\n";
    let sm65 = CompileOptions {
        shader_model: (6, 5),
        ..CompileOptions::default()
    };
    let shader = crate::harness::compile(source, &sm65);
    let out = crate::harness::run_compiled(&shader, [1, 1, 1], &bufs, 4);
    let linear: Vec<u32> = (0..16u32)
        .map(|gi| (((gi % 4) ^ 2) as f32 + 10.0 * (gi / 4) as f32).to_bits())
        .collect();
    assert_eq!(out[0][..16], linear);
    let text = crate::harness::diagnostics(
        "RWStructuredBuffer<float> Out;\n[numthreads(4, 1, 1)]\nvoid main() { Out[0] = ddx(1.0); }\n",
        &sm65,
    );
    assert!(
        text.contains("derivatives need a compute shader of shader model 6.6 or later"),
        "{text}"
    );
}

/// Of several templates of one name whose deduction succeeds, the one
/// whose parameters take the arguments with the fewest conversions, then
/// the more specialized: as DXC (clang) ranks them, whatever the order of
/// declaration. Member functions and operators of struct templates alike.
#[test]
fn template_overloads_rank_by_conversions() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        template <typename T> uint f(T x, float k) { return 1; }\n\
        template <typename T> uint f(T x, uint2 k) { return 3; }\n\
        template <typename T> uint f(T x, uint k) { return 2; }\n\
        template <typename T> uint g(T x) { return 1; }\n\
        template <typename T> uint g(vector<T, 2> x) { return 2; }\n\
        template <typename T> struct V {\n\
            T v;\n\
            uint m(float k) { return 10; }\n\
            uint m(uint k) { return 20; }\n\
            V<T> operator*(T k) { V<T> r; r.v = v * k; return r; }\n\
            V<T> operator*(V<T> o) { V<T> r; r.v = v * o.v + 1000; return r; }\n\
        };\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            V<int> a; a.v = 2; V<int> b; b.v = 4;\n\
            Out[0] = f(1, 4.5f); Out[1] = f(1, 4u); Out[2] = f(1, uint2(1, 2));\n\
            Out[3] = g(5u); Out[4] = g(uint2(1, 2));\n\
            Out[5] = a.m(4.5f); Out[6] = a.m(4u);\n\
            Out[7] = (a * 4).v; Out[8] = (a * b).v;\n\
        }\n";
    let out = single(source, 9);
    assert_eq!(out, [1, 2, 3, 1, 2, 10, 20, 8, 1008]);
}

/// Default template arguments (which may name the parameters before
/// them) fill what is neither given nor deduced, for struct and function
/// templates; a function template's default function arguments let a call
/// leave them out.
#[test]
fn template_defaults() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        template <typename T, uint N = 3, uint M = N * 2> struct Arr { T v[N]; uint size() { return N * 100 + M; } };\n\
        template <uint N = 7> uint seven() { return N; }\n\
        template <typename T = uint> T next(T x) { return x + 1; }\n\
        template <typename T> T add(T a, T b = 10) { return a + b; }\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Arr<uint> a; Arr<uint, 5> b; Arr<uint, 2, 9> c;\n\
            Out[0] = a.size(); Out[1] = b.size(); Out[2] = c.size();\n\
            Out[3] = seven(); Out[4] = seven<2>(); Out[5] = next(4u);\n\
            Out[6] = add(1u); Out[7] = add(1u, 2u);\n\
        }\n";
    assert_eq!(single(source, 8), [306, 510, 209, 7, 2, 5, 11, 3]);
    let text = crate::harness::diagnostics(
        "RWStructuredBuffer<uint> Out;\n\
         template <typename T, uint N = 3> struct A { T v[N]; };\n\
         [numthreads(1, 1, 1)] void main() { A<uint, 1, 2> a; Out[0] = 0; }\n",
        &CompileOptions::default(),
    );
    assert!(
        text.contains("'A' takes 1 to 2 template arguments, but 3 were given"),
        "{text}"
    );
}

/// `::name` is the global scope's `name`, also inside a namespace that
/// declares its own, and after `return`.
#[test]
fn global_scope_qualifier() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        uint f() { return 1; }\n\
        namespace N {\n\
            uint f() { return 2; }\n\
            uint g() { uint a = ::f(); return a; }\n\
            uint h() { return ::f() + f() * 10; }\n\
            uint k() { return::N::f(); }\n\
        }\n\
        [numthreads(1, 1, 1)]\n\
        void main() { Out[0] = N::g(); Out[1] = N::h(); Out[2] = N::k(); Out[3] = ::f(); }\n";
    assert_eq!(single(source, 4), [1, 21, 2, 1]);
}

/// `using namespace N;` finds `N`'s names unqualified until the namespace
/// around it closes; `using N::name;` finds that one; `using Name = type;`
/// is a typedef, at file scope and in a function; a `using` of no namespace
/// is an error that names it.
#[test]
fn using_directives_and_aliases() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        namespace Outer { namespace N { static const uint K = 7; uint f() { return 3; } } }\n\
        namespace M { using namespace Outer::N; uint g() { return f() + K; } }\n\
        using UInt = uint;\n\
        using Pair = uint2;\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            using Local = uint[2];\n\
            Local l = { 5, 6 };\n\
            UInt q = 11; Pair p = Pair(1, 2);\n\
            Out[0] = M::g(); Out[1] = q + p.y; Out[2] = l[1];\n\
            { using Outer::N::f; Out[3] = f() * 100; }\n\
        }\n";
    assert_eq!(single(source, 4), [10, 13, 6, 300]);
    let text = crate::harness::diagnostics(
        "using namespace Nowhere;\n[numthreads(1, 1, 1)] void main() {}\n",
        &CompileOptions::default(),
    );
    assert!(text.contains("no namespace named 'Nowhere'"), "{text}");
}

/// A function template that names itself with other arguments is
/// instantiated for each, and an endless chain of instances is an error,
/// not a hang.
#[test]
fn recursive_templates() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        template <uint N> uint down(uint x) { return N == 0 ? x : x + N; }\n\
        template <uint N> uint sum() { return N + down<N - 1>(0); }\n\
        [numthreads(1, 1, 1)]\n\
        void main() { Out[0] = sum<5>(); }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0])],
        4,
    );
    // 5 + (0 + 4).
    assert_eq!(out[0], [9]);
    let text = crate::harness::diagnostics(
        "RWStructuredBuffer<uint> Out;\n\
         template <uint N> uint f() { return f<N + 1>(); }\n\
         [numthreads(1, 1, 1)] void main() { Out[0] = f<0>(); }\n",
        &CompileOptions::default(),
    );
    assert!(
        text.contains("template instances are nested more than 64 deep (instantiating 'f')"),
        "{text}"
    );
}

/// An unnamed enum declares its enumerators; a template parameter deduced
/// two ways, and a definition `S::f` for no struct or namespace `S`, are
/// errors that say so.
#[test]
fn unnamed_enums_and_template_and_qualifier_errors() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        enum { Zero, One, Ten = 10, Eleven };\n\
        [numthreads(1, 1, 1)]\n\
        void main() { Out[0] = One + Eleven; }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0])],
        4,
    );
    assert_eq!(out[0], [12]);
    let text = crate::harness::diagnostics(
        "RWStructuredBuffer<float> Out;\n\
         template <typename T> T add(T a, T b) { return a + b; }\n\
         [numthreads(1, 1, 1)] void main() { Out[0] = add(1, 2.0) + add<float>(1, 2.5); }\n",
        &CompileOptions::default(),
    );
    for wanted in [
        "no matching function template for call to 'add'",
        "template parameter 'T' is deduced as two different types or values",
    ] {
        assert!(text.contains(wanted), "missing {wanted:?} in:\n{text}");
    }
    assert_eq!(text.matches("error:").count(), 1, "{text}");
    let text = crate::harness::diagnostics(
        "void Nowhere::f() {}\n[numthreads(1, 1, 1)] void main() {}\n",
        &CompileOptions::default(),
    );
    assert!(
        text.contains("'Nowhere' names no struct or namespace that declares 'Nowhere::f'"),
        "{text}"
    );
}

/// Conversions the compiler folds round as the engine's run-time ones do,
/// once: a `double` literal to `half` (via `float` it would round twice,
/// to a tie, and then to even) and a 64-bit integer to `float` (via
/// `double`, the same).
#[test]
fn folded_conversions_round_once() {
    let source = r#"
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main()
{
    // 1 + 2^-11 + 2^-40: just past half of half's step above 1.
    Out[0] = asuint((float)(half)1.00048828125000090949);
    Out[1] = asuint((float)(half)asdouble(In[0], In[1]));
    // 2^53 + 2^29 + 1: just past half of float's step above 2^53.
    Out[2] = asuint((float)(uint64_t)9007199791611905);
    Out[3] = asuint((float)((uint64_t(In[3]) << 32) | In[2]));
}
"#;
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = crate::harness::compile(source, &opts);
    let x = (1.0f64 + 2f64.powi(-11) + 2f64.powi(-40)).to_bits();
    let n: u64 = (1 << 53) + (1 << 29) + 1;
    let input = vec![x as u32, (x >> 32) as u32, n as u32, (n >> 32) as u32];
    let out = crate::harness::run_compiled(
        &shader,
        [1, 1, 1],
        &[
            buf("In", Kind::StructuredBuffer, 0, input),
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4]),
        ],
        8,
    );
    // Rounded up: 1 + 2^-10, and 2^53 + 2^30.
    let up = (1.0f32 + 2f32.powi(-10)).to_bits();
    let big = (2f32.powi(53) + 2f32.powi(30)).to_bits();
    assert_eq!(out[1], [up, up, big, big]);
}

/// A `static const` table inside a function, as filter weights are often
/// written, holds its values at every call.
#[test]
fn static_const_locals_are_tables() {
    let source = r#"
RWStructuredBuffer<float> Out : register(u0);
float Gauss(uint i) {
    static const float kWeights[3] = { 0.25, 0.5, 0.25 };
    return kWeights[i];
}
[numthreads(3, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    static const uint kScale = 4;
    Out[id.x] = Gauss(id.x) * kScale + Gauss(2 - id.x);
}
"#;
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 3])],
        8,
    );
    let want: Vec<u32> = [1.25f32, 2.5, 1.25].iter().map(|f| f.to_bits()).collect();
    assert_eq!(out[0], want);
}

/// Structs and typedefs declared inside a function body are found by name
/// until their block ends, so two functions (or two blocks) may each
/// declare their own `Pair`; `::x` names the global `x`.
#[test]
fn local_types_and_the_global_scope() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        static const uint K = 3;\n\
        struct Pair { uint x; };\n\
        uint g(uint v) {\n\
            struct Pair { uint a; uint b; uint c; };\n\
            Pair p = { v, 1, 2 };\n\
            return p.a + p.b + p.c + ::K;\n\
        }\n\
        uint h(uint v) {\n\
            typedef uint2 U;\n\
            U u = U(v, 10);\n\
            {\n\
                struct Pair { float f; };\n\
                Pair q;\n\
                q.f = 1.5;\n\
                u.x += (uint)(q.f * 2);\n\
            }\n\
            Pair outer;\n\
            outer.x = 100;\n\
            struct Local { uint k; } l;\n\
            l.k = 1000;\n\
            return u.x + u.y + outer.x + l.k;\n\
        }\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint3 tid : SV_DispatchThreadID) {\n\
            Out[tid.x] = g(tid.x);\n\
            Out[tid.x + 4] = h(tid.x);\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 8])],
        4,
    );
    // g: v + 1 + 2 + 3; h: (v + 3) + 10 + 100 + 1000.
    assert_eq!(out[0], [6, 7, 8, 9, 1113, 1114, 1115, 1116]);
    // A member function of a local struct declares its own `X`; the
    // function around it and another function keep theirs.
    let nested = "RWStructuredBuffer<uint> Out : register(u0);\n\
        uint f() { struct X { uint v; }; X x; x.v = 3; return x.v; }\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            struct L { uint f() { struct X { uint w; uint z; }; X x; x.w = 10; x.z = 20; return x.w + x.z; } };\n\
            L l;\n\
            struct X { uint q; };\n\
            X x;\n\
            x.q = 100;\n\
            Out[0] = l.f() + f() + x.q;\n\
        }\n";
    let out = run_words(
        nested,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 1])],
        4,
    );
    assert_eq!(out[0], [133]);
    // Out of its block, a local struct's name is unknown again.
    let text = crate::harness::diagnostics(
        "RWStructuredBuffer<uint> Out;\n\
         [numthreads(1, 1, 1)]\n\
         void main() {\n\
             { struct P { uint a; }; }\n\
             P p;\n\
             Out[0] = 0;\n\
         }\n",
        &CompileOptions::default(),
    );
    assert!(text.contains("5:1: error: unknown type name 'P'"), "{text}");
}

/// A diagnostic's first line names the place as `#line` gives it, in text
/// as in JSON; the excerpt shows the real lines.
#[test]
fn diagnostics_follow_line_directives() {
    let source = "RWStructuredBuffer<uint> Out;\n#line 100 \"orig.hlsl\"\n[numthreads(1, 1, 1)]\nvoid main() { Out[0] = nowhere; }\n";
    let err = lockstep::compile(
        "main.hlsl",
        source,
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )
    .err()
    .unwrap();
    let text = err.render(false);
    assert!(
        text.starts_with("orig.hlsl:101:24: error: use of undeclared identifier 'nowhere'"),
        "{text}"
    );
    assert!(text.contains("4 | void main()"), "{text}");
}

/// A member function of a struct template converts its arguments to the
/// struct's parameters; `S<T>::f()` and a typedef's `T::f()` call `static`
/// members; `out` and `inout` arguments of another type go through a
/// temporary, converted both ways, as DXC copies them.
#[test]
fn template_members_and_converted_out_arguments() {
    let source = "RWStructuredBuffer<float> Out : register(u0);\n\
        template<typename T> struct Acc {\n\
            T sum;\n\
            void Add(T x) { sum += x; }\n\
            static T One() { return (T)1; }\n\
            static T Twice(T x) { return x * 2; }\n\
        };\n\
        struct Plain { static uint Seven() { return 7; } };\n\
        typedef Acc<float> AccF;\n\
        typedef Plain P2;\n\
        void Init(out int x) { x = 7; }\n\
        void Grow(inout int3 v) { v = v * 2 + 1; }\n\
        int Bump(inout uint c, float k) { c += (uint)k; return (int)c * 10; }\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Acc<float3> acc;\n\
            acc.sum = 0;\n\
            acc.Add(1);\n\
            acc.Add(float3(1, 2, 3));\n\
            Out[0] = acc.sum.x + acc.sum.z * 10;\n\
            Out[1] = Acc<float>::One() + AccF::Twice(3) * 10 + Acc<uint>::Twice(5) * 100 + P2::Seven() * 1000;\n\
            float f;\n\
            Init(f);\n\
            float3 v = float3(1.7, -2.7, 3.2);\n\
            Grow(v);\n\
            float c = 5.9;\n\
            int r = Bump(c, 2.5);\n\
            Out[2] = f;\n\
            Out[3] = v.x;\n\
            Out[4] = v.y;\n\
            Out[5] = v.z;\n\
            Out[6] = c;\n\
            Out[7] = r;\n\
            float3 arr[2] = { float3(4.5, 0, 0), float3(9, 9, 9) };\n\
            uint k = 0;\n\
            Grow(arr[k++]);\n\
            Out[8] = k;\n\
            Out[9] = arr[0].x + arr[1].x * 100;\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 10])],
        4,
    );
    let floats: Vec<f32> = out[0].iter().map(|&w| f32::from_bits(w)).collect();
    // (1,1,1) + (1,2,3); 1 + 6·10 + 10·100 + 7·1000; int(1.7)·2 + 1 and so
    // on, truncated on the way in; uint(5.9) + uint(2.5) = 7, returned ·10;
    // `arr[k++]` evaluated once: k = 1, arr[0].x = 4·2 + 1, arr[1] kept.
    assert_eq!(
        floats,
        [42.0, 8061.0, 7.0, 3.0, -3.0, 7.0, 7.0, 70.0, 1.0, 909.0]
    );
}

/// A sampler's effect state block is ignored with a warning, as DXC does.
#[test]
fn effect_state_blocks_are_ignored() {
    let text = crate::harness::diagnostics(
        "SamplerState S : register(s0) { Filter = MIN_MAG_MIP_LINEAR; };\n\
         RWStructuredBuffer<float> Out;\n\
         [numthreads(1, 1, 1)]\n\
         void main() { Out[0] = 1; }\n",
        &CompileOptions::default(),
    );
    assert!(
        text.contains("1:31: warning: effect state block ignored"),
        "{text}"
    );
    assert!(!text.contains("error"), "{text}");
}

/// `template <>` specializations of a function template replace its body
/// for their arguments, written or deduced.
#[test]
fn explicit_specializations() {
    let source = "RWStructuredBuffer<float> Out : register(u0);\n\
        template<typename T> T Zero() { return (T)1; }\n\
        template<> float Zero<float>() { return 2; }\n\
        template<typename T> T Scale(T x) { return x * 3; }\n\
        template<> uint Scale<uint>(uint x) { return x + 100; }\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Out[0] = Zero<float>();\n\
            Out[1] = Zero<int>();\n\
            Out[2] = Scale(2.0f);\n\
            Out[3] = Scale(5u);\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4])],
        4,
    );
    let floats: Vec<f32> = out[0].iter().map(|&w| f32::from_bits(w)).collect();
    assert_eq!(floats, [2.0, 1.0, 6.0, 105.0]);
}

/// HLSL 2021 as engines write it: member operators (binary, unary, `==`,
/// `[]`), a method called on a value, `static` locals (one per function,
/// set once per thread), `static const` members found inside and outside
/// their struct, and a cast of 0 to a struct template's instance.
#[test]
fn operators_methods_on_values_and_static_members() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
struct V2 {
    int x, y;
    static const int Scale = 3;
    V2 operator+(V2 b) { V2 r; r.x = x + b.x; r.y = y + b.y; return r; }
    V2 operator*(int k) { V2 r; r.x = x * k; r.y = y * k; return r; }
    V2 operator-() { V2 r; r.x = -x; r.y = -y; return r; }
    bool operator==(V2 b) { return x == b.x && y == b.y; }
    int operator[](uint i) { return i == 0 ? x : y; }
    V2 Scaled() { return this * Scale; }
    int Sum() { return x + y; }
    int operator()(int k) { return x * k + y; }
};
template <typename T> uint Pick(T v) { return 10; }
uint Pick(int v) { return 20; }
V2 Make(int x, int y) { V2 v; v.x = x; v.y = y; return v; }
template <typename T> struct Acc { T sum; uint n; };
uint Next() { static uint calls; static uint table[3] = { 5, 6, 7 }; return table[calls++ % 3]; }

[numthreads(1, 1, 1)]
void main()
{
    V2 a = Make(1, 2);
    V2 c = a + a * 4;          // (5, 10)
    V2 n = -c;                 // (-5, -10)
    Out[0] = c.x * 100 + c.y;
    Out[1] = (uint)(n[1] + 100);
    Out[2] = (a == a) + (a == c) * 10;
    Out[3] = Make(4, 5).Sum() * 100 + a.Scaled().Sum();   // 9, (3 + 6)
    Out[4] = V2::Scale;
    Acc<uint> acc = (Acc<uint>)0;
    acc.n += 2;
    Out[5] = acc.sum * 10 + acc.n;
    uint x = Next(), y = Next(), z = Next(), w = Next();
    Out[6] = x * 1000 + y * 100 + z * 10 + w;
    // The template matches float and uint exactly; the function wins the
    // tie on int, as in C++.
    Out[7] = Pick(1.5f) * 10000 + Pick(2u) * 100 + Pick(-3);
    Out[8] = a(7);             // 1 * 7 + 2
}
"#;
    assert_eq!(
        single(source, 9),
        vec![510, 90, 1, 909, 3, 2, 5675, 101020, 9]
    );
}

/// An assignment evaluates its value, then its place, as DXC does: the
/// index's side effect comes after the value is read.
#[test]
fn assignment_reads_the_value_before_the_place() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main()
{
    uint k = 1;
    Out[k++] = k;          // Out[1] = 1, then k = 2
    Out[k--] = k * 10;     // Out[2] = 20, then k = 1
    Out[3] = k;
}
"#;
    assert_eq!(single(source, 4), vec![0, 1, 20, 1]);
}

/// The library functions DXC declares on any shape take matrices too,
/// element by element (the prelude writes them for scalars and vectors).
#[test]
fn library_functions_on_matrices() {
    let source = r#"
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main()
{
    float2x2 m = float2x2(1.5, 2.5, -3.5, 4.5);
    float2x2 r = fmod(m, 2.0);                     // 1.5, 0.5, -1.5, 0.5
    float2x2 whole;
    float2x2 f = modf(m, whole);                   // 0.5, 0.5, -0.5, 0.5 / 1, 2, -3, 4
    float2x2 e;
    float2x2 mant = frexp(float2x2(8, 1, 0.75, 3), e);  // 0.5, 0.5, 0.75, 0.75 / 4, 1, 0, 2
    float3x1 d = degrees(float3x1(0, 3.14159265, -1.57079633));
    float2x2 l = ldexp(m, float2x2(1, 2, 0, -1));  // 3, 10, -3.5, 2.25
    float2x2 s, c;
    sincos(float2x2(0, 0, 0, 0), s, c);
    Out[0] = r[0][0]; Out[1] = r[0][1]; Out[2] = r[1][0]; Out[3] = r[1][1];
    Out[4] = f[1][0]; Out[5] = whole[1][0]; Out[6] = whole[1][1];
    Out[7] = mant[1][1]; Out[8] = e[0][0]; Out[9] = e[1][1];
    Out[10] = round(d[1][0]); Out[11] = round(d[2][0]);
    Out[12] = l[0][1]; Out[13] = l[1][1];
    Out[14] = s[1][1] + c[1][0] * 10;
}
"#;
    let out: Vec<f32> = single(source, 15).into_iter().map(f32::from_bits).collect();
    assert_eq!(
        out,
        [
            1.5, 0.5, -1.5, 0.5, -0.5, -3.0, 4.0, 0.75, 4.0, 2.0, 180.0, -90.0, 10.0, 2.25, 10.0
        ]
    );
}

/// Explicit casts go component by component between aggregates, as DXC
/// casts them: a scalar to every component, a vector to a struct, a struct
/// to a vector or to another struct of as many components.
#[test]
fn casts_between_aggregates_go_component_by_component() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
struct P { uint a; uint b; };
struct Q { uint c; uint d; };
struct R { uint2 v; float f; };
[numthreads(1, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint x = gi + 3;
    P p = (P)x;
    uint arr[3] = (uint[3])x;
    P p2 = (P)uint2(x, 4);
    uint2 v = (uint2)p2;
    Q q = (Q)p2;
    R r = (R)uint3(7, 8, 9);
    float4 f = (float4)uint4(1, 2, 3, 4);
    uint2 first = (uint2)r;        // the first two of three components
    Out[0] = p.a * 10 + p.b;
    Out[1] = arr[0] + arr[2];
    Out[2] = v.x * 10 + v.y;
    Out[3] = q.c * 10 + q.d;
    Out[4] = r.v.y * 10 + (uint)r.f;
    Out[5] = (uint)(f.w * 2);
    Out[6] = first.x * 10 + first.y;
}
"#;
    assert_eq!(single(source, 7), vec![33, 6, 34, 34, 89, 8, 78]);
}

/// `sizeof` of a variable, and a struct defined in a declaration with a
/// storage class (`static struct G { … } g;`).
#[test]
fn sizeof_of_variables_and_struct_definitions_with_storage() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
static struct G { uint x; float2 y; } g;
[numthreads(1, 1, 1)]
void main()
{
    float3 v = 0;
    uint a[5];
    g.x = 7;
    Out[0] = sizeof(v) + sizeof(a);    // 12 + 20
    Out[1] = sizeof(g) * 10 + g.x;     // 12
}
"#;
    assert_eq!(single(source, 2), vec![32, 127]);
}

/// Overloads told apart by their resource parameters, a static member
/// function calling a sibling without `S::`, and enumerators whose values
/// name earlier ones inside a namespace and a scoped enum.
#[test]
fn resource_overloads_static_siblings_and_enumerator_values() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        StructuredBuffer<uint2> Pairs : register(t0);\n\
        StructuredBuffer<uint> Words : register(t1);\n\
        uint Get(StructuredBuffer<uint2> b, uint i) { return b[i].y; }\n\
        uint Get(StructuredBuffer<uint> b, uint i) { return b[i] * 10; }\n\
        struct S { static uint A() { return 3; } static uint B() { return A() + 1; } };\n\
        namespace N { enum Channel { R = 1, G = R << 1, B = G | R }; }\n\
        enum class Flags : uint { X = 4, Y = X << 1, Z = Y | X };\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Out[0] = Get(Pairs, 1);\n\
            Out[1] = Get(Words, 1);\n\
            Out[2] = S::B();\n\
            Out[3] = N::B;\n\
            Out[4] = (uint)Flags::Z;\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 5]),
            buf("Pairs", Kind::StructuredBuffer, 0, vec![1, 2, 3, 4]),
            buf("Words", Kind::StructuredBuffer, 1, vec![5, 6]),
        ],
        4,
    );
    assert_eq!(out[0], [4, 60, 4, 3, 12]);
}

/// Function templates taking resources: `StructuredBuffer<T>` deduces `T`
/// from the buffer's element type, a parameter of a template type takes a
/// resource as it is (deduced or written), and each resource gets its own
/// copy.
#[test]
fn templates_with_resource_parameters() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        StructuredBuffer<uint2> Pairs : register(t0);\n\
        StructuredBuffer<uint> Words : register(t1);\n\
        template<typename T> T Fetch(StructuredBuffer<T> b, uint i) { return b[i]; }\n\
        template<typename B> uint Count(B b) { uint n, stride; b.GetDimensions(n, stride); return n; }\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            uint2 p = Fetch(Pairs, 1);\n\
            Out[0] = p.x * 10 + p.y;\n\
            Out[1] = Fetch(Words, 2);\n\
            Out[2] = Fetch<uint>(Words, 0);\n\
            Out[3] = Count(Pairs) * 10 + Count<StructuredBuffer<uint> >(Words);\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4]),
            buf("Pairs", Kind::StructuredBuffer, 0, vec![1, 2, 3, 4]),
            buf("Words", Kind::StructuredBuffer, 1, vec![5, 6, 7]),
        ],
        4,
    );
    assert_eq!(out[0], [34, 7, 5, 23]);
}

/// `#pragma pack_matrix` sets the packing of the matrices declared after
/// it, until the next one; `row_major`/`column_major` written on a
/// declaration win.
#[test]
fn pack_matrix_pragma_packs_the_declarations_after_it() {
    let source = "StructuredBuffer<float2x2> Before : register(t0);\n\
        #pragma pack_matrix(row_major)\n\
        StructuredBuffer<float2x2> Rows : register(t1);\n\
        StructuredBuffer<column_major float2x2> Written : register(t2);\n\
        #pragma pack_matrix(column_major)\n\
        StructuredBuffer<float2x2> After : register(t3);\n\
        RWStructuredBuffer<float> Out : register(u0);\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Out[0] = Before[0][0][1];\n\
            Out[1] = Rows[0][0][1];\n\
            Out[2] = Written[0][0][1];\n\
            Out[3] = After[0][0][1];\n\
        }\n";
    // Each buffer holds 1, 2, 3, 4: element [0][1] (row 0, column 1) is 3
    // column-major and 2 row-major.
    let words = |_| [1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits).to_vec();
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4]),
            buf("Before", Kind::StructuredBuffer, 0, words(0)),
            buf("Rows", Kind::StructuredBuffer, 1, words(1)),
            buf("Written", Kind::StructuredBuffer, 2, words(2)),
            buf("After", Kind::StructuredBuffer, 3, words(3)),
        ],
        4,
    );
    assert_eq!(out[0], [3.0f32, 2.0, 3.0, 3.0].map(f32::to_bits));
}
