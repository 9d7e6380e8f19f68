//! Arrays of resources and resources as struct members: registers,
//! `ArraySize` buffers, constant and per-lane (`NonUniformResourceIndex`)
//! indices, with values derived by hand.

use lockstep::{CompileOptions, RunOptions};

use lockstep::pipeline::Kind;

use crate::harness::{buf, compile, diagnostics, run_words, words_of};

/// Runs `source` over the pipeline `yaml` at `wave_size`; every buffer's
/// words after the run.
fn run(source: &str, yaml: &str, wave_size: u32) -> Vec<Vec<u32>> {
    let shader = compile(source, &CompileOptions::default());
    let pipeline = lockstep::pipeline::parse(yaml).unwrap_or_else(|e| panic!("{e}"));
    let opts = RunOptions {
        wave_size,
        threads: 2,
        ..RunOptions::default()
    };
    let out =
        lockstep::run(&shader, &pipeline, &opts).unwrap_or_else(|e| panic!("run failed: {e}"));
    out.contents.iter().map(|b| words_of(b)).collect()
}

const THREE_BUFFERS: &str = "\
---
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: In
    Format: UInt32
    ArraySize: 3
    Data:
      - [ 0, 1, 2, 3, 4, 5, 6, 7 ]
      - [ 100, 101, 102, 103, 104, 105, 106, 107 ]
      - [ 200, 201, 202, 203, 204, 205, 206, 207 ]
  - Name: Out
    Format: UInt32
    FillSize: 32
DescriptorSets:
  - Resources:
    - Name: In
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
      VulkanBinding: { Binding: 0 }
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 3, Space: 0 }
      VulkanBinding: { Binding: 1 }
...
";

/// One lane in three reads and writes each resource: loads see each
/// resource's own data, and a wave operation in the stored value runs on
/// every lane of the wave, not on the lanes of one resource.
#[test]
fn per_lane_index_loads_and_stores() {
    let source = "RWStructuredBuffer<uint> In[3] : register(u0);\n\
        RWStructuredBuffer<uint> Out : register(u3);\n\
        [numthreads(8, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            uint k = gi % 3;\n\
            Out[gi] = In[NonUniformResourceIndex(k)][gi] + In[2][0] * 1000;\n\
            In[k][gi] = WaveActiveSum(gi) + k;\n\
        }\n";
    let out = run(source, THREE_BUFFERS, 8);
    // In[k][j] = 100 k + j at first.
    let expected_out: Vec<u32> = (0..8).map(|gi| 200_000 + 100 * (gi % 3) + gi).collect();
    assert_eq!(out[1], expected_out);
    // Lane gi stores 0 + 1 + … + 7 = 28, plus k, into In[gi % 3][gi].
    let expected_in: Vec<u32> = (0..3)
        .flat_map(|k| (0..8).map(move |j| if j % 3 == k { 28 + k } else { 100 * k + j }))
        .collect();
    assert_eq!(out[0], expected_in);
    // At wave size 4 the sums are per wave: 0+1+2+3 = 6, 4+…+7 = 22.
    let out = run(source, THREE_BUFFERS, 4);
    let expected_in: Vec<u32> = (0..3)
        .flat_map(|k| {
            (0..8).map(move |j| match (j % 3 == k, j < 4) {
                (true, true) => 6 + k,
                (true, false) => 22 + k,
                (false, _) => 100 * k + j,
            })
        })
        .collect();
    assert_eq!(out[0], expected_in);
}

/// A two-dimensional array takes registers row-major from its own; an
/// array without a register takes the next free run; atomics, method calls
/// and queries reach the element a lane chooses.
#[test]
fn arrays_of_two_dimensions_and_implicit_registers() {
    let source = "StructuredBuffer<uint> T[2][2] : register(t0);\n\
        StructuredBuffer<uint> U[2];\n\
        RWStructuredBuffer<uint> Counts[2] : register(u0);\n\
        RWByteAddressBuffer Out : register(u2);\n\
        [numthreads(8, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            uint row = (gi / 2) % 2, col = gi % 2;\n\
            uint n, stride;\n\
            U[col].GetDimensions(n, stride);\n\
            Out.Store(gi * 4, T[row][col].Load(0) + U[col][1] * 10 + n * 1000);\n\
            InterlockedAdd(Counts[NonUniformResourceIndex(col)][0], gi);\n\
        }\n";
    let yaml = "\
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: T
    Format: UInt32
    ArraySize: 4
    Data: [ [1], [2], [3], [4] ]
  - Name: U
    Format: UInt32
    ArraySize: 2
    Data: [ [0, 5, 0], [0, 7, 0] ]
  - Name: Counts
    Format: UInt32
    ArraySize: 2
    Data: [ [0], [100] ]
  - Name: Out
    Format: UInt32
    FillSize: 32
DescriptorSets:
  - Resources:
    - Name: T
      Kind: StructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: U
      Kind: StructuredBuffer
      DirectXBinding: { Register: 4, Space: 0 }
    - Name: Counts
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: Out
      Kind: RWByteAddressBuffer
      DirectXBinding: { Register: 2, Space: 0 }
";
    let out = run(source, yaml, 4);
    // T[row][col] is resource 2 row + col, holding 2 row + col + 1; U[col]
    // holds 3 elements, the second 5 or 7.
    let expected: Vec<u32> = (0..8)
        .map(|gi| {
            let (row, col) = ((gi / 2) % 2, gi % 2);
            2 * row + col + 1 + [5, 7][col as usize] * 10 + 3000
        })
        .collect();
    assert_eq!(out[3], expected);
    // Even lanes add 0+2+4+6 = 12 to Counts[0]; odd ones 1+3+5+7 = 16.
    assert_eq!(out[2], [12, 116]);
}

/// A local name for an element chosen per lane keeps the element of its
/// declaration; constant buffer arrays give their members.
#[test]
fn local_names_and_constant_buffer_arrays() {
    let source = "struct P { uint scale; uint bias; };\n\
        ConstantBuffer<P> Params[2] : register(b0);\n\
        RWStructuredBuffer<uint> Bufs[2] : register(u0);\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            uint k = gi & 1;\n\
            RWStructuredBuffer<uint> b = Bufs[k];\n\
            k = 0;\n\
            b[gi] = b[gi] * Params[gi & 1].scale + Params[1].bias;\n\
        }\n";
    let yaml = "\
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: Params
    Format: UInt32
    ArraySize: 2
    Data: [ [3, 10], [5, 20] ]
  - Name: Bufs
    Format: UInt32
    ArraySize: 2
    Data: [ [1, 2, 3, 4], [10, 20, 30, 40] ]
DescriptorSets:
  - Resources:
    - Name: Params
      Kind: ConstantBuffer
      DirectXBinding: { Register: 0, Space: 0 }
    - Name: Bufs
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
";
    let out = run(source, yaml, 4);
    // Lane gi scales Bufs[gi & 1][gi] by 3 or 5, then adds 20.
    assert_eq!(out[1], [23, 2, 29, 4, 10, 120, 30, 220]);
}

/// Errors that name the cause.
#[test]
fn resource_array_errors() {
    let source = "RWStructuredBuffer<uint> A[2];\n\
        RWStructuredBuffer<uint> Out;\n\
        [numthreads(1, 1, 1)]\n\
        void main() {\n\
            Out[0] = A[2][0];\n\
            Out[1] = A[0];\n\
            A[0][0] = A;\n\
        }\n";
    let text = diagnostics(source, &CompileOptions::default());
    assert!(
        text.contains("index 2 is out of bounds (the size is 2)"),
        "{text}"
    );
    assert!(
        text.contains("'A' is an array of resources[2]: index it to use one of them"),
        "{text}"
    );
    assert!(
        text.contains("error: resource 'A[0]' cannot be used as a value")
            || text.contains("a resource cannot be used as a value"),
        "{text}"
    );
}

/// Resources as members of global structs, nested and inherited, and in an
/// array of structs: each is a resource of its own, a `register` on the
/// variable binding its class from there in member order; the other
/// members are `$Globals` values.
#[test]
fn resources_as_struct_members() {
    let source = "struct Inner { RWStructuredBuffer<uint> Out; };\n\
        struct A { StructuredBuffer<uint> In; uint scale; Inner inner; };\n\
        struct B : A { RWStructuredBuffer<uint> Extra; };\n\
        A a : register(t0);\n\
        B b[2] : register(u1);\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            a.inner.Out[gi] = a.In[gi] * 2;\n\
            b[1].Extra[gi] = b[0].In.Load(gi) + a.scale;\n\
        }\n";
    let zeros = || vec![0; 4];
    let mut globals = vec![0; 16];
    globals[0] = 5;
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("aIn", Kind::StructuredBuffer, 0, vec![1, 2, 3, 4]),
            buf("b0In", Kind::StructuredBuffer, 1, vec![10, 20, 30, 40]),
            buf("b1In", Kind::StructuredBuffer, 2, zeros()),
            buf("aOut", Kind::RwStructuredBuffer, 0, zeros()),
            buf("b0Out", Kind::RwStructuredBuffer, 1, zeros()),
            buf("b0Extra", Kind::RwStructuredBuffer, 2, zeros()),
            buf("b1Out", Kind::RwStructuredBuffer, 3, zeros()),
            buf("b1Extra", Kind::RwStructuredBuffer, 4, zeros()),
            buf("Globals", Kind::ConstantBuffer, 0, globals),
        ],
        4,
    );
    // a.In is t0, the b[k].In take t1 and t2; the UAVs of b take u1 to u4
    // in member order, leaving u0 to a.inner.Out.
    assert_eq!(out[3], [2, 4, 6, 8]);
    assert_eq!(out[7], [15, 25, 35, 45]);
}

/// Local structs with resource members name the resources assigned to
/// them (from there on), copies name the same ones, and a function taking
/// such a struct is compiled for the resources of each call.
#[test]
fn local_structs_with_resource_members() {
    let source = "struct Ctx { RWStructuredBuffer<uint> Out; StructuredBuffer<uint> In; uint base; };\n\
        RWStructuredBuffer<uint> A : register(u0);\n\
        RWStructuredBuffer<uint> B : register(u1);\n\
        StructuredBuffer<uint> Src : register(t0);\n\
        void put(Ctx c, uint i) { c.Out[c.base + i] = c.In[i] + 1; }\n\
        [numthreads(4, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
            Ctx c;\n\
            c.In = Src;\n\
            c.base = 0;\n\
            c.Out = A;\n\
            put(c, gi);\n\
            Ctx d = c;\n\
            d.Out = B;\n\
            d.base = 4;\n\
            put(d, gi);\n\
            c.Out[gi] += 100;\n\
        }\n";
    let out = run_words(
        source,
        [1, 1, 1],
        &[
            buf("A", Kind::RwStructuredBuffer, 0, vec![0; 4]),
            buf("B", Kind::RwStructuredBuffer, 1, vec![0; 8]),
            buf("Src", Kind::StructuredBuffer, 0, vec![10, 20, 30, 40]),
        ],
        4,
    );
    assert_eq!(out[0], [111, 121, 131, 141]);
    assert_eq!(out[1], [0, 0, 0, 0, 11, 21, 31, 41]);
    let text = diagnostics(
        "struct S { RWBuffer<uint> B; };\n\
         RWStructuredBuffer<uint> Out;\n\
         [numthreads(1, 1, 1)]\n\
         void main() { S s; Out[0] = s.B[0]; s.B = 3; }\n",
        &CompileOptions::default(),
    );
    assert!(
        text.contains("resource member 's.B' is used before a resource is assigned to it"),
        "{text}"
    );
    assert!(
        text.contains("'s.B' is a resource: assign it a resource"),
        "{text}"
    );
}

/// A per-lane index into a very large resource array is refused, naming
/// the limit; a constant index into it works.
#[test]
fn per_lane_indices_into_huge_arrays_are_refused() {
    let text = diagnostics(
        "RWStructuredBuffer<uint> Big[1000];\n\
         [numthreads(4, 1, 1)]\n\
         void main(uint gi : SV_GroupIndex) { Big[gi][0] = 1; Big[999][0] = 2; }\n",
        &CompileOptions::default(),
    );
    assert!(
        text.contains("not supported: a non-constant index into an array of 1000 resources (at most 256 can be chosen per lane)"),
        "{text}"
    );
    assert_eq!(text.matches("error").count(), 1, "{text}");
}
