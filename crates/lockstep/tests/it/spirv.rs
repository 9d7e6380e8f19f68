//! The SPIR-V back end: spirv-val accepts every module of the corpus, each
//! wave intrinsic becomes the `GroupNonUniform*` operation the
//! specification's semantics call for (an exclusive scan for the prefix
//! operations), and resources take the documented bindings.

use std::path::{Path, PathBuf};
use std::process::Command;

use lockstep::spirv_backend::{Options, VulkanBinding};
use lockstep::{CompileOptions, FsLoader, MemoryLoader};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{GroupOperation, Op};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Compile flags from a `// flags: …` first line.
fn flags_of(source: &str) -> CompileOptions {
    let words: Vec<String> = source
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("// flags:"))
        .map(|f| f.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    lockstep::dxc::parse_dxc_flags(&words)
        .expect("valid flags")
        .options
}

fn emit(source: &str) -> Result<lockstep::spirv_backend::Spirv, String> {
    let shader = lockstep::compile(
        "test.hlsl",
        source,
        &flags_of(source),
        &MemoryLoader::default(),
    )
    .map_err(|e| e.to_string())?;
    lockstep::emit_spirv(&shader, &Options::default()).map_err(|e| e.to_string())
}

fn instructions(words: &[u32]) -> Vec<Instruction> {
    let module = rspirv::dr::load_words(words).expect("a module rspirv reads back");
    module
        .functions
        .iter()
        .flat_map(|f| f.blocks.iter())
        .flat_map(|b| b.instructions.iter().cloned())
        .collect()
}

/// The group operation of each `GroupNonUniform*` instruction with opcode
/// `op`, in order.
fn group_operations(words: &[u32], op: Op) -> Vec<GroupOperation> {
    instructions(words)
        .iter()
        .filter(|i| i.class.opcode == op)
        .filter_map(|i| {
            i.operands.iter().find_map(|o| match o {
                Operand::GroupOperation(g) => Some(*g),
                _ => None,
            })
        })
        .collect()
}

/// `spirv-val` from spirv-tools, or `None` (outside CI) to skip.
fn spirv_val() -> Option<&'static str> {
    let found = Command::new("spirv-val").arg("--version").output().is_ok();
    if !found && std::env::var_os("CI").is_some() {
        panic!("spirv-val (Debian's spirv-tools) is required in CI");
    }
    if !found {
        eprintln!("spirv-val is not installed: skipping validation");
    }
    found.then_some("spirv-val")
}

#[test]
fn spirv_val_accepts_every_corpus_module() {
    let Some(val) = spirv_val() else { return };
    let dir = std::env::temp_dir().join(format!("lockstep-spirv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut validated = 0;
    let mut failures = Vec::new();
    for folder in ["tests/spirv", "examples", "tests/check", "benches/kernels"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "hlsl"))
            .collect();
        files.sort();
        for path in files {
            let source = std::fs::read_to_string(&path).unwrap();
            let name = path.display().to_string();
            let Ok(shader) = lockstep::compile(&name, &source, &flags_of(&source), &FsLoader)
            else {
                // Examples that need their pipeline's entry point or
                // defines; the corpus of tests/spirv must compile.
                assert!(folder != "tests/spirv", "{name} does not compile");
                continue;
            };
            // Each module without and with the loop guard of a step budget.
            for step_budget in [None, Some(1000)] {
                let options = Options {
                    step_budget,
                    ..Options::default()
                };
                let module = match lockstep::emit_spirv(&shader, &options) {
                    Ok(m) => m,
                    Err(e) => {
                        let text = e.to_string();
                        if folder == "tests/spirv" || !text.contains("not support") {
                            failures.push(format!("{name}: {text}"));
                        }
                        continue;
                    }
                };
                let out = dir.join(format!("{validated}.spv"));
                std::fs::write(&out, module.to_bytes()).unwrap();
                let result = Command::new(val)
                    .args(["--target-env", "vulkan1.2"])
                    .arg(&out)
                    .output()
                    .unwrap();
                if !result.status.success() {
                    failures.push(format!(
                        "{name}: {}{}",
                        String::from_utf8_lossy(&result.stdout),
                        String::from_utf8_lossy(&result.stderr)
                    ));
                }
                validated += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(validated >= 80, "only {validated} modules validated");
}

#[test]
fn spirv_val_accepts_the_stages_of_every_draw() {
    let Some(val) = spirv_val() else { return };
    let dir = std::env::temp_dir().join(format!("lockstep-spirv-draw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut validated = 0;
    for file in [
        "examples/draw/triangle.hlsl",
        "examples/draw/rings.hlsl",
        "benches/draws/fullscreen.hlsl",
    ] {
        let source = std::fs::read_to_string(root().join(file)).unwrap();
        for (stage, entry) in [
            (lockstep::ir::Stage::Vertex, "VSMain"),
            (lockstep::ir::Stage::Pixel, "PSMain"),
        ] {
            let opts = CompileOptions {
                entry: entry.into(),
                stage,
                ..CompileOptions::default()
            };
            let shader = lockstep::compile(file, &source, &opts, &FsLoader).unwrap();
            let module = lockstep::emit_spirv(&shader, &Options::default()).unwrap();
            let out = dir.join(format!("{validated}.spv"));
            std::fs::write(&out, module.to_bytes()).unwrap();
            let result = Command::new(val)
                .args(["--target-env", "vulkan1.2"])
                .arg(&out)
                .output()
                .unwrap();
            assert!(
                result.status.success(),
                "{file} {entry}: {}",
                String::from_utf8_lossy(&result.stderr)
            );
            validated += 1;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(validated, 6);
}

#[test]
fn prefix_operations_are_exclusive_scans() {
    let m = emit(
        "RWStructuredBuffer<uint> Out : register(u0);
         RWStructuredBuffer<float> F : register(u1);
         [numthreads(32, 1, 1)]
         void main(uint i : SV_DispatchThreadID) {
             Out[i] = WavePrefixSum(i) + WavePrefixProduct(i) + WaveActiveSum(i);
             F[i] = WavePrefixSum(F[i]) * WaveActiveProduct(F[i]);
             Out[i + 32] = WavePrefixCountBits(i > 3) + WaveActiveCountBits(i > 3);
         }",
    )
    .unwrap();
    use GroupOperation::{ExclusiveScan, Reduce};
    assert_eq!(
        group_operations(&m.words, Op::GroupNonUniformIAdd),
        [ExclusiveScan, Reduce]
    );
    assert_eq!(
        group_operations(&m.words, Op::GroupNonUniformIMul),
        [ExclusiveScan]
    );
    assert_eq!(
        group_operations(&m.words, Op::GroupNonUniformFAdd),
        [ExclusiveScan]
    );
    assert_eq!(
        group_operations(&m.words, Op::GroupNonUniformFMul),
        [Reduce]
    );
    assert_eq!(
        group_operations(&m.words, Op::GroupNonUniformBallotBitCount),
        [ExclusiveScan, Reduce]
    );
    assert!(!m.partitioned);
}

#[test]
fn multiprefix_operations_scan_within_their_partition() {
    let m = emit(
        "RWStructuredBuffer<uint> Out : register(u0);
         [numthreads(32, 1, 1)]
         void main(uint i : SV_DispatchThreadID) {
             uint4 mask = WaveMatch(i % 3);
             Out[i] = WaveMultiPrefixSum(i, mask) + WaveMultiPrefixCountBits(i > 5, mask)
                 + WaveMultiPrefixBitXor(i, mask);
         }",
    )
    .unwrap();
    assert!(m.partitioned);
    let partitioned = GroupOperation::PartitionedExclusiveScanNV;
    assert_eq!(
        group_operations(&m.words, Op::GroupNonUniformIAdd),
        [partitioned, partitioned]
    );
    assert_eq!(
        group_operations(&m.words, Op::GroupNonUniformBitwiseXor),
        [partitioned]
    );
    let partitions = instructions(&m.words)
        .iter()
        .filter(|i| i.class.opcode == Op::GroupNonUniformPartitionNV)
        .count();
    assert_eq!(partitions, 1);
}

#[test]
fn quad_reads_swap_in_the_named_direction() {
    let m = emit(
        "RWStructuredBuffer<uint> Out : register(u0);
         [numthreads(16, 1, 1)]
         void main(uint i : SV_DispatchThreadID) {
             Out[i] = QuadReadAcrossX(i) + QuadReadAcrossY(i) * 100 + QuadReadAcrossDiagonal(i) * 10000;
         }",
    )
    .unwrap();
    let directions: Vec<u32> = {
        let module = rspirv::dr::load_words(&m.words).unwrap();
        let constant = |id: u32| {
            module
                .types_global_values
                .iter()
                .find(|i| i.result_id == Some(id))
                .and_then(|i| match i.operands.first() {
                    Some(Operand::LiteralBit32(v)) => Some(*v),
                    _ => None,
                })
        };
        instructions(&m.words)
            .iter()
            .filter(|i| i.class.opcode == Op::GroupNonUniformQuadSwap)
            .filter_map(|i| match i.operands.last() {
                Some(Operand::IdRef(id)) => constant(*id),
                _ => None,
            })
            .collect()
    };
    // SPIR-V's directions: 0 horizontal, 1 vertical, 2 diagonal.
    assert_eq!(directions, [0, 1, 2]);
    // A constant quad lane is a quad broadcast.
    let m = emit(
        "RWStructuredBuffer<uint> Out : register(u0);
         [numthreads(16, 1, 1)]
         void main(uint i : SV_DispatchThreadID) { Out[i] = QuadReadLaneAt(i, 2) + QuadReadLaneAt(i, i); }",
    )
    .unwrap();
    let count = |op| {
        instructions(&m.words)
            .iter()
            .filter(|i| i.class.opcode == op)
            .count()
    };
    assert_eq!(count(Op::GroupNonUniformQuadBroadcast), 1);
    assert_eq!(count(Op::GroupNonUniformShuffle), 1);
}

#[test]
fn registers_that_collide_take_the_lowest_free_binding() {
    let m = emit(
        "StructuredBuffer<uint> In : register(t0);
         RWStructuredBuffer<uint> Out : register(u0);
         AppendStructuredBuffer<uint> List : register(u2);
         cbuffer P : register(b1) { uint k; };
         [numthreads(4, 1, 1)]
         void main(uint i : SV_DispatchThreadID) {
             Out[i] = In[i] + k;
             List.Append(i);
         }",
    )
    .unwrap();
    let got: Vec<(String, u32, bool)> = m
        .bindings
        .iter()
        .map(|b| (b.name.clone(), b.binding.binding, b.uniform))
        .collect();
    let want = [
        ("In", 0, false),
        ("Out", 3, false),
        ("List", 2, false),
        ("P", 1, true),
        ("List.counter", 4, false),
    ];
    for (name, binding, uniform) in want {
        assert!(
            got.contains(&(name.to_string(), binding, uniform)),
            "{name} at {binding}: {got:?}"
        );
    }
}

/// `[[vk::binding(binding, set)]]` places a resource or constant buffer
/// (set 0 where only the binding is written); the others take theirs
/// around it, and two asking for one binding are an error naming both.
#[test]
fn vk_binding_attributes_place_resources() {
    let m = emit(
        "[[vk::binding(5, 1)]] RWStructuredBuffer<uint> Out : register(u0);
         [[vk::binding(0)]] StructuredBuffer<uint> In : register(t0);
         [[vk::binding(3, 0)]] cbuffer C : register(b0) { uint k; };
         RWStructuredBuffer<uint> Free : register(u1);
         [numthreads(4, 1, 1)]
         void main(uint i : SV_DispatchThreadID) { Out[i] = In[i] + k; Free[i] = i; }",
    )
    .unwrap();
    let got: Vec<(String, u32, u32)> = m
        .bindings
        .iter()
        .map(|b| (b.name.clone(), b.binding.set, b.binding.binding))
        .collect();
    for want in [("Out", 1, 5), ("In", 0, 0), ("C", 0, 3), ("Free", 0, 1)] {
        assert!(
            got.contains(&(want.0.to_string(), want.1, want.2)),
            "{want:?}: {got:?}"
        );
    }
    let e = emit(
        "[[vk::binding(2)]] RWStructuredBuffer<uint> A : register(u0);
         [[vk::binding(2)]] RWStructuredBuffer<uint> B : register(u1);
         [numthreads(4, 1, 1)]
         void main(uint i : SV_DispatchThreadID) { A[i] = i; B[i] = i; }",
    )
    .unwrap_err();
    assert!(e.contains("'A' and 'B' are both bound to binding 2"), "{e}");
}

#[test]
fn given_bindings_are_kept_and_duplicates_are_errors() {
    let source = "StructuredBuffer<uint> In : register(t0);
         RWStructuredBuffer<uint> Out : register(u0);
         [numthreads(4, 1, 1)]
         void main(uint i : SV_DispatchThreadID) { Out[i] = In[i]; }";
    let shader = lockstep::compile(
        "t.hlsl",
        source,
        &flags_of(source),
        &MemoryLoader::default(),
    )
    .unwrap();
    let ids: Vec<_> = (0..2).map(lockstep::ir::ResourceId).collect();
    let at = |set, binding| VulkanBinding { set, binding };
    let options = Options {
        bindings: vec![(ids[0], at(1, 7)), (ids[1], at(0, 2))],
        ..Options::default()
    };
    let m = lockstep::emit_spirv(&shader, &options).unwrap();
    assert_eq!(m.bindings[0].binding, at(1, 7));
    assert_eq!(m.bindings[1].binding, at(0, 2));
    let options = Options {
        bindings: vec![(ids[0], at(0, 2)), (ids[1], at(0, 2))],
        ..Options::default()
    };
    let e = lockstep::emit_spirv(&shader, &options)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'In' and 'Out' are both bound to binding 2"),
        "{e}"
    );
}

/// Vulkan has no double-precision transcendentals, and needs none: a
/// `double` argument takes the `float` function, as DXC converts it.
#[test]
fn a_double_takes_the_float_transcendental() {
    emit(
        "RWStructuredBuffer<double> Out : register(u0);
         [numthreads(4, 1, 1)]
         void main(uint i : SV_DispatchThreadID) {
             Out[i] = sin(Out[i]);
         }",
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_numwaves_group_takes_its_size_from_the_wave_size() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);
         [numWaves(3)]
         void main(uint3 g : SV_GroupID) { Out[g.x] = GetGroupWaveCount(); }";
    let shader = lockstep::compile(
        "t.hlsl",
        source,
        &flags_of(source),
        &MemoryLoader::default(),
    )
    .unwrap();
    let fixed = Options {
        wave_size: Some(16),
        ..Options::default()
    };
    let m = lockstep::emit_spirv(&shader, &fixed).unwrap();
    assert_eq!(m.workgroup_size, Some([48, 1, 1]));
    let m = lockstep::emit_spirv(&shader, &Options::default()).unwrap();
    assert_eq!(m.workgroup_size, None);
}

/// A switch past what one OpSwitch can hold is an error at the switch, not
/// a module spirv-val rejects.
#[test]
fn a_switch_past_an_opswitch_s_size_is_an_error() {
    let cases = |n: u32| -> String {
        (0..n)
            .map(|i| format!("case {i}: v = {i}; break;\n"))
            .collect()
    };
    let source = |n: u32| {
        format!(
            "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {{\n    uint v = 0;\n    switch (id.x) {{\n{}    }}\n    Out[0] = v;\n}}\n",
            cases(n)
        )
    };
    let err = emit(&source(16384)).expect_err("refused");
    assert!(
        err.contains("a switch with 16384 case values: a SPIR-V OpSwitch takes at most 16383"),
        "{err}"
    );
    assert!(emit(&source(100)).is_ok());
}
