//! offload-test-suite `.test` files: splitting, RUN lines, compile flags,
//! feature expressions, REQUIRES / UNSUPPORTED / XFAIL, and the corpus in
//! `tests/offload` at every wave size.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use lockstep::offload::{
    Step, TestOptions, TestOutcome, TestSummary, eval_features, parse_run_command, parse_test_file,
    run_test_file,
};
use lockstep::syntax::NoIncludes;

use crate::harness::WAVE_SIZES;

// ---------------------------------------------------------------------------
// Sections

#[test]
fn sections_with_both_marker_forms() {
    let text = "\
#--- source.hlsl
line one
line two
//--- pipeline.yaml
---
Buffers: []
;--- other.txt
x
#--- end
# RUN: split-file %s %t
";
    let file = parse_test_file(text).unwrap();
    let names: Vec<&str> = file.sections.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["source.hlsl", "pipeline.yaml", "other.txt"]);
    assert_eq!(file.sections[0].text, "line one\nline two\n");
    assert_eq!(file.sections[0].line, 1);
    // The YAML document marker `---` is no section marker.
    assert_eq!(file.sections[1].text, "---\nBuffers: []\n");
    assert_eq!(file.sections[1].line, 4);
    // `end` ends the last section: the RUN line is in none.
    assert_eq!(file.section("other.txt").unwrap().text, "x\n");
    assert!(file.section("end").is_none());
    assert_eq!(file.run.len(), 1);
    assert_eq!(file.run[0].command, "split-file %s %t");
    assert_eq!(file.run[0].line, 10);
}

#[test]
fn last_section_runs_to_the_end_without_an_end_marker() {
    let file = parse_test_file("# RUN: true\n#--- a\n1\n#--- b\n2\n3").unwrap();
    assert_eq!(file.section("a").unwrap().text, "1\n");
    assert_eq!(file.section("b").unwrap().text, "2\n3");
}

#[test]
fn marker_needs_the_prefix_right_before_the_dashes() {
    // `# --- x` (a space after the prefix) and `--- x` with a two-character
    // prefix other than `//` are ordinary lines, as split-file reads them.
    let file = parse_test_file("#--- a\n# --- x\n##--- y\n").unwrap();
    assert_eq!(file.sections.len(), 1);
    assert_eq!(file.sections[0].text, "# --- x\n##--- y\n");
}

#[test]
fn missing_or_duplicate_sections_are_errors() {
    let e = parse_test_file("# RUN: %offloader %t/pipeline.yaml %t.o\n").unwrap_err();
    assert!(e.contains("no split-file sections"), "{e}");
    let e = parse_test_file("#--- a\n#--- a\n").unwrap_err();
    assert!(e.contains("line 2: a second section named 'a'"), "{e}");
    // A RUN line that reads a section the file lacks.
    let text = test_text(SUM_SHADER, &expected_sums([6, 6, 6, 6]), "")
        .replace("#--- pipeline.yaml", "#--- pipeline.yml");
    let outcome = run(&text);
    let TestOutcome::Fail(reason) = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        reason.contains(
            "the RUN lines read the pipeline 'pipeline.yaml', but the test has no section of that name (its sections: source.hlsl, pipeline.yml)"
        ),
        "{reason}"
    );
}

// ---------------------------------------------------------------------------
// RUN lines and compile flags

#[test]
fn run_lines_continue_with_a_backslash() {
    let text = "\
#--- source.hlsl
// RUN: %dxc_target -T cs_6_5 \\
// RUN:   -E main -enable-16bit-types \\
some text between is not part of it
; RUN:   -D X=1 -Fo %t.o %t/source.hlsl
# RUN: %offloader %t/pipeline.yaml %t.o
";
    let file = parse_test_file(text).unwrap();
    assert_eq!(file.run.len(), 2);
    assert_eq!(
        file.run[0].command,
        "%dxc_target -T cs_6_5 -E main -enable-16bit-types -D X=1 -Fo %t.o %t/source.hlsl"
    );
    assert_eq!(file.run[0].line, 2);
    assert_eq!(file.run[1].line, 6);
    let e = parse_test_file("#--- a\n# RUN: %dxc_target \\\n").unwrap_err();
    assert!(e.contains("ends with '\\'"), "{e}");
}

fn compile_step(command: &str) -> lockstep::offload::CompileStep {
    match parse_run_command(command, "dir/t.test") {
        Ok(steps) => match steps.as_slice() {
            [Step::Compile(c)] => c.clone(),
            other => panic!("{other:?}"),
        },
        Err(e) => panic!("{e:?}"),
    }
}

#[test]
fn compile_flags_are_extracted() {
    let c = compile_step(
        "%dxc_target -T cs_6_5 -E main -enable-16bit-types -D X=1 -Fo %t.o %t/source.hlsl",
    );
    assert_eq!(c.options.shader_model, (6, 5));
    assert_eq!(c.options.entry, "main");
    assert!(c.options.enable_16bit_types);
    assert_eq!(c.options.defines, [("X".to_string(), "1".to_string())]);
    assert_eq!(c.source, "dir/t.test/source.hlsl");
    assert_eq!(c.output.as_deref(), Some("dir/t.test.o"));
    assert!(!c.expect_failure && !c.warnings_as_errors);

    // Joined arguments, a define without a value, -I, -WX; -E defaults to
    // main as in DXC.
    let c = compile_step("%dxc_target -Tcs_6_2 -DA -D B=x=y -Iinc -I %S/more -WX %t/s.hlsl");
    assert_eq!(c.options.shader_model, (6, 2));
    assert_eq!(c.options.entry, "main");
    assert!(!c.options.enable_16bit_types);
    assert_eq!(
        c.options.defines,
        [
            ("A".to_string(), "1".to_string()),
            ("B".to_string(), "x=y".to_string())
        ]
    );
    assert_eq!(c.options.include_dirs, ["inc", "dir/more"]);
    assert!(c.warnings_as_errors);
    assert_eq!(c.output, None);
    let c = compile_step("%dxc_target -ECSMain -fnative-half-type %t/s.hlsl");
    assert_eq!(c.options.entry, "CSMain");
    assert!(c.options.enable_16bit_types);
    assert!(!c.options.row_major_default);
    // -Zpr makes matrices row-major unless they say otherwise; -Zpc after
    // it takes that back.
    assert!(
        compile_step("%dxc_target -Zpr -T cs_6_0 %t/s.hlsl")
            .options
            .row_major_default
    );
    assert!(
        !compile_step("%dxc_target -Zpr -Zpc -T cs_6_0 %t/s.hlsl")
            .options
            .row_major_default
    );
}

#[test]
fn flags_without_effect_are_ignored() {
    let c = compile_step(
        "%dxc_target -HV 2021 -Zi -Qembed_debug -O3 -spirv -fspv-target-env=vulkan1.3 \
         -fvk-use-dx-layout -Wno-conversion -denorm preserve -T cs_6_0 -Fo %t.o %t/s.hlsl",
    );
    assert_eq!(
        c.ignored,
        [
            "-Zi",
            "-Qembed_debug",
            "-O3",
            "-spirv",
            "-fspv-target-env=vulkan1.3",
            "-fvk-use-dx-layout",
            "-Wno-conversion",
            "-Fo dir/t.test.o",
        ]
    );
}

fn run_command_error(command: &str) -> TestOutcome {
    match parse_run_command(command, "t.test") {
        Ok(steps) => panic!("{command}: {steps:?}"),
        Err(e) => e,
    }
}

fn assert_fail(outcome: TestOutcome, needle: &str) {
    match &outcome {
        TestOutcome::Fail(reason) if reason.contains(needle) => {}
        _ => panic!("expected a failure naming {needle:?}, got {outcome:?}"),
    }
}

fn assert_skip(outcome: TestOutcome, reason: &str) {
    assert_eq!(outcome, TestOutcome::Skip(reason.to_string()));
}

#[test]
fn flags_that_change_the_meaning_are_failures() {
    assert_fail(
        run_command_error("%dxc_target -T cs_6_0 -ffast-math %t/s.hlsl"),
        "unsupported flag '-ffast-math': Lockstep cannot tell whether it changes what the shader computes",
    );
    assert_fail(
        run_command_error("%dxc_target -HV 2018 -T cs_6_0 %t/s.hlsl"),
        "-HV 2018: Lockstep compiles HLSL 2021 and 202x",
    );
    assert_fail(
        run_command_error("%dxc_target -T cs_6_0 -enable-16bit-types %t/s.hlsl"),
        "-enable-16bit-types needs shader model 6.2 or later, but the profile is cs_6_0",
    );
    assert_fail(
        run_command_error("%dxc_target -denorm ftz -T cs_6_0 %t/s.hlsl"),
        "-denorm ftz is not supported",
    );
    assert_fail(
        run_command_error("%dxc_target -T cs_7_0 %t/s.hlsl"),
        "invalid profile 'cs_7_0'",
    );
    assert_fail(run_command_error("%dxc_target -T cs_6_0"), "no source file");
    assert_fail(
        run_command_error("%dxc_target -T cs_6_0 a.hlsl b.hlsl"),
        "more than one source file",
    );
    assert_fail(
        run_command_error("%dxc_target %t/s.hlsl -T"),
        "-T needs an argument",
    );
}

#[test]
fn commands_lockstep_cannot_run_are_skipped() {
    assert_skip(
        run_command_error("%dxc_target -T gs_6_0 %t/s.hlsl"),
        "compiles a 'gs_6_0' shader: Lockstep runs compute, vertex and pixel shaders",
    );
    assert_skip(
        run_command_error("%dxc_target -T cs_6_0 %t/s.hlsl | FileCheck %s"),
        "checks the compiler's printed output with FileCheck",
    );
    assert_skip(
        run_command_error(
            "not %offloader %t/pipeline.yaml %t.o 2>&1 | FileCheck %s --check-prefix=ERR",
        ),
        "checks the offloader's error messages with FileCheck",
    );
    assert_skip(
        run_command_error("%dxc_target -T cs_6_0 %t/s.hlsl | grep x"),
        "pipes output into 'grep'",
    );
    assert_skip(
        run_command_error("obj2yaml %t.o"),
        "a RUN line runs 'obj2yaml', which Lockstep does not emulate",
    );
    assert_skip(
        run_command_error("%dxc_target %if Vulkan %{ -spirv %} %t/s.hlsl"),
        "uses lit's %if substitution, which Lockstep does not evaluate",
    );
}

#[test]
fn offloader_and_split_file_commands() {
    let steps = parse_run_command(
        "split-file %s %t && not %offloader -api DirectX %t/pipeline.yaml %t.o > %t.out",
        "./a/t.test",
    )
    .unwrap();
    let [Step::SplitFile { dir }, Step::Offload(o)] = steps.as_slice() else {
        panic!("{steps:?}")
    };
    assert_eq!(dir, "a/t.test");
    assert_eq!(o.pipeline, "./a/t.test/pipeline.yaml");
    assert_eq!(o.shaders, ["./a/t.test.o"]);
    assert!(o.expect_failure);
}

// ---------------------------------------------------------------------------
// Feature expressions

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| n.to_string()).collect()
}

/// Each expression over features `a` and `b`, with its value for (a, b) =
/// (F, F), (F, T), (T, F), (T, T), worked out by hand from lit's grammar:
/// `!` binds tightest, then `&&`, then `||`.
#[test]
fn feature_expression_truth_tables() {
    let cases: [(&str, [bool; 4]); 13] = [
        ("a", [false, false, true, true]),
        ("a && b", [false, false, false, true]),
        ("a || b", [false, true, true, true]),
        ("!a", [true, true, false, false]),
        ("!a || b", [true, true, false, true]),
        ("!(a && b)", [true, true, true, false]),
        ("!a && !b", [true, false, false, false]),
        // && binds tighter than ||: exclusive or.
        ("a && !b || b && !a", [false, true, true, false]),
        ("(a || b) && !(a && b)", [false, true, true, false]),
        // a || (b && unknown) = a.
        ("a || b && unknown", [false, false, true, true]),
        // (a || b) && unknown = false.
        ("(a || b) && unknown", [false, false, false, false]),
        ("!!a", [false, false, true, true]),
        ("true && !a", [true, true, false, false]),
    ];
    let worlds = [set(&[]), set(&["b"]), set(&["a"]), set(&["a", "b"])];
    for (expr, table) in cases {
        for (world, want) in worlds.iter().zip(table) {
            assert_eq!(
                eval_features(expr, world),
                Ok(want),
                "{expr} with {world:?}"
            );
        }
    }
}

#[test]
fn feature_names_and_errors() {
    let f = set(&["WaveSize_8", "DirectX-WARP", "v1.2+x=y"]);
    for (expr, want) in [
        ("WaveSize_8", true),
        ("WaveSize_16", false),
        ("DirectX-WARP && v1.2+x=y", true),
        // Names are case-sensitive.
        ("wavesize_8", false),
        ("  ( WaveSize_8 )  ", true),
        ("true", true),
        ("false", false),
    ] {
        assert_eq!(eval_features(expr, &f), Ok(want), "{expr}");
    }
    for (expr, message) in [
        ("", "expected a feature name"),
        ("a &&", "expected a feature name"),
        ("(a", "missing ')'"),
        ("a)", "unexpected ')'"),
        ("a b", "expected '&&' or '||' between feature names"),
        ("a & b", "unexpected '&'"),
        ("a | b", "unexpected '|'"),
        ("&& a", "unexpected '&&'"),
        (
            "{{D.*}}",
            "regular-expression patterns ({{...}}) are not supported",
        ),
    ] {
        assert_eq!(eval_features(expr, &f), Err(message.to_string()), "{expr}");
    }
    // Nesting past the limit is an error, not a stack overflow.
    for deep in [
        "!".repeat(100_000) + "a",
        "(".repeat(100_000) + "a" + &")".repeat(100_000),
    ] {
        assert_eq!(
            eval_features(&deep, &f),
            Err("'!' and parentheses nest more than 256 deep".to_string())
        );
    }
    assert_eq!(eval_features(&("!".repeat(256) + "a"), &f), Ok(false));
}

#[test]
fn lockstep_features() {
    let all = TestOptions::default().features();
    let want = set(&[
        "DXC",
        "Double",
        "Half",
        "Int16",
        "Int64",
        "Lockstep",
        "WaveSize_4",
        "WaveSize_8",
        "WaveSize_16",
        "WaveSize_32",
        "WaveSize_64",
        "WaveSize_128",
    ]);
    assert_eq!(all, want);
    let mut opts = TestOptions::default();
    opts.run.wave_sizes = (8, 32);
    let narrow = opts.features();
    assert!(narrow.contains("WaveSize_8") && narrow.contains("WaveSize_32"));
    assert!(!narrow.contains("WaveSize_4") && !narrow.contains("WaveSize_64"));
    for absent in [
        "DirectX", "Vulkan", "Metal", "Clang", "NV", "AMD", "Intel", "WARP",
    ] {
        assert!(!all.contains(absent), "{absent}");
    }
}

// ---------------------------------------------------------------------------
// Running tests

const SUM_SHADER: &str = "\
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 TID : SV_GroupThreadID) {
  Out[TID.x] = WaveActiveSum(TID.x);
}
";

/// The pipeline of a 4-thread dispatch with one buffer at u0 and its
/// expected contents.
fn expected_sums(expected: [u32; 4]) -> String {
    format!(
        "---
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: Out
    Format: UInt32
    FillSize: 16
  - Name: Expected
    Format: UInt32
    Data: {expected:?}
Results:
  - Result: Test
    Rule: BufferExact
    Actual: Out
    Expected: Expected
DescriptorSets:
  - Resources:
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding:
        Register: 0
        Space: 0
...
"
    )
}

/// A test file: the shader, the pipeline, the directives, and the standard
/// RUN lines.
fn test_text(shader: &str, pipeline: &str, directives: &str) -> String {
    format!(
        "#--- source.hlsl\n{shader}#--- pipeline.yaml\n{pipeline}#--- end\n\n{directives}\
         # RUN: split-file %s %t\n\
         # RUN: %dxc_target -T cs_6_5 -Fo %t.o %t/source.hlsl\n\
         # RUN: %offloader %t/pipeline.yaml %t.o\n"
    )
}

fn run(text: &str) -> TestOutcome {
    run_test_file("t.test", text, &NoIncludes, &TestOptions::default())
}

/// 0 + 1 + 2 + 3 = 6 on each lane.
fn passing(directives: &str) -> String {
    test_text(SUM_SHADER, &expected_sums([6, 6, 6, 6]), directives)
}

fn failing(directives: &str) -> String {
    test_text(SUM_SHADER, &expected_sums([6, 6, 6, 7]), directives)
}

#[test]
fn pass_and_fail_with_the_rule_diff() {
    assert_eq!(run(&passing("")), TestOutcome::Pass);
    assert_eq!(
        run(&failing("")),
        TestOutcome::Fail(
            "result Test (BufferExact): 1 of 4 elements differ\n  [3] expected 7, actual 6"
                .to_string()
        )
    );
}

#[test]
fn requires_holds_only_when_every_clause_does() {
    assert_eq!(
        run(&passing("# REQUIRES: Int64, Half\n")),
        TestOutcome::Pass
    );
    assert_eq!(
        run(&passing(
            "# REQUIRES: Int64\n# REQUIRES: WaveSize_4 && DXC\n"
        )),
        TestOutcome::Pass
    );
    assert_skip(
        run(&passing("# REQUIRES: Int64, Vulkan\n")),
        "requires Vulkan",
    );
    assert_skip(
        run(&passing(
            "# REQUIRES: DirectX || Vulkan\n# REQUIRES: Clang\n",
        )),
        "requires DirectX || Vulkan, Clang",
    );
    let mut opts = TestOptions::default();
    opts.run.wave_sizes = (16, 64);
    let text = passing("# REQUIRES: WaveSize_8\n");
    assert_skip(
        run_test_file("t.test", &text, &NoIncludes, &opts),
        "requires WaveSize_8",
    );
}

#[test]
fn unsupported_holds_when_any_clause_does() {
    assert_skip(
        run(&failing("# UNSUPPORTED: Vulkan, DXC\n")),
        "unsupported: DXC",
    );
    assert_skip(
        run(&failing("# UNSUPPORTED: Clang || Lockstep\n")),
        "unsupported: Clang || Lockstep",
    );
    assert_eq!(
        run(&passing("# UNSUPPORTED: Clang, Vulkan && DXC\n")),
        TestOutcome::Pass
    );
    // REQUIRES is looked at first.
    assert_skip(
        run(&passing("# REQUIRES: Metal\n# UNSUPPORTED: DXC\n")),
        "requires Metal",
    );
}

#[test]
fn xfail_turns_failures_into_expected_ones() {
    let expected =
        |o: TestOutcome| matches!(o, TestOutcome::ExpectedFail(r) if r.starts_with("result Test"));
    assert!(expected(run(&failing("# XFAIL: *\n"))));
    assert!(expected(run(&failing("# XFAIL: Vulkan, Lockstep\n"))));
    assert!(expected(run(&failing("# XFAIL: !Clang && DXC\n"))));
    assert_eq!(run(&passing("# XFAIL: DXC\n")), TestOutcome::UnexpectedPass);
    // XFAIL that does not hold: an ordinary test.
    assert!(matches!(
        run(&failing("# XFAIL: Vulkan && DirectX\n")),
        TestOutcome::Fail(_)
    ));
    assert_eq!(
        run(&passing("# XFAIL: Lockstep && !Int64\n")),
        TestOutcome::Pass
    );
    // A skip stays a skip.
    assert_skip(
        run(&failing("# XFAIL: *\n# UNSUPPORTED: Lockstep\n")),
        "unsupported: Lockstep",
    );
    // A compile error under XFAIL is expected too.
    let text = test_text(
        &SUM_SHADER.replace("TID.x)", "nope)"),
        &expected_sums([6, 6, 6, 6]),
        "# XFAIL: *\n",
    );
    assert!(
        matches!(run(&text), TestOutcome::ExpectedFail(r) if r.contains("undeclared identifier 'nope'"))
    );
}

#[test]
fn bad_directive_expressions_fail() {
    assert_fail(
        run(&passing("# REQUIRES: Int64 &&\n")),
        "invalid REQUIRES expression 'Int64 &&': expected a feature name",
    );
    assert_fail(
        run(&passing("# XFAIL: (DXC\n")),
        "invalid XFAIL expression '(DXC': missing ')'",
    );
}

#[test]
fn filecheck_lines_check_the_printed_buffers() {
    let text = passing("").replace(
        "%offloader %t/pipeline.yaml %t.o",
        "%offloader %t/pipeline.yaml %t.o | FileCheck %s --check-prefix=OUT",
    );
    // Without a FileCheck the test is skipped, even under XFAIL.
    let skipped = "checks printed output with FileCheck, and no FileCheck was found";
    assert_skip(run(&text), skipped);
    assert_skip(
        run(&text.replace("#--- end\n", "#--- end\n# XFAIL: *\n")),
        skipped,
    );
    // A stand-in FileCheck sees the test's path and the buffers as the
    // offloader prints them.
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let opts = |verdict: Result<(), String>| TestOptions {
        filecheck: Some(lockstep::FileCheck(std::sync::Arc::new({
            let log = log.clone();
            move |args: &[String], input: &str| {
                log.lock().unwrap().push((args.to_vec(), input.to_owned()));
                verdict.clone()
            }
        }))),
        ..TestOptions::default()
    };
    let outcome = run_test_file("t.test", &text, &NoIncludes, &opts(Ok(())));
    assert_eq!(outcome, TestOutcome::Pass);
    let (args, input) = seen.lock().unwrap()[0].clone();
    assert_eq!(args, ["t.test", "--check-prefix=OUT"]);
    assert!(
        input.contains("  - Name:            Out\n    Format:          UInt32\n    Data:            [ 6, 6, 6, 6 ]\n"),
        "{input}"
    );
    let outcome = run_test_file("t.test", &text, &NoIncludes, &opts(Err("no match".into())));
    assert_eq!(
        outcome,
        TestOutcome::Fail("FileCheck failed:\nno match".into())
    );
}

#[test]
fn compile_and_run_errors_are_failures_with_the_diagnostic() {
    let text = test_text(
        &SUM_SHADER.replace("TID.x)", "nope)"),
        &expected_sums([6, 6, 6, 6]),
        "",
    );
    let outcome = run(&text);
    let TestOutcome::Fail(reason) = &outcome else {
        panic!("{outcome:?}")
    };
    assert!(
        reason.starts_with("t.test/source.hlsl:5:30: error: use of undeclared identifier 'nope'"),
        "{reason}"
    );
    assert!(reason.contains('^'), "{reason}");

    let text = test_text(
        &SUM_SHADER.replace("register(u0)", "register(u3)"),
        &expected_sums([6, 6, 6, 6]),
        "",
    );
    assert_fail(
        run(&text),
        "t.test/source.hlsl:1:26: error: resource 'Out' is a RWStructuredBuffer at u3, space0 in the shader, but the pipeline binds buffer 'Out' at u0, space0",
    );

    let text = passing("").replace("Entry: main", "Entry: other");
    assert_fail(
        run(&text),
        "the pipeline's Entry is 'other', but the shader was compiled for 'main'",
    );
    let text = passing("").replace("FillSize: 16", "FillSize: [16]");
    assert_fail(run(&text), "t.test/pipeline.yaml:");
    assert_fail(
        run(&passing("").replace("-T cs_6_5", "-T cs_6_5 -bogus")),
        "line 36: %dxc_target: unsupported flag '-bogus'",
    );
}

#[test]
fn warnings_fail_under_wx() {
    // WaveAllSum is the deprecated spelling of WaveActiveSum: a warning.
    let shader = SUM_SHADER.replace("WaveActiveSum", "WaveAllSum");
    let text = test_text(&shader, &expected_sums([6, 6, 6, 6]), "");
    assert_eq!(run(&text), TestOutcome::Pass);
    assert_fail(
        run(&text.replace("-T cs_6_5", "-T cs_6_5 -WX")),
        "warnings are errors (-WX)",
    );
}

#[test]
fn lit_not_inverts_the_outcome() {
    let text = failing("").replace("# RUN: %offloader", "# RUN: not %offloader");
    assert_eq!(run(&text), TestOutcome::Pass);
    let text = passing("").replace("# RUN: %offloader", "# RUN: not %offloader");
    assert_fail(run(&text), "expected to fail ('not')");
    let text = test_text(&SUM_SHADER.replace("TID.x)", "nope)"), "", "")
        .replace("# RUN: %dxc_target", "# RUN: not %dxc_target")
        .replace("# RUN: %offloader %t/pipeline.yaml %t.o\n", "");
    assert_eq!(run(&text), TestOutcome::Pass);
}

#[test]
fn sections_are_included_and_defines_apply() {
    let text = "\
#--- inc/helpers.hlsl
uint twice(uint x) { return 2 * x * FACTOR; }
#--- source.hlsl
#include \"inc/helpers.hlsl\"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 TID : SV_GroupThreadID) {
  Out[TID.x] = WaveActiveSum(twice(TID.x));
}
#--- pipeline.yaml
"
    .to_string()
        // 2 * (0 + 1 + 2 + 3) * 5 = 60.
        + &expected_sums([60, 60, 60, 60])
        + "#--- end\n# RUN: split-file %s %t\n\
           # RUN: %dxc_target -T cs_6_0 -D FACTOR=5 -Fo %t.o %t/source.hlsl\n\
           # RUN: %offloader %t/pipeline.yaml %t.o\n";
    assert_eq!(
        run_test_file(
            "./x/../dir/t.test",
            &text,
            &NoIncludes,
            &TestOptions::default()
        ),
        TestOutcome::Pass
    );
}

#[test]
fn tests_without_runnable_lines_fail() {
    assert_fail(run("#--- a\nx\n"), "no RUN lines");
    assert_fail(
        run("#--- a\nx\n# RUN: split-file %s %t\n"),
        "no %dxc_target or %offloader RUN line",
    );
}

#[test]
fn outcomes_count_as_lit_counts_them() {
    let mut summary = TestSummary::default();
    for outcome in [
        TestOutcome::Pass,
        TestOutcome::ExpectedFail("x".to_string()),
        TestOutcome::Fail("y".to_string()),
        TestOutcome::UnexpectedPass,
        TestOutcome::Skip("z".to_string()),
    ] {
        summary.add(&outcome);
    }
    assert_eq!(summary.to_string(), "2 passed, 2 failed, 1 skipped");
    assert_eq!(TestOutcome::UnexpectedPass.label(), "XPASS");
    assert_eq!(TestOutcome::ExpectedFail(String::new()).label(), "XFAIL");
}

// ---------------------------------------------------------------------------
// The corpus

/// Reads included files from disk.
struct Fs;

impl lockstep::syntax::SourceLoader for Fs {
    fn load(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

fn corpus(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "test"))
        .collect();
    files.sort();
    files
}

fn label(path: &Path, opts: &TestOptions) -> (String, &'static str) {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let outcome = run_test_file(&path.display().to_string(), &text, &Fs, opts);
    (name, outcome.label())
}

#[test]
fn corpus_holds_at_every_wave_size() {
    let files = corpus("tests/offload");
    assert!(files.len() >= 14, "{files:?}");
    for w in WAVE_SIZES {
        let mut opts = TestOptions::default();
        opts.run.wave_size = w;
        for path in &files {
            let (name, label) = label(path, &opts);
            let want = match name.as_str() {
                "filecheck_output.test"
                | "filecheck_floats.test"
                | "resource_array.test"
                | "requires_vulkan.test"
                | "unsupported_group_order.test" => "SKIP",
                "xfail_vector_and.test" => "XFAIL",
                _ => "PASS",
            };
            assert_eq!(label, want, "{name} at wave size {w}");
        }
    }
}

#[test]
fn failing_corpus_fails() {
    let files = corpus("tests/offload-failing");
    let labels: Vec<(String, &str)> = files
        .iter()
        .map(|p| label(p, &TestOptions::default()))
        .collect();
    let want = [
        ("binding_error.test", "FAIL"),
        ("compile_error.test", "FAIL"),
        ("wrong_expected.test", "FAIL"),
        ("xpass.test", "XPASS"),
    ];
    let got: Vec<(&str, &str)> = labels.iter().map(|(n, l)| (n.as_str(), *l)).collect();
    assert_eq!(got, want);
}

/// A graphics test as the suite writes one: a vertex and a pixel shader
/// compiled by two `%dxc_target` lines, drawn by the `%offloader` line that
/// names both objects. Two triangles fill a 2×2 target; the pixel shader
/// writes its pixel centre, so the target's floats are known by hand.
#[test]
fn graphics_tests_draw_with_both_shaders() {
    let pipeline = "---
Shaders:
  - Stage: Vertex
    Entry: main
  - Stage: Pixel
    Entry: main
Buffers:
  - Name: VertexData
    Format: Float32
    Data: [ -1, 1, 0,  1, 1, 0,  -1, -1, 0,  1, 1, 0,  1, -1, 0,  -1, -1, 0 ]
  - Name: Output
    Format: Float32
    Channels: 4
    FillSize: 64
    OutputProps: { Width: 2, Height: 2, Depth: 1 }
  - Name: Expected
    Format: Float32
    Channels: 4
    Data: [ 0.5, 0.5, 0, 1,  1.5, 0.5, 0, 1,  0.5, 1.5, 0, 1,  1.5, 1.5, 0, 1 ]
Bindings:
  VertexBuffer: VertexData
  VertexAttributes:
    - Format: Float32
      Channels: 3
      Offset: 0
      Name: POSITION
  RenderTarget: Output
Results:
  - Result: Target
    Rule: BufferExact
    Actual: Output
    Expected: Expected
...
";
    let text = format!(
        "#--- vertex.hlsl\nfloat4 main(float3 p : POSITION) : SV_Position {{ return float4(p, 1); }}\n\
         #--- pixel.hlsl\nfloat4 main(float4 p : SV_Position) : SV_Target {{ return float4(p.xy, 0, 1); }}\n\
         #--- pipeline.yaml\n{pipeline}#--- end\n\n\
         # RUN: split-file %s %t\n\
         # RUN: %dxc_target -T vs_6_0 -Fo %t-vertex.o %t/vertex.hlsl\n\
         # RUN: %dxc_target -T ps_6_0 -Fo %t-pixel.o %t/pixel.hlsl\n\
         # RUN: %offloader %t/pipeline.yaml %t-vertex.o %t-pixel.o -r Output -o %t/Output.png\n"
    );
    assert_eq!(run(&text), TestOutcome::Pass);
    let wrong = text.replace("0.5, 0.5, 0, 1,  1.5", "0.5, 0.5, 0, 1,  2.5");
    match run(&wrong) {
        TestOutcome::Fail(reason) => {
            assert!(reason.contains("[4] expected 2.5, actual 1.5"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

/// An `%offloader` line that names an object no `%dxc_target` line wrote
/// fails, as it would under lit, even where the test compiles only one.
#[test]
fn the_offloader_runs_only_an_object_a_compile_wrote() {
    let text = passing("").replace(
        "%offloader %t/pipeline.yaml %t.o",
        "%offloader %t/pipeline.yaml %t.b.o",
    );
    assert_fail(run(&text), "which no %dxc_target line produced");
}
