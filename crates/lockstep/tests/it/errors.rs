//! Bad input gets a clear diagnostic that points at the cause: snapshots of
//! the rendered messages.

use expect_test::{Expect, expect};
use lockstep::pipeline::Kind;
use lockstep::{CompileOptions, RunOptions};

use crate::harness::{buf, compile, diagnostics, pipeline};

fn check(source: &str, want: Expect) {
    want.assert_eq(&diagnostics(source, &CompileOptions::default()));
}

#[test]
fn malformed_hlsl() {
    check(
        "[numthreads(1,1,1)]\nvoid main() {\n    uint x = 1\n}\n",
        expect![[r#""#]],
    );
}

#[test]
fn unknown_intrinsic() {
    check(
        "[numthreads(1,1,1)]\nvoid main() {\n    uint x = WaveActiveSummm(1u);\n}\n",
        expect![[r#""#]],
    );
}

#[test]
fn wrong_argument_type() {
    check(
        "[numthreads(1,1,1)]\nvoid main() {\n    float x = WaveActiveBitAnd(1.5f);\n}\n",
        expect![[r#""#]],
    );
}

#[test]
fn legacy_name_warns() {
    check(
        "RWStructuredBuffer<uint> O;\n[numthreads(1,1,1)]\nvoid main() {\n    O[0] = WaveAllSum(1u);\n}\n",
        expect![[r#""#]],
    );
}

fn run_error(source: &str, buffers: &[crate::harness::Buf], opts: &RunOptions) -> String {
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline([1, 1, 1], buffers);
    match lockstep::run(&shader, &p, opts) {
        Ok(_) => "ran".to_string(),
        Err(e) => {
            let span = e.span.map(|s| lockstep::syntax::Span::new(lockstep::syntax::FileId(s.file), s.start, s.end));
            match span {
                Some(span) => {
                    let mut d = lockstep::syntax::Diagnostic::error(span, e.message);
                    d.notes = e.notes;
                    lockstep::render_diagnostics(&shader.source_map, &[d], false)
                }
                None => e.message,
            }
        }
    }
}

const STORE: &str = "RWStructuredBuffer<uint4> Out : register(u0);\n[numthreads(4,1,1)]\nvoid main(uint gi : SV_GroupIndex) {\n    Out[gi] = gi;\n}\n";

#[test]
fn missing_binding() {
    let got = run_error(STORE, &[buf("Other", Kind::RwStructuredBuffer, 3, vec![0; 16])], &RunOptions::default());
    expect![[r#""#]].assert_eq(&got);
}

#[test]
fn mistyped_binding() {
    let got = run_error(STORE, &[buf("Out", Kind::StructuredBuffer, 0, vec![0; 16])], &RunOptions::default());
    expect![[r#""#]].assert_eq(&got);
}

#[test]
fn buffer_too_small_for_its_type() {
    let got = run_error(STORE, &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 6])], &RunOptions::default());
    expect![[r#""#]].assert_eq(&got);
}

#[test]
fn endless_loop_stops_at_the_step_budget() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(4,1,1)]\nvoid main(uint gi : SV_GroupIndex) {\n    uint i = 0;\n    while (gi < 100) {\n        i++;\n    }\n    Out[gi] = i;\n}\n";
    let opts = RunOptions { step_budget: 1000, ..RunOptions::default() };
    let got = run_error(source, &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 4])], &opts);
    expect![[r#""#]].assert_eq(&got);
}

#[test]
fn bad_wave_sizes() {
    for w in [0, 3, 2, 256, 96] {
        let got = run_error(STORE, &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; 16])], &RunOptions { wave_size: w, ..RunOptions::default() });
        assert_eq!(got, format!("wave size {w} is not supported: it must be a power of two from 4 to 128"));
    }
}
