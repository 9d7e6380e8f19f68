//! Data-driven tests of the checker: each case compiles a shader and
//! compares the IR (or the diagnostics) with a snapshot. Refresh snapshots
//! with `UPDATE_EXPECT=1 cargo test -p lockstep-sema`.

mod decls;
mod exprs;
mod intrinsics;
mod resources;
mod robust;
mod stmts;
mod textures;
mod verify;

use expect_test::Expect;
use lockstep_sema::CompileOptions;
use lockstep_syntax::{Diagnostics, NoIncludes, PreprocessOptions, Severity, SourceMap};

/// Compiles `src` and renders diagnostics (`line:col: severity: message`),
/// then the IR when there was no error.
pub fn compile(src: &str, opts: &CompileOptions) -> String {
    let mut map = SourceMap::new();
    let main = map.add("test.hlsl", src, None);
    let mut diags = Diagnostics::default();
    let pp = PreprocessOptions {
        shader_model: opts.shader_model,
        ..PreprocessOptions::default()
    };
    let tu = lockstep_syntax::parse_file(&mut map, main, &pp, &NoIncludes, &mut diags);
    let module = if diags.has_errors() {
        None
    } else {
        lockstep_sema::lower(&tu, &map, opts, &mut diags)
    };
    let mut out = String::new();
    for d in &diags.items {
        let (line, col) = map.file(d.span.file).line_col(d.span.start);
        let severity = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        out.push_str(&format!("{line}:{col}: {severity}: {}\n", d.message));
        for (span, label) in &d.labels {
            let (line, col) = map.file(span.file).line_col(span.start);
            out.push_str(&format!("  {line}:{col}: {label}\n"));
        }
        for note in &d.notes {
            out.push_str(&format!("  note: {note}\n"));
        }
    }
    if let Some(m) = module {
        let problems = lockstep_ir::verify::verify(&m);
        assert!(
            problems.is_empty(),
            "the IR does not verify:\n{}\n{}",
            problems.join("\n"),
            lockstep_ir::print::print_module(&m)
        );
        out.push_str(&lockstep_ir::print::print_module(&m));
    }
    out
}

pub fn check(src: &str, expect: Expect) {
    expect.assert_eq(&compile(src, &CompileOptions::default()));
}

pub fn check_with(src: &str, opts: CompileOptions, expect: Expect) {
    expect.assert_eq(&compile(src, &opts));
}

pub fn sm(major: u32, minor: u32) -> CompileOptions {
    CompileOptions {
        shader_model: (major, minor),
        ..CompileOptions::default()
    }
}

pub fn with_16bit() -> CompileOptions {
    CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    }
}

/// Wraps statements in a compute entry point.
pub fn body(stmts: &str) -> String {
    format!("[numthreads(1, 1, 1)]\nvoid main() {{\n{stmts}\n}}\n")
}
