//! Dispatches proven clean before they run (`Program::prove_clean`): which
//! shaders the proof settles, by hand, and a check that skips checked mode
//! where it holds gives the report checked mode gives.

use std::path::PathBuf;

use super::check::{FsLoader, jobs, repo};
use lockstep::exec::Program;
use lockstep::{CheckReport, CompileOptions, MemoryLoader, RunOptions, Shader};

fn compile(source: &str) -> Shader {
    lockstep::compile(
        "proof.hlsl",
        source,
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.render(false)))
}

/// What the proof says of `body` in a 64-thread group over 4 groups, with
/// `In` and `Out` (256 words each, declared as `decls` says) as resources 0
/// and 1: `None` where it fails, else whether a word may be stored twice.
fn prove(decls: &str, threads: &str, groups: [u32; 3], body: &str) -> Option<bool> {
    let source = format!(
        "{decls}\n[numthreads({threads})]\nvoid main(uint3 id : SV_DispatchThreadID) {{\n{body}\n}}\n"
    );
    proved(&source, groups, |p| {
        p.filter(|p| !p.group_check).map(|p| p.overwritten)
    })
}

/// `what` of the proofs of `source` at waves 8 and 32, over `groups`
/// groups with `In` and `Out` (256 words each), which must agree.
fn proved<T: PartialEq + std::fmt::Debug>(
    source: &str,
    groups: [u32; 3],
    what: impl Fn(Option<lockstep::exec::Proof>) -> T,
) -> T {
    let shader = compile(source);
    let checked = Program::compile_checked(&shader.module).unwrap();
    let [at8, at32] = [8, 32].map(|w| what(checked.prove_clean(w, groups, &[1024, 1024])));
    assert_eq!(at8, at32, "the wave size does not matter:\n{source}");
    at8
}

const BUFFERS: &str =
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);";

/// Each case by hand: the proof holds where every access stays in bounds
/// and aligned over the 256 threads and nothing undefined is read, and it
/// clears a second write only for stores one-to-one in the thread.
#[test]
fn proofs_hold_exactly_where_the_accesses_are_bounded() {
    let one_d = |body: &str| prove(BUFFERS, "64, 1, 1", [4, 1, 1], body);
    // In bounds, each word written once.
    assert_eq!(one_d("Out[id.x] = In[id.x] * 2;"), Some(false));
    assert_eq!(one_d("Out[255 - id.x] = In[id.x >> 1];"), Some(false));
    assert_eq!(
        one_d("Out[id.x - 1] = 1;"),
        None,
        "thread 0 wraps past the end"
    );
    // Two lanes of a wave that may store different values at one word
    // (`conflicting-stores`) are left to checked mode; one value is not.
    assert_eq!(one_d("Out[id.x / 2] = In[id.x % 7];"), None);
    assert_eq!(one_d("Out[id.x / 2] = 5;"), Some(true));
    // A group's base plus the thread's place in it: each word once, the
    // base read from the first lane or not.
    let grouped = |body: &str| {
        proved(
            &format!(
                "{BUFFERS}\n[numthreads(64, 1, 1)]\nvoid main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) {{\n{body}\n}}\n"
            ),
            [4, 1, 1],
            |p| p.map(|p| p.overwritten),
        )
    };
    assert_eq!(grouped("Out[gid.x * 64 + gi] = In[gi];"), Some(false));
    assert_eq!(
        grouped("uint base = WaveReadLaneFirst(gid.x * 64); Out[base + gi] = In[gi];"),
        Some(false)
    );
    // Groups that overlap: a word stored twice, never by one wave.
    assert_eq!(grouped("Out[gid.x * 32 + gi] = In[gi];"), Some(true));
    assert_eq!(grouped("Out[gid.x * 32 + (gi & 31)] = In[gi];"), None);
    assert_eq!(grouped("Out[gid.x * 32 + (gi & 31)] = 1;"), Some(true));
    // The last thread's element is past the end.
    assert_eq!(one_d("Out[id.x + 1] = 1;"), None);
    assert_eq!(one_d("Out[id.x] = In[id.x + 1];"), None);
    // Words written by two threads; a thread's own words written again.
    assert_eq!(one_d("Out[id.x & 7] = id.x;"), None);
    assert_eq!(one_d("Out[(id.x & 7) + 8 * (id.x >> 6)] = 3;"), Some(true));
    assert_eq!(one_d("Out[id.x] = 1; Out[id.x] = 2;"), Some(false));
    assert_eq!(
        one_d("for (uint k = 0; k < 4; k++) Out[id.x] += k;"),
        Some(false),
        "a store in a loop, at the thread's own word"
    );
    assert_eq!(
        one_d("for (uint k = 0; k < 4; k++) Out[(id.x + k) & 255] = k;"),
        Some(true),
        "the loop moves the address"
    );
    assert_eq!(
        one_d("Out[id.x] = 1; InterlockedAdd(Out[id.x], 1);"),
        Some(true),
        "a store and an atomic"
    );
    // Undefined values, reads of other lanes, division, addresses from memory.
    assert_eq!(
        one_d("uint v; if (In[id.x] > 3) v = 1; Out[id.x] = v;"),
        None
    );
    assert_eq!(
        one_d("uint v; if (In[id.x] > 3) v = 1; else v = 2; Out[id.x] = v;"),
        Some(false),
        "assigned on both branches"
    );
    assert_eq!(
        one_d("uint v; if (In[id.x] > 3) v = 1; else if (id.x > 5) v = 2; Out[id.x] = v;"),
        None,
        "not on the innermost else"
    );
    // Reads of other lanes: at the entry's level, of a lane every wave
    // fills, and of whole quads.
    assert_eq!(
        one_d("Out[id.x] = WaveReadLaneAt(In[id.x], 3);"),
        Some(false)
    );
    assert_eq!(
        one_d("Out[id.x] = WaveReadLaneAt(In[id.x], WaveGetLaneIndex() ^ 1);"),
        Some(false)
    );
    assert_eq!(
        one_d("Out[id.x] = WaveReadLaneAt(In[id.x], WaveGetLaneIndex() + 1);"),
        None,
        "the last lane reads past the wave"
    );
    assert_eq!(
        one_d("Out[id.x] = WaveReadLaneAt(In[id.x], In[id.x]);"),
        None,
        "a lane from memory"
    );
    assert_eq!(
        one_d("Out[id.x] = QuadReadAcrossX(In[id.x]) + QuadReadLaneAt(id.x, 2);"),
        Some(false)
    );
    assert_eq!(
        one_d("if (id.x < 32) Out[id.x] = WaveReadLaneAt(In[id.x], 0);"),
        None,
        "in a branch, lane 0 may be inactive"
    );
    assert_eq!(
        one_d("if (id.x < 31) Out[id.x] = QuadAny(true);"),
        None,
        "in a branch, a quad may be partial"
    );
    assert_eq!(
        one_d("if (id.x > 5) return; Out[id.x] = QuadReadAcrossY(id.x);"),
        None,
        "after lanes left"
    );
    // Six threads per group: the last wave's lanes 0..6, one quad partial.
    let six = |body: &str| prove(BUFFERS, "6, 1, 1", [4, 1, 1], body);
    assert_eq!(six("Out[id.x] = WaveReadLaneAt(In[id.x], 5);"), Some(false));
    assert_eq!(six("Out[id.x] = WaveReadLaneAt(In[id.x], 6);"), None);
    assert_eq!(six("Out[id.x] = QuadReadAcrossX(In[id.x]);"), None);
    assert_eq!(
        one_d("Out[id.x] = In[id.x] / (id.x + 1);"),
        Some(false),
        "never 0"
    );
    assert_eq!(
        one_d("Out[id.x] = In[id.x] / In[255 - id.x];"),
        None,
        "maybe 0"
    );
    assert_eq!(one_d("Out[In[id.x] & 255] = 1;"), Some(true));
    assert_eq!(one_d("Out[In[id.x]] = 1;"), None);
    // Groupshared memory: a phase between barriers either stores, one word
    // per thread, or loads words every thread stored before.
    let shared = format!("{BUFFERS}\ngroupshared uint Tile[64];");
    let sync = "GroupMemoryBarrierWithGroupSync();";
    let gi = |body: &str| {
        let source = format!(
            "{shared}\n[numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {{\n{body}\n}}\n"
        );
        let shader = compile(&source);
        let checked = Program::compile_checked(&shader.module).unwrap();
        checked
            .prove_clean(32, [4, 1, 1], &[1024, 1024])
            .filter(|p| !p.group_check)
            .map(|p| p.overwritten)
    };
    assert_eq!(
        gi(&format!("Tile[63 - gi] = 1; {sync} Out[id.x] = 2;")),
        Some(false),
        "a store per thread, read by nothing"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync} Out[id.x] = Tile[gi] + Tile[gi ^ 1];"
        )),
        Some(false),
        "the tile: each word stored once, then read"
    );
    assert_eq!(
        gi("Tile[gi] = In[id.x]; Out[id.x] = Tile[gi ^ 1];"),
        None,
        "no barrier: a race"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi / 2] = In[id.x]; {sync} Out[id.x] = Tile[gi];"
        )),
        None,
        "two threads store one word"
    );
    assert_eq!(
        gi(&format!("Tile[gi % 32] = In[id.x]; {sync} Out[id.x] = 1;")),
        None,
        "threads 32 apart store one word"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = 1; {sync} Tile[gi] = Tile[gi ^ 1]; {sync} Out[id.x] = Tile[gi];"
        )),
        None,
        "a phase that loads the words it stores"
    );
    assert_eq!(
        gi(&format!(
            "if (gi > 0) Tile[gi] = In[id.x]; {sync} Out[id.x] = Tile[gi];"
        )),
        None,
        "word 0 is read but never stored"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; if (In[id.x] > 3) {{ {sync} }} Out[id.x] = Tile[gi];"
        )),
        None,
        "a barrier not every lane reaches"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync} Out[id.x] = Tile[gi + 1];"
        )),
        None,
        "the last thread reads past the tile"
    );
    // Loops whose every exit all threads take alike are walked round by
    // round; a branch on the thread's index narrows the threads in it.
    let tree = |step: &str| {
        format!(
            "Tile[gi] = In[id.x]; {sync}\n\
             for (uint s = 32; s > 0; s >>= 1) {{ {step} {sync} }}\n\
             Out[id.x] = Tile[0];"
        )
    };
    assert_eq!(
        gi(&tree("if (gi < s) Tile[gi] += Tile[gi + s];")),
        Some(false),
        "a tree reduction: each round reads words no thread writes in it"
    );
    assert_eq!(
        gi(&tree("if (s > gi) Tile[gi] = Tile[gi] + Tile[gi + s];")),
        Some(false)
    );
    assert_eq!(
        gi(&tree("if (gi < s) Tile[gi] += Tile[gi + s - 1];")),
        None,
        "thread 0 reads the word thread s - 1 writes"
    );
    assert_eq!(
        gi(&tree("if (gi <= s) Tile[gi] += Tile[gi + s];")),
        None,
        "thread s writes the word thread 0 reads"
    );
    assert_eq!(
        gi(&tree("Tile[gi] += Tile[gi ^ s];")),
        None,
        "every thread writes"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync}\n\
             for (uint s = 64; s > 0; s >>= 1) {{ if (gi < s) Tile[gi] += Tile[gi + s]; {sync} }}\n\
             Out[id.x] = Tile[0];"
        )),
        None,
        "the first round reads past the tile"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync}\n\
             for (uint k = 0; k < In[id.x]; k++) {{ {sync} }}\n\
             Out[id.x] = Tile[gi];"
        )),
        None,
        "each thread's own trip count"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync}\n\
             for (uint k = 0; k < 3; k++) {{ if (k == 1) break; {sync} }}\n\
             Out[id.x] = Tile[gi ^ 1];"
        )),
        Some(false),
        "a break every thread takes alike"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync}\n\
             for (uint k = 0; k < 3; k++) {{ if (gi == 1) break; {sync} }}\n\
             Out[id.x] = Tile[gi ^ 1];"
        )),
        None,
        "one thread leaves the loop"
    );
    assert_eq!(
        gi(&tree("if ((int)gi < (int)s) Tile[gi] += Tile[gi + s];").replace("uint s", "int s")),
        Some(false),
        "signed: `>>=` of a positive int"
    );
    // Words apart modulo a step: the odd words stored, the even ones read.
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync} if (gi < 32) {{ uint a = 2 * gi; uint b = a + 1; Tile[b] += Tile[a]; }} {sync} Out[id.x] = Tile[gi];"
        )),
        Some(false),
        "an up-sweep step"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync} if (gi < 31) Tile[2 * gi + 1] += Tile[2 * gi + 3]; {sync} Out[id.x] = Tile[gi];"
        )),
        None,
        "thread 0 reads the word thread 1 stores"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync} uint r = 0; if (gi < 32) r = Tile[gi + 1]; if (gi >= 32) Tile[gi] = r; {sync} Out[id.x] = Tile[gi];"
        )),
        None,
        "thread 31 reads the word thread 32 stores"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync} uint r = 0; if (gi < 32) r = Tile[gi + 1]; if (gi >= 33) Tile[gi] = r; {sync} Out[id.x] = Tile[gi];"
        )),
        Some(false)
    );
    // Branches bound a coordinate from below, or pick one thread.
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync} uint l = 0; if (gi > 0) l = Tile[gi - 1]; Out[id.x] = l;"
        )),
        Some(false),
        "a neighbour"
    );
    assert_eq!(
        gi(&format!(
            "Tile[gi] = In[id.x]; {sync} uint l = 0; if (gi >= 1) l = Tile[gi - 2]; Out[id.x] = l;"
        )),
        None,
        "thread 1 reads before the tile"
    );
    assert_eq!(
        gi(&format!(
            "if (gi == 1) Tile[3] = 5; {sync} Out[id.x] = Tile[3];"
        )),
        Some(false),
        "one thread stores"
    );
    assert_eq!(
        gi(&format!(
            "if (gi < 2) Tile[3] = 5; {sync} Out[id.x] = Tile[3];"
        )),
        None,
        "two threads store one word"
    );
    assert_eq!(
        one_d("Out[WaveReadLaneFirst(id.x)] = 1;"),
        Some(true),
        "another lane's index, in bounds"
    );
    assert_eq!(
        one_d("Out[WaveActiveMax(id.x) + 1] = 1;"),
        None,
        "the last wave's maximum runs past the end"
    );
    // Atomics: apart from the phase's loads and stores; a store in a
    // branch on the group's index covers the words of the threads in it.
    let bins = |body: &str| {
        gi(&format!(
            "if (gi < 16) Tile[gi] = 0; {sync}\n{body}\nOut[id.x] = Tile[gi & 15];"
        ))
    };
    assert_eq!(
        bins(&format!("InterlockedAdd(Tile[In[id.x] & 15], 1); {sync}")),
        Some(false),
        "a histogram"
    );
    assert_eq!(
        bins(&format!("InterlockedMax(Tile[gi & 15], In[id.x]); {sync}")),
        Some(false)
    );
    assert_eq!(
        bins("InterlockedAdd(Tile[In[id.x] & 15], 1);"),
        None,
        "the phase reads the bins it updates"
    );
    assert_eq!(
        gi(&format!(
            "if (gi < 16) Tile[gi] = 0; {sync} Out[id.x] = Tile[gi & 31];"
        )),
        None,
        "words 16 to 31 never stored"
    );
    assert_eq!(
        gi(&format!(
            "if (id.x < 16) Tile[gi] = 0; {sync} Out[id.x] = Tile[gi & 15];"
        )),
        None,
        "only the first group stores"
    );
    assert_eq!(
        gi(&format!(
            "if (gi >= 16) Tile[gi] = 0; else Tile[gi] = 1; {sync} Out[id.x] = Tile[gi & 15];"
        )),
        None,
        "each branch stores for some threads only"
    );
    assert_eq!(
        one_d("if (id.x < 200) Out[id.x + 56] = 1;"),
        Some(false),
        "a bounds guard"
    );
    assert_eq!(one_d("if (id.x < 201) Out[id.x + 56] = 1;"), None);
    assert_eq!(one_d("if (id.x > 10) Out[id.x - 11] = 1;"), Some(false));
    assert_eq!(one_d("if (id.x > 10) Out[id.x - 12] = 1;"), None);
    assert_eq!(
        one_d("uint a = 300; if (id.x < 100) a = id.x; Out[a] = 1;"),
        None,
        "past the branch, the threads it did not run keep 300"
    );
    assert_eq!(
        one_d("if (id.x < 200) Out[id.x] = 1; else Out[id.x - 200] = 2;"),
        Some(true)
    );
    assert_eq!(
        one_d("if (id.x < 200) Out[id.x] = 1; else Out[id.x - 201] = 2;"),
        None,
        "thread 200 takes the else branch"
    );
    assert_eq!(
        one_d("if (id.x < 200) Out[id.x] = 1; else Out[id.x + 56] = 2;"),
        None,
        "the else branch runs on the other threads"
    );
    // Two dimensions: 16 × 16 threads, rows of 16 words apart or 15.
    let two_d = |body: &str| prove(BUFFERS, "8, 8, 1", [2, 2, 1], body);
    assert_eq!(two_d("Out[id.y * 16 + id.x] = 1;"), Some(false));
    assert_eq!(
        two_d("Out[id.y * 15 + id.x] = 1;"),
        Some(true),
        "rows overlap"
    );
    assert_eq!(
        two_d("Out[id.y * 17 + id.x] = 1;"),
        None,
        "the last row runs past the end"
    );
    // Byte addresses: aligned, or not.
    let bytes =
        "RWByteAddressBuffer Raw : register(u0);\nRWStructuredBuffer<uint> Out : register(u1);";
    assert_eq!(
        prove(bytes, "64, 1, 1", [4, 1, 1], "Raw.Store(id.x * 4, 1);"),
        Some(false)
    );
    assert_eq!(
        prove(bytes, "64, 1, 1", [4, 1, 1], "Raw.Store(id.x * 2, 1);"),
        None,
        "misaligned"
    );
    // A `uint4` per thread: four stores at one address, 16 bytes apart.
    let quads = "RWStructuredBuffer<uint4> Wide : register(u0);\nRWStructuredBuffer<uint> Out : register(u1);";
    assert_eq!(
        prove(
            quads,
            "64, 1, 1",
            [1, 1, 1],
            "Wide[id.x] = uint4(1, 2, 3, id.x);"
        ),
        Some(false)
    );
    assert_eq!(
        prove(
            quads,
            "64, 1, 1",
            [4, 1, 1],
            "Wide[id.x] = uint4(1, 2, 3, id.x);"
        ),
        None,
        "256 threads of 16 bytes past 1024"
    );
}

/// Shaders that the proof settles at some wave size, beyond the examples:
/// each with the reports it must give (see `proven_checks_report_what_checked_mode_reports`).
const CLEAN: &[&str] = &[
    // The prefix sums differ between wave sizes: a portability issue.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = WavePrefixSum(In[id.x & 7]); }",
    // A float sum: its order shows.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<float> Out : register(u0);\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = WaveActiveSum(0.1f * In[id.x & 7]); }",
    // Threads of different groups that share words: the last store wins,
    // in the schedule's order.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) { Out[gi] = id.x; }",
    // Two statements write one buffer: the report names the one that wrote
    // the differing words.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
       if (id.x < 32) Out[id.x] = 7; else Out[id.x] = WaveGetLaneCount(); }",
    // A groupshared tile between two barriers; the lane count differs.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     groupshared uint Tile[64];\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {\n\
       Tile[63 - gi] = In[id.x & 7]; GroupMemoryBarrierWithGroupSync();\n\
       uint v = Tile[gi ^ 1] + WaveGetLaneCount(); GroupMemoryBarrierWithGroupSync();\n\
       Tile[gi] = v; GroupMemoryBarrierWithGroupSync(); Out[id.x] = Tile[gi]; }",
    // A variable assigned on both branches of an `if`.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
       uint v; if ((id.x & 1) == 0) v = WaveGetLaneCount(); else v = In[id.x & 7]; Out[id.x] = v; }",
    // Lane reads at the entry's level: a butterfly and a quad swap.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
       uint v = In[id.x & 7] + id.x;\n\
       Out[id.x] = WaveReadLaneAt(v, WaveGetLaneIndex() ^ 1) + QuadReadAcrossY(v) * 3; }",
    // A tree reduction in groupshared memory, a barrier in each round.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     groupshared uint Tile[64];\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {\n\
       Tile[gi] = In[id.x & 7] + WaveGetLaneCount(); GroupMemoryBarrierWithGroupSync();\n\
       for (uint s = 32; s > 0; s >>= 1) {\n\
         if (gi < s) Tile[gi] += Tile[gi + s];\n\
         GroupMemoryBarrierWithGroupSync(); }\n\
       if (id.x < 58) Out[id.x + 6] = Tile[0]; }",
    // A histogram by groupshared atomics.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     groupshared uint Bins[16];\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {\n\
       if (gi < 16) Bins[gi] = 0; GroupMemoryBarrierWithGroupSync();\n\
       InterlockedAdd(Bins[In[id.x & 7] & 15], 1); GroupMemoryBarrierWithGroupSync();\n\
       Out[id.x] = Bins[gi & 15]; }",
    // An atomic's result read: the order of the waves shows.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     groupshared uint Count;\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {\n\
       if (gi == 0) Count = 0; GroupMemoryBarrierWithGroupSync();\n\
       uint slot; InterlockedAdd(Count, 1, slot); Out[id.x] = slot; }",
    // Clean: a counter per thread, and a total by atomics.
    "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
       if (id.x < 32) Out[id.x + 32] = In[id.x & 7] + 1; InterlockedAdd(Out[0], 1); }",
];

/// Shaders with a finding that only a rule of the proof rules out: the
/// proof must fail, and the check report the finding (a race in
/// groupshared memory, a quad operation in a branch).
const UNPROVEN: &[(&str, &str)] = &[
    (
        "groupshared-race",
        "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     groupshared uint Tile[64];\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {\n\
       Tile[gi] = 1; GroupMemoryBarrierWithGroupSync();\n\
       Tile[gi] = Tile[63 - gi]; GroupMemoryBarrierWithGroupSync(); Out[id.x] = Tile[gi]; }",
    ),
    (
        "groupshared-race",
        "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
     groupshared uint Tile[64];\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {\n\
       Tile[gi] = 1; GroupMemoryBarrierWithGroupSync();\n\
       Tile[gi % 32] = gi; GroupMemoryBarrierWithGroupSync(); Out[id.x] = Tile[gi]; }",
    ),
    (
        "incomplete-quad",
        "RWStructuredBuffer<uint> Out : register(u0);\n\
     [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
       if (id.x % 8 < 6) Out[id.x] = QuadAll(id.x > 3); }",
    ),
];

/// The check of `shader` and the check entirely in checked mode, which
/// must fail alike or give the same JSON report; `None` where both fail.
fn both_checks(
    shader: &Shader,
    pipeline: &lockstep::pipeline::Pipeline,
    name: &str,
) -> Option<(CheckReport, CheckReport)> {
    let run = RunOptions::default();
    let fast = lockstep::check(shader, pipeline, &run, &mut |_, _| {});
    let reference = lockstep::check_in_checked_mode(shader, pipeline, &run, &mut |_, _| {});
    let (fast, reference) = match (fast, reference) {
        (Ok(f), Ok(r)) => (f, r),
        (Err(f), Err(r)) => {
            assert_eq!(f.to_string(), r.to_string(), "{name}");
            return None;
        }
        (f, r) => panic!("{name}: {:?} against {:?}", f.err(), r.err()),
    };
    assert_eq!(
        serde_json::to_string_pretty(&fast).unwrap(),
        serde_json::to_string_pretty(&reference).unwrap(),
        "{name}"
    );
    Some((fast, reference))
}

/// Over the examples, the corpus of tests/check and shaders the proof
/// settles, a check that runs proven sizes as `run` runs them reports, as
/// JSON and as text, what a check in checked mode at every size reports;
/// and the proof settles some size of most of them.
#[test]
fn proven_checks_report_what_checked_mode_reports() {
    let mut all: Vec<(PathBuf, String, String)> = Vec::new();
    let files = jobs(&repo().join("examples"), None)
        .into_iter()
        .chain(jobs(&repo().join("tests/check"), Some("ub.yaml")))
        .chain(jobs(&repo().join("tests/proof"), Some("pipeline.yaml")));
    for (yaml, hlsl) in files {
        let source = std::fs::read_to_string(&hlsl).unwrap();
        all.push((yaml, hlsl.display().to_string(), source));
    }
    for (i, source) in CLEAN.iter().enumerate() {
        let yaml = repo().join("tests/check/ub.yaml");
        all.push((yaml, format!("clean{i}.hlsl"), source.to_string()));
    }
    for (i, (kind, source)) in UNPROVEN.iter().enumerate() {
        let yaml = repo().join("tests/check/ub.yaml");
        all.push((yaml, format!("unproven{i}-{kind}.hlsl"), source.to_string()));
    }
    let mut proven = 0;
    let mut corpus_proven = 0;
    for (yaml, name, source) in &all {
        let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(yaml).unwrap()).unwrap();
        let opts = CompileOptions {
            entry: pipeline.entry.clone().unwrap_or_else(|| "main".into()),
            ..CompileOptions::default()
        };
        let shader = lockstep::compile(name, source, &opts, &FsLoader)
            .unwrap_or_else(|e| panic!("{}", e.render(false)));
        let Some((fast, reference)) = both_checks(&shader, &pipeline, name) else {
            continue;
        };
        assert_eq!(
            fast.render(&shader, false),
            reference.render(&shader, false),
            "{name}"
        );
        assert!(reference.proven.is_empty());
        assert!(
            !name.starts_with("clean") || fast.proven == fast.wave_sizes,
            "{name}: proven at {:?}",
            fast.proven
        );
        if let Some((_, kind)) = name
            .strip_prefix("unproven")
            .and_then(|n| n.split_once('-'))
        {
            // Sizes where checked mode reports the finding are not proven
            // (others may be, by one group's checked run).
            let kind = kind.trim_end_matches(".hlsl");
            let found: Vec<u32> = fast
                .findings
                .iter()
                .filter(|f| f.kind == kind)
                .flat_map(|f| f.wave_sizes.iter().copied())
                .collect();
            assert!(!found.is_empty(), "{name}: {}", fast.render(&shader, false));
            assert!(
                found.iter().all(|w| !fast.proven.contains(w)),
                "{name}: proven at {:?}, found at {found:?}",
                fast.proven
            );
        }
        // The corpus of user-style shaders: its bugs are found, and only
        // those.
        if name.contains("tests/proof/") {
            corpus_proven += usize::from(fast.proven == fast.wave_sizes);
            assert_eq!(
                fast.is_clean(),
                !name.contains("/bug_"),
                "{name}: {}",
                fast.render(&shader, false)
            );
        }
        proven += usize::from(!fast.proven.is_empty());
    }
    // The examples' and the corpus' others use groupshared memory,
    // textures, lane reads or undefined values, as their findings need.
    assert!(
        proven > CLEAN.len(),
        "the proof settled some size of {proven} of {} shaders",
        all.len()
    );
    // `tile_transpose` stores at `y * 16 + x` from `gi / 16` and `gi % 16`:
    // the proof cannot show two lanes of a wave apart there.
    assert!(
        corpus_proven >= 17,
        "{corpus_proven} of the corpus' clean shaders proven at every size"
    );
}

/// Where the proof cannot settle groupshared memory, a divisor, a lane
/// read or a barrier, it leaves it to one group's checked run only where
/// every group meets it alike: each address or value, and every branch,
/// loop exit and case around it, computed from the group's thread
/// coordinates, wave queries and constants alone. Each case by hand, over a
/// 64-thread group, 4 groups, at waves 8 and 32: `Some(true)` where left to
/// a group's run, `None` where the proof fails.
#[test]
fn checks_are_left_to_one_group_only_where_every_group_meets_them_alike() {
    let prove_with = |function: &str, body: &str| {
        let source = format!(
            "{BUFFERS}\ngroupshared uint Tile[64];\n{function}\n[numthreads(64, 1, 1)]\n\
             void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {{\n{body}\n\
             GroupMemoryBarrierWithGroupSync();\nOut[id.x] = Tile[gi];\n}}\n"
        );
        proved(&source, [4, 1, 1], |p| p.map(|p| p.group_check))
    };
    let prove = |body: &str| prove_with("", body);
    // Alike in every group: each wave's slot, a race on gi % 32, a loop
    // whose trip count follows the thread.
    let fill = "Tile[gi] = 0; GroupMemoryBarrierWithGroupSync();";
    assert_eq!(
        prove(&format!(
            "{fill} if (WaveIsFirstLane()) Tile[gi / WaveGetLaneCount()] = 1;"
        )),
        Some(true)
    );
    assert_eq!(prove("Tile[gi % 32] = gi;"), Some(true));
    assert_eq!(
        prove(&format!(
            "{fill} for (uint w = 0; w < gi / 16; w++) Tile[(w * 7 + gi) % 64] += 1;"
        )),
        Some(true)
    );
    // Not alike: an address from the dispatch's coordinate or from memory,
    // a branch, a loop's trip count, a break or a case on memory, a value
    // from memory where the paths of a branch meet, or carried round a
    // loop (unrolled, and walked once).
    for body in [
        "Tile[id.x % 64] = 1;",
        "Tile[In[id.x] % 64] = 1;",
        "if (In[id.x] > 5) Tile[gi % 32] = 1;",
        "for (uint i = 0; i < In[0]; i++) Tile[(gi + i) % 64] = i;",
        "for (uint w = 0; w < gi; w++) { if (In[w & 255] == 0) break; Tile[(gi + w) % 64] = 1; }",
        "switch (In[id.x] & 1) { case 0: Tile[gi % 32] = 1; break; default: break; }",
        "uint a = gi; if (gi < 32) a = In[gi]; else a = gi + 1; Tile[a % 64] = 1;",
        "uint a = In[id.x]; if (gi < 4) a = 1; else Tile[a % 64] = 0;",
        "uint a = In[id.x]; for (uint w = 0; w < gi; w++) { if (w == 2) continue; a = w; } Tile[a % 64] = 0;",
        "for (uint i = 0; i < gi; i++) { uint r = gi; for (uint j = 0; j < gi; j++) { Tile[r % 64] = 0; r = In[j & 255]; } }",
        "uint s = gi; for (uint i = 0; i < gi; i++) { Tile[s % 64] = 0; uint t = gi; for (uint j = 0; j < gi; j++) { s = t; t = In[j & 255]; } }",
        "uint a = In[id.x]; if (gi < 4) a = 1; Tile[a % 64] = 0;",
        "uint s = gi; for (uint k = 0; k < 2; k++) { Tile[s % 64] = 1; s = In[k]; }",
        "uint s = gi; for (uint w = 0; w < gi; w++) { Tile[s % 64] = w; s = In[w & 255]; }",
    ] {
        assert_eq!(prove(&format!("{fill} {body}")), None, "{body}");
    }
    // Lanes that return from a function on memory leave the rest of it to
    // lanes that differ between groups.
    let returns = "void f(uint gi, uint v) { if (v == 0) return; Tile[gi % 32] = 1; }";
    assert_eq!(
        prove_with(returns, &format!("{fill} f(gi, In[id.x]);")),
        None
    );
    assert_eq!(
        prove_with(returns, &format!("{fill} f(gi, 1);")),
        Some(true)
    );
    // Divisors, lane reads and barriers the proof cannot settle: left to a
    // group's run on values and lanes alike in every group, not otherwise.
    for (body, left) in [
        ("Out[id.x] = In[id.x] / (gi % 4);", true),
        ("Out[id.x] = In[id.x] / (In[gi] & 3);", false),
        (
            "if (gi < 32) Out[id.x] = WaveReadLaneAt(In[id.x], gi + 1);",
            true,
        ),
        (
            "if (gi < 32) Out[id.x] = WaveReadLaneAt(In[id.x], In[gi] & 7);",
            false,
        ),
        (
            "if (In[id.x] > 3) Out[id.x] = QuadReadAcrossX(In[id.x]);",
            false,
        ),
        ("if (gi < 32) Out[id.x] = QuadReadAcrossX(In[id.x]);", true),
        ("if (gi < 32) GroupMemoryBarrierWithGroupSync();", true),
        (
            "if (In[id.x] > 3) GroupMemoryBarrierWithGroupSync();",
            false,
        ),
    ] {
        assert_eq!(
            prove(&format!("{fill} {body}")),
            left.then_some(true),
            "{body}"
        );
    }
}

/// A groupshared shader drawn from `seed` (splitmix64): a first phase of
/// stores, maybe a barrier, maybe a reduction loop with a barrier in each
/// round, then guarded loads and a store to `Out`, each with comparisons,
/// strides and offsets drawn small, so that some come out clean and others
/// run out of bounds, race, read words nothing stored or leave a barrier
/// to some threads.
fn drawn_shader(seed: u64) -> String {
    let mut state = seed;
    let mut next = |n: u64| {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        (z ^ (z >> 31)) % n
    };
    const CMP: [&str; 5] = ["<", "<=", ">", ">=", "=="];
    let sync = "GroupMemoryBarrierWithGroupSync();";
    let mut body = String::from("uint v = In[id.x];\n");
    let store = match next(4) {
        0 => "Tile[gi] = v;".to_string(),
        1 => format!("Tile[gi * {} + {}] = v;", 1 + next(2), next(3)),
        _ => format!(
            "if (gi {} {}) Tile[gi + {}] = v;",
            CMP[next(5) as usize],
            next(70),
            next(3)
        ),
    };
    body += &store;
    if next(4) != 0 {
        body += sync;
    }
    if next(2) == 0 {
        let inner = if next(4) == 0 { "" } else { sync };
        body += &format!(
            "\nfor (uint s = {}; s > 0; s >>= 1) {{ if (gi {} s) Tile[gi] += Tile[gi + s + {}]; {inner} }}",
            [16, 32, 64][next(3) as usize],
            CMP[next(4) as usize],
            next(3)
        );
    }
    body += &format!(
        "\nif (gi {} {}) v += Tile[gi * {} + {}];",
        CMP[next(5) as usize],
        next(70),
        1 + next(2),
        next(4)
    );
    if next(2) == 0 {
        body += &format!(
            "\nif (gi {} {}) Tile[gi] = v;",
            CMP[next(5) as usize],
            next(70)
        );
    }
    let out = match next(3) {
        0 => "id.x".to_string(),
        1 => format!("id.x + {}", next(2)),
        _ => format!("(id.x & {}) * 4", [63, 255][next(2) as usize]),
    };
    format!(
        "StructuredBuffer<uint> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u0);\n\
         groupshared uint Tile[{}];\n\
         [numthreads(64, 1, 1)]\n\
         void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) {{\n{body}\nOut[{out}] = v;\n}}\n",
        [64, 66, 128][next(3) as usize]
    )
}

/// Over drawn groupshared shaders, the check that runs proven sizes as
/// `run` runs them reports what checked mode at every size reports: a
/// proof that held where checked mode finds something would show as a
/// missing finding.
#[test]
fn drawn_shaders_report_what_checked_mode_reports() {
    let yaml = repo().join("tests/proof/pipeline.yaml");
    let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(yaml).unwrap()).unwrap();
    let (mut proven, mut clean) = (0, 0);
    for seed in 0..400 {
        let source = drawn_shader(seed);
        let shader = compile(&source);
        let Some((fast, _)) = both_checks(&shader, &pipeline, &source) else {
            continue;
        };
        proven += usize::from(!fast.proven.is_empty());
        clean += usize::from(fast.is_clean());
    }
    // The draws reach both sides of the proof, and clean shaders as well
    // as findings.
    assert!((30..400).contains(&proven), "{proven} of 400 proven");
    assert!((20..400).contains(&clean), "{clean} of 400 clean");
}
