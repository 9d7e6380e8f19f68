//! Buffers a dispatch writes in full start from recycled words: which
//! programs prove it, and runs after runs that left other words behind.

use lockstep::pipeline::Kind;
use lockstep::{CompileOptions, RunOptions};

use crate::harness::{buf, compile, pipeline, words_of};

const HEADER: &str = "StructuredBuffer<uint> In : register(t0);\n\
     RWStructuredBuffer<uint> Out : register(u0);\n\
     RWStructuredBuffer<uint4> Wide : register(u1);\n\
     struct Pair { uint a; uint b; };\n\
     RWStructuredBuffer<Pair> Pairs : register(u2);\n";

/// Whether the program of `body` (inside `main(uint3 id :
/// SV_DispatchThreadID)`, 64 threads a group) writes resource `r` in full
/// over `bytes` bytes when the dispatch reaches `threads` values of
/// `id.x`.
fn full(body: &str, r: usize, bytes: u64, threads: u64) -> bool {
    let source = format!(
        "{HEADER}uint f(uint x) {{ if (x > 7u) return x; return x * 2u; }}\n\
         [numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {{\n{body}\n}}\n"
    );
    let shader = compile(&source, &CompileOptions::default());
    shader.program.writes_in_full(r, bytes, threads)
}

#[test]
fn stores_at_the_thread_index_that_every_thread_runs_write_in_full() {
    let (out, wide, pairs) = (1, 2, 3);
    // One word per thread, each thread's own.
    assert!(full("Out[id.x] = In[id.x] * 3u + 1u;", out, 4 * 64, 64));
    assert!(full("Out[id.x] = In[id.x] * 3u + 1u;", out, 4 * 60, 64));
    // More words than threads reach, a length that is not whole words.
    assert!(!full("Out[id.x] = In[id.x];", out, 4 * 65, 64));
    assert!(!full("Out[id.x] = In[id.x];", out, 4 * 60 + 2, 64));
    // Every word of a wider element, and of a structure only when both
    // fields are written.
    assert!(full(
        "Wide[id.x] = uint4(1u, 2u, 3u, id.x);",
        wide,
        16 * 64,
        64
    ));
    assert!(full(
        "Pairs[id.x].a = 1u; Pairs[id.x].b = 2u;",
        pairs,
        8 * 64,
        64
    ));
    assert!(!full("Pairs[id.x].a = 1u;", pairs, 8 * 64, 64));
    // Loops, branches and calls that every thread leaves before the store,
    // and a return after it.
    assert!(full(
        "uint v = 0u; for (uint i = 0u; i < In[id.x]; ++i) { if (i == 9u) break; v += i; }\n\
         if (v > 3u) v = f(v);\nOut[id.x] = v;\nif (v == 1u) return;\nWide[id.x] = uint4(v, v, v, v);",
        out,
        4 * 64,
        64
    ));
}

#[test]
fn anything_else_is_not_proof() {
    let out = 1;
    let cases = [
        // Some threads leave before the store.
        "if (In[id.x] == 0u) return;\nOut[id.x] = 1u;",
        // The store is in a branch or a loop.
        "if (In[id.x] != 0u) Out[id.x] = 1u;",
        "for (uint i = 0u; i < 2u; ++i) Out[id.x] = i;",
        // Not the thread's own element.
        "Out[id.x + 1u] = 1u;",
        "Out[In[id.x]] = 1u;",
        "Out[id.x / 2u] = 1u;",
        // The thread index changed first.
        "id.x = 63u - id.x; Out[id.x] = 1u;",
        // The buffer is read or taken by an atomic as well.
        "Out[id.x] = 1u; Out[id.x] = Out[id.x] + 1u;",
        "Out[id.x] = 1u; uint o; InterlockedAdd(Out[0], 1u, o);",
        // Stores after some threads left.
        "if (In[id.x] == 0u) return;\nOut[id.x] = 2u;",
    ];
    for body in cases {
        assert!(!full(body, out, 4 * 64, 64), "{body}");
    }
}

/// A run leaves words behind in a large buffer; later runs of programs
/// that write in full see none of them, and a program that does not still
/// gets zeros.
#[test]
fn recycled_words_never_show() {
    const N: u32 = 1 << 20;
    let run = |body: &str| -> Vec<u32> {
        let source = format!(
            "RWStructuredBuffer<uint> Out : register(u0);\n\
             [numthreads(64, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {{ {body} }}\n"
        );
        let shader = compile(&source, &CompileOptions::default());
        let p = pipeline(
            [N / 64, 1, 1],
            &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; N as usize])],
        );
        let out = lockstep::run(&shader, &p, &RunOptions::default()).expect("run");
        words_of(&out.contents[0])
    };
    for round in 0..3 {
        let left = run("Out[id.x] = 0xDEADBEEFu;");
        assert!(left.iter().all(|&w| w == 0xDEAD_BEEF), "round {round}");
        let own = run("Out[id.x] = id.x * 3u;");
        assert!(
            own.iter().enumerate().all(|(i, &w)| w == 3 * i as u32),
            "round {round}: the thread's own words"
        );
        let half = run("if ((id.x & 1u) == 0u) Out[id.x] = 7u;");
        assert!(
            half.iter()
                .enumerate()
                .all(|(i, &w)| w == if i % 2 == 0 { 7 } else { 0 }),
            "round {round}: a half-written buffer starts zeroed"
        );
    }
}
