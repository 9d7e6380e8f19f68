//! `lockstep check`: a corpus of deliberately wrong shaders, each reported
//! with the right kind at the marked line, and correct shaders with no
//! findings.

use std::path::{Path, PathBuf};

use lockstep::{CheckReport, CompileOptions, RunOptions, Shader};

pub(crate) fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub(crate) struct FsLoader;

impl lockstep::syntax::preprocess::SourceLoader for FsLoader {
    fn load(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

/// The pipeline and the compiled shader of a job.
fn load(yaml: &Path, hlsl: &Path) -> (lockstep::pipeline::Pipeline, Shader) {
    let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(yaml).unwrap()).unwrap();
    let source = std::fs::read_to_string(hlsl).unwrap();
    let opts = CompileOptions {
        entry: pipeline.entry.clone().unwrap_or_else(|| "main".into()),
        ..CompileOptions::default()
    };
    let name = hlsl.display().to_string();
    let shader = lockstep::compile(&name, &source, &opts, &FsLoader)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    (pipeline, shader)
}

fn check_files(yaml: &Path, hlsl: &Path) -> (CheckReport, String) {
    let (pipeline, shader) = load(yaml, hlsl);
    let report =
        lockstep::check(&shader, &pipeline, &RunOptions::default(), &mut |_, _| {}).unwrap();
    let text = report.render(&shader, false);
    (report, text)
}

/// Every shader of `dir` (sorted) with its pipeline: `yaml`, or the
/// shader's own `.yaml` beside it.
pub(crate) fn jobs(dir: &Path, yaml: Option<&str>) -> Vec<(PathBuf, PathBuf)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlsl"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|hlsl| {
            let pipeline = match yaml {
                Some(name) => dir.join(name),
                None => hlsl.with_extension("yaml"),
            };
            (pipeline, hlsl)
        })
        .collect()
}

/// A check runs its wave sizes side by side, as many at once as it has
/// threads, and puts their results together in wave-size order: over the
/// corpus and the examples, the report (as JSON and as text) and the
/// progress calls are the same on 1, 2 and 5 threads.
#[test]
fn reports_do_not_depend_on_the_threads() {
    let mut all = jobs(&repo().join("tests/check"), Some("ub.yaml"));
    all.extend(jobs(&repo().join("examples"), None));
    assert_eq!(all.len(), 28);
    for (yaml, hlsl) in &all {
        let (pipeline, shader) = load(yaml, hlsl);
        let runs: Vec<(String, Vec<(usize, usize)>)> = [1, 2, 5]
            .into_iter()
            .map(|threads| {
                let opts = RunOptions {
                    threads,
                    ..RunOptions::default()
                };
                let mut calls = Vec::new();
                let report = lockstep::check(&shader, &pipeline, &opts, &mut |done, total| {
                    calls.push((done, total));
                })
                .unwrap();
                let text = serde_json::to_string(&report).unwrap() + &report.render(&shader, false);
                (text, calls)
            })
            .collect();
        let name = hlsl.display();
        let (one, calls) = &runs[0];
        // One call per dispatch: five at each wave size.
        let total = lockstep::check_wave_sizes(&shader, &RunOptions::default())
            .unwrap()
            .len()
            * 5;
        assert_eq!(
            *calls,
            (1..=total).map(|d| (d, total)).collect::<Vec<_>>(),
            "{name}"
        );
        for (threads, (text, calls)) in [2, 5].into_iter().zip(&runs[1..]) {
            assert_eq!(text, one, "{name} on {threads} threads");
            assert_eq!(calls, &runs[0].1, "{name} on {threads} threads");
        }
    }
}

/// A check whose dispatches fail at some wave sizes gives the error of the
/// smallest, as one wave size at a time would, however many run at once.
/// The dispatch is proven clean, so the sizes run as `run` runs them.
#[test]
fn failing_checks_report_the_smallest_failing_wave_size() {
    let dir = repo().join("tests/check");
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        [numthreads(64, 1, 1)]\n\
        void main(uint3 id : SV_DispatchThreadID)\n\
        {\n\
            uint i = 0;\n\
            while (WaveGetLaneCount() >= 16 || i < 4)\n\
                i += WaveGetLaneCount();\n\
            Out[id.x] = i;\n\
        }\n";
    let pipeline =
        lockstep::pipeline::parse(&std::fs::read_to_string(dir.join("ub.yaml")).unwrap()).unwrap();
    let shader = lockstep::compile(
        "endless.hlsl",
        source,
        &CompileOptions::default(),
        &FsLoader,
    )
    .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let errors: Vec<String> = [1, 2, 6]
        .into_iter()
        .map(|threads| {
            let opts = RunOptions {
                threads,
                step_budget: 1000,
                ..RunOptions::default()
            };
            let mut calls = 0;
            let e = lockstep::check(&shader, &pipeline, &opts, &mut |_, _| calls += 1)
                .expect_err("the loop is endless at wave sizes 16 and up");
            // Wave sizes 4 and 8: five dispatches each, all done.
            assert!(calls >= 10, "{calls} dispatches on {threads} threads");
            format!("{e}; {}", e.notes.join("; "))
        })
        .collect();
    assert!(
        errors[0].starts_with("loop exceeded the step budget of 1000 iterations")
            && errors[0].ends_with("; at wave size 16"),
        "{}",
        errors[0]
    );
    assert_eq!(errors[1], errors[0]);
    assert_eq!(errors[2], errors[0]);
}

/// Every shader of tests/check names the finding it must produce with a
/// `// FINDING: kind` comment on the line it must point at.
#[test]
fn each_kind_of_finding_is_reported_at_its_line() {
    let dir = repo().join("tests/check");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlsl"))
        .collect();
    files.sort();
    let mut kinds = Vec::new();
    for hlsl in &files {
        let source = std::fs::read_to_string(hlsl).unwrap();
        let (line, kind) = source
            .lines()
            .enumerate()
            .find_map(|(i, l)| {
                l.split_once("// FINDING: ")
                    .map(|(_, k)| (i + 1, k.trim().to_string()))
            })
            .unwrap_or_else(|| panic!("{} has no FINDING marker", hlsl.display()));
        let (report, text) = check_files(&dir.join("ub.yaml"), hlsl);
        match kind.as_str() {
            // The statement that wrote the differing elements.
            "portability" => {
                let at = format!("{}:{line}:", hlsl.display());
                assert!(
                    report
                        .portability
                        .iter()
                        .any(|p| p.written_at.iter().any(|l| l.starts_with(&at))),
                    "{} must name line {line} as the writer:\n{text}",
                    hlsl.display()
                );
                assert!(text.contains(&format!("written at {at}")), "{text}");
            }
            // Every block names where: the float reductions (the marked
            // line), or the statements that wrote what the schedule changed
            // and the atomic whose order did it (the marked line).
            "order-dependence" => {
                let at = format!("{}:{line}:", hlsl.display());
                assert!(!report.order_dependence.is_empty(), "{text}");
                for o in &report.order_dependence {
                    let file = format!("{}:", hlsl.display());
                    assert!(o.sources.iter().all(|l| l.starts_with(&file)), "{text}");
                    assert!(!o.sources.is_empty(), "{text}");
                    if o.variation.starts_with("float") {
                        assert!(o.sources.iter().any(|l| l.starts_with(&at)), "{text}");
                    } else {
                        // Another schedule: the atomic whose order moved
                        // the writes (the marked line).
                        assert!(o.atomics.iter().any(|l| l.starts_with(&at)), "{text}");
                        assert!(text.contains(&format!("the atomic at {at}")), "{text}");
                    }
                }
            }
            _ => {
                let at = format!("{}:{line}:", hlsl.display());
                assert!(
                    report.findings.iter().any(|f| f.kind == kind
                        && f.location.as_deref().is_some_and(|l| l.starts_with(&at))),
                    "{} must report {kind} at line {line}:\n{text}",
                    hlsl.display()
                );
                // Nothing else is undefined, but what an `// ALSO:` comment lists.
                let also: Vec<&str> = source
                    .lines()
                    .filter_map(|l| {
                        l.split_once("// ALSO: ")
                            .and_then(|(_, k)| k.split_whitespace().next())
                    })
                    .collect();
                assert!(
                    report
                        .findings
                        .iter()
                        .all(|f| f.kind == kind || also.contains(&f.kind)),
                    "{}:\n{text}",
                    hlsl.display()
                );
            }
        }
        kinds.push(kind);
    }
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "bad-partition",
            "conflicting-stores",
            "divergent-barrier",
            "division-by-zero",
            "groupshared-race",
            "inactive-lane-read",
            "incomplete-quad",
            "incomplete-quad",
            "lane-out-of-range",
            "order-dependence",
            "order-dependence",
            "out-of-bounds",
            "out-of-bounds-resource",
            "portability",
            "undefined-value",
            "undefined-value",
            "undefined-value",
            "uninitialized-groupshared",
            "uninitialized-groupshared"
        ]
    );
}

/// Waves writing the two 16-bit halves of one groupshared word do not
/// race: each element is its own, and each is written before it is read.
#[test]
fn sixteen_bit_groupshared_elements_are_apart() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint16_t Halves[64];
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    Halves[gi] = (uint16_t)(gi * 3u);
    GroupMemoryBarrierWithGroupSync();
    Out[gi] = Halves[gi ^ 1u];
}
"#;
    let opts = CompileOptions {
        enable_16bit_types: true,
        ..CompileOptions::default()
    };
    let shader = lockstep::compile("halves.hlsl", source, &opts, &FsLoader)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let yaml = repo().join("tests/check/ub.yaml");
    let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(yaml).unwrap()).unwrap();
    let report =
        lockstep::check(&shader, &pipeline, &RunOptions::default(), &mut |_, _| {}).unwrap();
    let text = report.render(&shader, false);
    assert!(report.is_clean(), "{text}");
    assert_eq!(report.wave_sizes, [4, 8, 16, 32, 64, 128], "{text}");
}

/// The lanes of a finding are the ones that did the wrong thing.
#[test]
fn findings_name_the_lanes() {
    let dir = repo().join("tests/check");
    let (report, _) = check_files(&dir.join("ub.yaml"), &dir.join("inactive_lane_read.hlsl"));
    let f = &report.findings[0];
    // At wave size 4 the even lanes 0 and 2 read lanes 1 and 3.
    assert_eq!((f.wave_size, f.lanes.as_slice()), (4, &[0u32, 2][..]));
    assert_eq!(f.wave_sizes, [4, 8, 16, 32, 64, 128]);
    let (report, _) = check_files(&dir.join("ub.yaml"), &dir.join("division_by_zero.hlsl"));
    // In[3] - 4 is 0: thread 3, which at wave size 4 is wave 0, lane 3.
    let f = &report.findings[0];
    assert_eq!(
        (f.wave_size, f.wave, f.lanes.as_slice()),
        (4, 0, &[3u32][..])
    );
    // The lanes of the second wave read the word the first wave's lane 0
    // stores, with no barrier between: each reading lane is named (the
    // load one word for all of them), at wave size 4.
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
                  groupshared uint g;\n\
                  [numthreads(8, 1, 1)]\n\
                  void main(uint gi : SV_GroupIndex)\n\
                  {\n\
                      if (gi == 0)\n\
                          g = 1;\n\
                      GroupMemoryBarrierWithGroupSync();\n\
                      if (gi == 0)\n\
                          g = 2;\n\
                      if (gi != 6)\n\
                          Out[gi] = g;\n\
                  }\n";
    let (report, text) = check_source(&dir.join("ub.yaml"), "uniform_race.hlsl", source);
    let f = report
        .findings
        .iter()
        .find(|f| {
            f.kind == "groupshared-race"
                && f.location.as_deref().is_some_and(|l| l.contains(":12:"))
        })
        .unwrap_or_else(|| panic!("{text}"));
    assert_eq!(
        (f.wave_size, f.wave, f.lanes.as_slice()),
        (4, 1, &[0u32, 1, 3][..]),
        "{text}"
    );
}

/// Every example is a correct shader: no finding at any wave size it
/// allows.
#[test]
fn examples_check_clean() {
    let dir = repo().join("examples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlsl"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 9, "{names:?}");
    for name in names {
        let (report, text) = check_files(
            &dir.join(format!("{name}.yaml")),
            &dir.join(format!("{name}.hlsl")),
        );
        assert!(report.is_clean(), "{name}:\n{text}");
    }
}

/// Checks `source`, written to a file called `name` in a directory of its
/// own that is removed afterwards.
fn check_source(yaml: &Path, name: &str, source: &str) -> (CheckReport, String) {
    let dir = std::env::temp_dir().join(format!("lockstep-check-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, source).unwrap();
    let checked = check_files(yaml, &path);
    std::fs::remove_dir_all(&dir).unwrap();
    checked
}

/// `#pragma lockstep unordered(...)` turns the comparison of a buffer into a
/// comparison of multisets: blocks that move are fine, values that change
/// are not.
#[test]
fn unordered_buffers_compare_as_multisets() {
    let dir = repo().join("examples");
    let source = std::fs::read_to_string(dir.join("coherent_append.hlsl")).unwrap();
    let pragma = "#pragma lockstep unordered(DataBufferUAV)\n";
    assert!(source.contains(pragma));
    // Without the pragma the blocks of the groups move with the order groups
    // take turns in, and only that is reported.
    let (report, text) = check_source(
        &dir.join("coherent_append.yaml"),
        "coherent_append_ordered.hlsl",
        &source.replace(pragma, ""),
    );
    assert!(
        report.findings.is_empty() && report.portability.is_empty(),
        "{text}"
    );
    assert!(!report.order_dependence.is_empty(), "{text}");
    for o in &report.order_dependence {
        assert_eq!(o.buffer, "DataBufferUAV", "{text}");
        assert!(o.variation.contains("shuffled"), "{text}");
    }
    // A float sum that changes with the order of lanes changes the values,
    // not only their places: still reported when unordered.
    let checks = repo().join("tests/check");
    let float_order = std::fs::read_to_string(checks.join("float_order.hlsl")).unwrap();
    let (report, text) = check_source(
        &checks.join("ub.yaml"),
        "float_order_unordered.hlsl",
        &format!("#pragma lockstep unordered(Out)\n{float_order}"),
    );
    assert!(!report.order_dependence.is_empty(), "{text}");
    assert!(
        report.order_dependence[0]
            .variation
            .contains("differ as a multiset"),
        "{text}"
    );
    // The appends of tests/check/wave_order_append.hlsl only move.
    let append = std::fs::read_to_string(checks.join("wave_order_append.hlsl")).unwrap();
    let (report, text) = check_source(
        &checks.join("ub.yaml"),
        "wave_order_append_unordered.hlsl",
        &format!("#pragma lockstep unordered(Out)\n{append}"),
    );
    assert!(report.is_clean(), "{text}");
}

/// Mistakes in a `#pragma lockstep` are warnings that point at them.
#[test]
fn bad_lockstep_pragmas_are_warnings() {
    let source = "StructuredBuffer<uint> In : register(t0);\n\
                  RWStructuredBuffer<uint> Out : register(u0);\n\
                  #pragma lockstep unordered(Out, In, Missing, Outt)\n\
                  #pragma lockstep ordered(Out)\n\
                  #pragma lockstep unordered Out\n\
                  #pragma lockstep\n\
                  [numthreads(4, 1, 1)] void main(uint i : SV_GroupIndex) { Out[i] = In[i]; }\n";
    let shader = lockstep::compile(
        "p.hlsl",
        source,
        &CompileOptions::default(),
        &lockstep::MemoryLoader::default(),
    )
    .unwrap_or_else(|e| panic!("{}", e.render(false)));
    assert_eq!(shader.pragmas.unordered, ["Out"]);
    let text = lockstep::render_diagnostics(&shader.source_map, &shader.diagnostics, false);
    for expected in [
        "p.hlsl:3:33: warning: 'In' is read-only",
        "p.hlsl:3:37: warning: 'Missing' names no resource of the shader\n",
        "p.hlsl:3:46: warning: 'Outt' names no resource of the shader; did you mean 'Out'?",
        "p.hlsl:4:18: warning: unknown '#pragma lockstep ordered'",
        "p.hlsl:5:28: warning: malformed '#pragma lockstep unordered'",
        "p.hlsl:6:1: warning: empty '#pragma lockstep'",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}

/// Runs `source` in checked mode on one group at wave size 8, with its
/// `RWStructuredBuffer<uint> Out` (at `u0`) of `words` zero words: `Out`
/// afterwards, and the report.
fn run_checked_at_wave_8(source: &str, words: usize) -> (Vec<u32>, CheckReport) {
    use crate::harness::{buf, compile, pipeline, words_of};
    use lockstep::pipeline::Kind;
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        [1, 1, 1],
        &[buf("Out", Kind::RwStructuredBuffer, 0, vec![0; words])],
    );
    let opts = RunOptions {
        wave_size: 8,
        ..RunOptions::default()
    };
    let (out, report) = lockstep::run_checked(&shader, &p, &opts).unwrap();
    (words_of(&out.contents[0]), report)
}

/// `select` reads the operand each lane picks: an undefined value in the
/// other one is no finding, in the picked one is (on those lanes only).
#[test]
fn select_reads_only_the_operand_each_lane_picks() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint y;
    if (gi < 4)
        y = gi;
    Out[gi] = select(gi < 4, y, 7u) + (gi < 4 ? y : 9u);
    Out[gi + 8] = select(gi < 6, y, 7u);
}
"#;
    let (words, report) = run_checked_at_wave_8(source, 16);
    assert_eq!(words[..8], [0, 2, 4, 6, 16, 16, 16, 16]);
    assert_eq!(words[8..12], [0, 1, 2, 3]);
    assert_eq!(words[14..], [7, 7]);
    let kinds: Vec<(&str, &[u32])> = report
        .findings
        .iter()
        .map(|f| (f.kind, f.lanes.as_slice()))
        .collect();
    assert_eq!(kinds, [("undefined-value", &[4u32, 5][..])]);
}

/// A branch on a value undefined in an active lane is reported at its
/// condition, with those lanes: an `if`, a `switch` and a vote. A branch
/// whose condition is undefined only in lanes that are not active is not.
#[test]
fn branches_on_undefined_values() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint y;
    if (gi < 4)
        y = gi;
    uint r = 0;
    if (gi < 4)
    {
        if (y > 1)
            r = 1;
    }
    if (y == 2)
        r += 2;
    switch (y)
    {
    case 3:
        r += 4;
        break;
    default:
        break;
    }
    if (gi < 7)
    {
        uint z = WaveReadLaneAt(gi, 7);
        if (WaveActiveAnyTrue(z > 5))
            r += 8;
    }
    Out[gi] = r;
}
"#;
    let (_, report) = run_checked_at_wave_8(source, 8);
    // The line of each finding (the source's first line is empty).
    let line = |f: &lockstep::ReportedFinding| -> Option<u32> {
        f.location.as_deref()?.split(':').nth(1)?.parse().ok()
    };
    let mut findings: Vec<(Option<u32>, &str, &[u32])> = report
        .findings
        .iter()
        .map(|f| (line(f), f.kind, f.lanes.as_slice()))
        .collect();
    findings.sort();
    // `y > 1` runs on lanes 0 to 3 only, where `y` is set. Lanes 4 to 7
    // branch on `y` at `y == 2` and at the `switch`. Lanes 0 to 6 read lane
    // 7, which is not active, and vote on what they read.
    let (high, low) = (&[4u32, 5, 6, 7][..], &[0u32, 1, 2, 3, 4, 5, 6][..]);
    assert_eq!(
        findings,
        [
            (Some(15), "undefined-value", high),
            (Some(17), "undefined-value", high),
            (Some(27), "inactive-lane-read", low),
            (Some(28), "undefined-value", low),
        ]
    );
}

/// A byte address that is in range but not a multiple of 4 is a misaligned
/// access, named with its resource and offset; one past the end is out of
/// bounds.
#[test]
fn misaligned_accesses_name_the_resource_and_offset() {
    let source = r#"
RWByteAddressBuffer Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi == 1)
        Out.Store(6, 7u);
    if (gi == 2)
        Out.Store(64, 7u);
}
"#;
    use crate::harness::{buf, compile, pipeline};
    use lockstep::pipeline::Kind;
    let shader = compile(source, &CompileOptions::default());
    let p = pipeline(
        [1, 1, 1],
        &[buf("Out", Kind::RwByteAddressBuffer, 0, vec![0; 16])],
    );
    let opts = RunOptions {
        wave_size: 8,
        ..RunOptions::default()
    };
    let (out, report) = lockstep::run_checked(&shader, &p, &opts).unwrap();
    // Both writes are dropped.
    assert!(out.contents[0].iter().all(|&b| b == 0));
    let found: Vec<(&str, &[u32], &str)> = report
        .findings
        .iter()
        .map(|f| (f.kind, f.lanes.as_slice(), f.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (
                "misaligned-access",
                &[1u32][..],
                "writes 'Out' at byte offset 6, which is not a multiple of 4"
            ),
            (
                "out-of-bounds-resource",
                &[2u32][..],
                "writes out of bounds of 'Out': 4 bytes at byte offset 64 of its 64 bytes (first lane)"
            ),
        ]
    );
}

/// A pipeline of one 8-thread group writing `Out`, with a `Results` rule
/// that expects `expected` in every element.
fn results_pipeline(expected: u32) -> String {
    let data = vec![expected.to_string(); 8].join(", ");
    format!(
        "---\nShaders:\n  - Stage: Compute\n    Entry: main\n\
         DispatchParameters:\n  DispatchGroupCount: [1, 1, 1]\n\
         Buffers:\n  - Name: Out\n    Format: UInt32\n    FillSize: 32\n\
         \x20 - Name: Expected\n    Format: UInt32\n    Data: [ {data} ]\n\
         DescriptorSets:\n  - Resources:\n    - Name: Out\n      Kind: RWStructuredBuffer\n\
         \x20     DirectXBinding: {{ Register: 0, Space: 0 }}\n\
         Results:\n  - Result: Out\n    Rule: BufferExact\n    Actual: Out\n    Expected: Expected\n...\n"
    )
}

/// `Results` rules count: a rule that holds only at wave size 32 fails at
/// the others, one that never holds fails everywhere, and a check whose
/// rules all hold is clean.
#[test]
fn results_rules_are_checked_at_every_wave_size() {
    let dir = std::env::temp_dir().join(format!("lockstep-check-results-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
                  [numthreads(8, 1, 1)]\n\
                  void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = WaveGetLaneCount(); }\n";
    let shader = dir.join("lanes.hlsl");
    std::fs::write(&shader, source).unwrap();
    let mut reports = Vec::new();
    for expected in [32, 5] {
        let yaml = dir.join(format!("expect_{expected}.yaml"));
        std::fs::write(&yaml, results_pipeline(expected)).unwrap();
        reports.push(check_files(&yaml, &shader));
    }
    std::fs::remove_dir_all(&dir).unwrap();

    let (report, text) = &reports[0];
    let sizes = report.wave_sizes.clone();
    assert!(sizes.contains(&4) && sizes.contains(&32), "{sizes:?}");
    assert!(!report.is_clean(), "{text}");
    let [failure] = &report.results[..] else {
        panic!("one failing rule: {text}");
    };
    assert_eq!(failure.name, "Out");
    assert_eq!(failure.rule, "BufferExact");
    assert_eq!(failure.passing, vec![32]);
    let others: Vec<u32> = sizes.iter().copied().filter(|&w| w != 32).collect();
    assert_eq!(failure.failing, others);
    // At the smallest size, each of the 8 elements holds that size.
    let w = others[0];
    assert!(
        failure
            .first
            .contains(&format!("[0] expected 32, actual {w}")),
        "{}",
        failure.first
    );
    assert!(
        text.contains("results: rule 'Out' (BufferExact) fails at wave sizes")
            && text.contains("(holds at 32)")
            && text.contains("1 failed result rule"),
        "{text}"
    );

    let (report, text) = &reports[1];
    let [failure] = &report.results[..] else {
        panic!("one failing rule: {text}");
    };
    assert_eq!(failure.failing, report.wave_sizes);
    assert!(failure.passing.is_empty());
    assert!(text.contains("(holds at no wave size)"), "{text}");
}

/// A `[numWaves(9)]` group has 1152 threads at wave size 128, more than
/// a group may: the check skips that size with a note and runs the
/// others.
#[test]
fn sizes_a_group_cannot_have_are_skipped() {
    let dir = std::env::temp_dir().join(format!("lockstep-check-skip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let shader = dir.join("nine.hlsl");
    std::fs::write(
        &shader,
        "RWStructuredBuffer<uint> Out : register(u0);\n\
         [numWaves(9)]\n\
         void main() {\n\
         \x20   uint i = GetGroupWaveIndex() * WaveGetLaneCount() + WaveGetLaneIndex();\n\
         \x20   if (i < 36u) Out[i] = i + 1u;\n\
         }\n",
    )
    .unwrap();
    let yaml = dir.join("nine.yaml");
    std::fs::write(
        &yaml,
        "---\nShaders:\n  - Stage: Compute\n    Entry: main\n\
         DispatchParameters:\n  DispatchGroupCount: [1, 1, 1]\n\
         Buffers:\n  - Name: Out\n    Format: UInt32\n    FillSize: 144\n\
         DescriptorSets:\n  - Resources:\n    - Name: Out\n      Kind: RWStructuredBuffer\n\
         \x20     DirectXBinding: { Register: 0, Space: 0 }\n...\n",
    )
    .unwrap();
    let (report, text) = check_files(&yaml, &shader);
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(report.is_clean(), "{text}");
    assert!(!report.wave_sizes.contains(&128), "{text}");
    assert!(report.wave_sizes.contains(&64), "{text}");
    let [skipped] = &report.skipped[..] else {
        panic!("one size skipped: {text}");
    };
    assert_eq!(skipped.wave_size, 128);
    assert!(
        text.contains("note: wave size 128 skipped: the group would have 1152 threads (9 waves), more than the device's limit of 1024"),
        "{text}"
    );
}

/// The usual compaction bug: the base one lane reserved is used by every
/// lane without `WaveReadLaneFirst`. The store's address is undefined in
/// the other lanes, reported at the store.
#[test]
fn compaction_without_read_lane_first_is_reported_at_the_store() {
    let source = "StructuredBuffer<uint> In : register(t0);\n\
                  RWStructuredBuffer<uint> Out : register(u0);\n\
                  [numthreads(8, 1, 1)]\n\
                  void main(uint gi : SV_GroupIndex)\n\
                  {\n\
                  \x20   bool keep = (In[gi] & 1u) != 0u;\n\
                  \x20   uint base;\n\
                  \x20   if (WaveIsFirstLane())\n\
                  \x20       InterlockedAdd(Out[63], WaveActiveCountBits(keep), base);\n\
                  \x20   if (keep)\n\
                  \x20       Out[base + WavePrefixCountBits(keep)] = In[gi];\n\
                  }\n";
    let (report, text) = check_source(
        &repo().join("tests/check/ub.yaml"),
        "compaction.hlsl",
        source,
    );
    let at_store = report.findings.iter().find(|f| {
        f.kind == "undefined-value"
            && f.location.as_deref().is_some_and(|l| l.contains(":11:"))
            && f.message.contains("address of this store")
    });
    assert!(at_store.is_some(), "{text}");
}

/// Lanes of one wave that store different values at one word in one store:
/// which value lands is not specified. Reported at the store, with the two
/// lanes, in groupshared memory as in a buffer; lanes that store one value
/// at one word are not reported.
#[test]
fn lanes_storing_different_values_at_one_word_are_reported_at_the_store() {
    let source = "StructuredBuffer<uint> In : register(t0);\n\
                  RWStructuredBuffer<uint> Out : register(u0);\n\
                  groupshared uint Pairs[4];\n\
                  [numthreads(8, 1, 1)]\n\
                  void main(uint gi : SV_GroupIndex)\n\
                  {\n\
                  \x20   Out[gi / 2u] = In[gi];\n\
                  \x20   Out[8u + gi / 2u] = 7u;\n\
                  \x20   Pairs[gi / 2u] = gi;\n\
                  \x20   GroupMemoryBarrierWithGroupSync();\n\
                  \x20   Out[16u + gi] = Pairs[gi / 2u];\n\
                  }\n";
    let (report, text) = check_source(&repo().join("tests/check/ub.yaml"), "pairs.hlsl", source);
    let at_line = |line: &str| {
        report.findings.iter().find(|f| {
            f.kind == "conflicting-stores"
                && f.location.as_deref().is_some_and(|l| l.contains(line))
        })
    };
    let buffer = at_line(":7:").unwrap_or_else(|| panic!("{text}"));
    assert_eq!(buffer.wave_sizes, report.wave_sizes, "{text}");
    assert!(
        buffer.message.contains("lanes 0 and 1") && buffer.message.contains("'Out'"),
        "{text}"
    );
    assert!(at_line(":8:").is_none(), "one value: {text}");
    let shared = at_line(":9:").unwrap_or_else(|| panic!("{text}"));
    assert!(shared.message.contains("groupshared memory"), "{text}");
    assert_eq!(
        report
            .findings
            .iter()
            .filter(|f| f.kind == "conflicting-stores")
            .count(),
        2,
        "{text}"
    );
}

/// An append buffer whose order changes with the shuffled schedules at
/// several wave sizes gives one block for both schedules, over those
/// sizes, which the summary counts once; long lists of elements end with
/// how many more differ.
#[test]
fn repeated_order_dependences_are_one_block() {
    let dir = repo().join("tests/check");
    let (report, text) = check_files(&dir.join("ub.yaml"), &dir.join("wave_order_append.hlsl"));
    let blocks: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("order dependence:"))
        .collect();
    let seeds: std::collections::BTreeSet<&str> = report
        .order_dependence
        .iter()
        .filter(|o| o.variation.contains("shuffled"))
        .map(|o| o.variation.as_str())
        .collect();
    assert_eq!(seeds.len(), 2, "{text}");
    assert!(report.order_dependence.len() > blocks.len(), "{text}");
    assert_eq!(blocks.len(), 1, "{text}");
    assert!(
        blocks[0].contains("in shuffled orders (seeds 1, 2)")
            && blocks[0].contains("at wave sizes 4, 8"),
        "{text}"
    );
    assert!(text.contains(", 1 order dependence, "), "{text}");
    let o = &report.order_dependence[0];
    assert!(o.differing_elements > o.elements.len(), "{text}");
    let more = format!("  … and {} more", o.differing_elements - o.elements.len());
    assert!(text.lines().any(|l| l == more), "{text}");
}

/// A portability finding names the statements that wrote the differing
/// elements, and only those: here the second and third stores, not the
/// first, whose elements agree at every size.
#[test]
fn portability_names_the_writing_statements() {
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
                  [numthreads(16, 1, 1)]\n\
                  void main(uint gi : SV_GroupIndex)\n\
                  {\n\
                  \x20   Out[gi] = gi * 3u;\n\
                  \x20   if (gi < 4u)\n\
                  \x20       Out[16u + gi] = WaveGetLaneCount();\n\
                  \x20   Out[32u + gi] = WavePrefixSum(gi) + WaveActiveSum(1u);\n\
                  }\n";
    let (report, text) = check_source(
        &repo().join("tests/check/ub.yaml"),
        "portability.hlsl",
        source,
    );
    assert_eq!(report.portability.len(), 1, "{text}");
    let p = &report.portability[0];
    let lines: Vec<&str> = p
        .written_at
        .iter()
        .map(|l| l.rsplit_once("portability.hlsl:").map_or("", |(_, at)| at))
        .collect();
    assert_eq!(lines, ["7:9", "8:5"], "{text}");
    assert!(
        text.contains("portability.hlsl:7:9: Out[16u + gi] = WaveGetLaneCount();"),
        "{text}"
    );
}

/// Groups that spin on a flag another group sets finish in the default
/// order (the setter's group first) and loop past the step budget in a
/// shuffled one: a `progress-dependence` finding at the loop's line, in
/// text and JSON, with the rest of the report kept.
#[test]
fn spin_waits_between_groups_are_findings() {
    let source = "RWStructuredBuffer<uint> Flag : register(u0);\n\
        RWStructuredBuffer<uint> Out : register(u1);\n\
        [numthreads(32, 1, 1)]\n\
        void main(uint3 id : SV_DispatchThreadID, uint3 g : SV_GroupID)\n\
        {\n\
            if (g.x == 0u && id.x == 0u)\n\
                Flag[0] = 1u;\n\
            uint spins = 0u;\n\
            while (g.x != 0u && Flag[0] == 0u)\n\
                spins += 1u;\n\
            Out[id.x] = WaveActiveSum(id.x) + spins;\n\
        }\n";
    let shader = lockstep::compile("spin.hlsl", source, &CompileOptions::default(), &FsLoader)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let mut pipeline = lockstep::pipeline::parse(
        "Shaders:\n  - Stage: Compute\n    Entry: main\nDispatchParameters:\n  DispatchGroupCount: [8, 1, 1]\n\
         Buffers:\n  - Name: Flag\n    Format: UInt32\n    FillSize: 4\n  - Name: Out\n    Format: UInt32\n    FillSize: 1024\n\
         DescriptorSets:\n  - Resources:\n    - Name: Flag\n      Kind: RWStructuredBuffer\n      DirectXBinding:\n        Register: 0\n        Space: 0\n\
         \x20   - Name: Out\n      Kind: RWStructuredBuffer\n      DirectXBinding:\n        Register: 1\n        Space: 0\n",
    )
    .unwrap();
    pipeline.entry = None;
    let opts = RunOptions {
        step_budget: 1000,
        ..RunOptions::default()
    };
    let report = lockstep::check(&shader, &pipeline, &opts, &mut |_, _| {}).unwrap();
    let text = report.render(&shader, false);
    let spin: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.kind == "progress-dependence")
        .collect();
    assert!(!spin.is_empty(), "{text}");
    assert!(
        spin.iter().all(|f| f
            .location
            .as_deref()
            .is_some_and(|l| l.starts_with("spin.hlsl:9:"))),
        "{text}"
    );
    assert!(
        text.contains("warning: progress-dependence: this loop ran past the step budget"),
        "{text}"
    );
    // A hazard, counted apart from undefined behaviour.
    let ub = report.findings.len() - spin.len();
    let summary = format!(
        "{ub} undefined-behaviour finding{}, {} progress dependence",
        if ub == 1 { "" } else { "s" },
        spin.len()
    );
    assert!(text.contains(&summary), "{text}");
    // The report goes on: every wave size was checked.
    assert_eq!(report.wave_sizes, vec![4, 8, 16, 32, 64, 128], "{text}");
    let json = serde_json::to_string(&report).unwrap();
    assert!(json.contains("\"kind\":\"progress-dependence\""), "{json}");
}

/// The orders a check varies: the shuffled schedules still run where waves
/// race with plain stores that nothing reads, or with a store against
/// atomics whose results nothing reads; the wave order shows in the value
/// left behind.
#[test]
fn races_between_stores_that_nothing_reads_are_order_dependent() {
    let dir = repo().join("tests/check");
    for (name, source) in [
        (
            "last_store_wins.hlsl",
            "RWStructuredBuffer<uint> Out : register(u0);\n\
             [numthreads(64, 1, 1)]\n\
             void main(uint3 dtid : SV_DispatchThreadID) {\n\
             \x20   if (WaveIsFirstLane())\n\
             \x20       Out[0] = dtid.x;\n\
             }\n",
        ),
        (
            "store_against_adds.hlsl",
            "RWStructuredBuffer<uint> Out : register(u0);\n\
             [numthreads(64, 1, 1)]\n\
             void main(uint3 dtid : SV_DispatchThreadID) {\n\
             \x20   if (dtid.x == 0)\n\
             \x20       Out[0] = 100;\n\
             \x20   else if (WaveIsFirstLane())\n\
             \x20       InterlockedAdd(Out[0], 1);\n\
             }\n",
        ),
    ] {
        let (report, text) = check_source(&dir.join("ub.yaml"), name, source);
        assert!(report.findings.is_empty(), "{name}:\n{text}");
        assert!(!report.order_dependence.is_empty(), "{name}:\n{text}");
        for o in &report.order_dependence {
            assert_eq!(o.buffer, "Out", "{name}:\n{text}");
            assert!(o.variation.contains("shuffled"), "{name}:\n{text}");
            assert!(o.wave_size < 64, "{name}: one wave has no order\n{text}");
        }
    }
}

/// A finding inside a helper function names the entry point's call of it,
/// and each call is a finding of its own.
#[test]
fn findings_in_helpers_name_their_call() {
    let dir = repo().join("tests/check");
    let source = "StructuredBuffer<uint> In : register(t0);\n\
        RWStructuredBuffer<uint> Out : register(u0);\n\
        uint ReadNext(uint v) {\n\
        \x20   return WaveReadLaneAt(v, WaveGetLaneIndex() + 1);\n\
        }\n\
        [numthreads(8, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
        \x20   uint a = 0;\n\
        \x20   if (In[gi] > 4)\n\
        \x20       a = ReadNext(In[gi]);\n\
        \x20   Out[gi] = a;\n\
        }\n";
    let (report, text) = check_source(&dir.join("ub.yaml"), "helper.hlsl", source);
    let calls: Vec<(&str, Option<&str>)> = report
        .findings
        .iter()
        .filter(|f| f.location.as_deref().is_some_and(|l| l.contains(":4:")))
        .map(|f| (f.kind, f.called_from.as_deref()))
        .collect();
    assert!(!calls.is_empty(), "{text}");
    for (kind, call) in calls {
        assert!(
            call.is_some_and(|c| c.contains("helper.hlsl:10:")),
            "{kind}: {call:?}\n{text}"
        );
    }
    assert!(text.contains("in the call at "), "{text}");
}

/// A finding two helpers deep names the whole chain of calls, innermost
/// first, and is kept apart for each chain.
#[test]
fn findings_in_nested_helpers_name_every_call() {
    let dir = repo().join("tests/check");
    let source = "StructuredBuffer<uint> In : register(t0);\n\
        RWStructuredBuffer<uint> Out : register(u0);\n\
        uint ReadNext(uint v) {\n\
        \x20   return WaveReadLaneAt(v, WaveGetLaneIndex() + 1);\n\
        }\n\
        uint Twice(uint v) { return ReadNext(v) * 2; }\n\
        [numthreads(8, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
        \x20   uint a = 0;\n\
        \x20   if (In[gi] > 4)\n\
        \x20       a = Twice(In[gi]);\n\
        \x20   if (In[gi] > 6)\n\
        \x20       a += Twice(In[gi]);\n\
        \x20   Out[gi] = a;\n\
        }\n";
    let (report, text) = check_source(&dir.join("ub.yaml"), "nested.hlsl", source);
    let mut chains: Vec<Vec<String>> = report
        .findings
        .iter()
        .filter(|f| f.kind == "inactive-lane-read")
        .map(|f| {
            f.calls
                .iter()
                .map(|c| {
                    let file_line = c.rsplit_once(':').map_or(c.as_str(), |(l, _)| l);
                    file_line
                        .rsplit('/')
                        .next()
                        .unwrap_or(file_line)
                        .to_string()
                })
                .collect()
        })
        .collect();
    chains.sort();
    assert_eq!(
        chains,
        [
            vec!["nested.hlsl:6".to_string(), "nested.hlsl:11".to_string()],
            vec!["nested.hlsl:6".to_string(), "nested.hlsl:13".to_string()],
        ],
        "{text}"
    );
    assert!(text.contains("nested.hlsl:6:29, called at "), "{text}");
}

/// A lock taken lane by lane never ends where a wave's lanes run in
/// lockstep: the check reports the loop as a progress dependence at every
/// size, keeps what it found before it, and goes on.
#[test]
fn a_loop_that_never_ends_is_a_finding_not_an_error() {
    let dir = repo().join("tests/check");
    let source = "StructuredBuffer<uint> In : register(t0);\n\
        RWStructuredBuffer<uint> Out : register(u0);\n\
        [numthreads(8, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
        \x20   Out[8 + gi] = WaveReadLaneAt(In[gi], 5);\n\
        \x20   uint prev = 1;\n\
        \x20   [loop] while (prev != 0)\n\
        \x20       InterlockedCompareExchange(Out[0], 0u, 1u, prev);\n\
        \x20   Out[1] += 1;\n\
        \x20   InterlockedExchange(Out[0], 0u, prev);\n\
        }\n";
    let path = std::env::temp_dir().join(format!("lockstep-stuck-{}.hlsl", std::process::id()));
    std::fs::write(&path, source).unwrap();
    let (pipeline, shader) = load(&dir.join("ub.yaml"), &path);
    std::fs::remove_file(&path).unwrap();
    let opts = RunOptions {
        step_budget: 1 << 12,
        ..RunOptions::default()
    };
    let report = lockstep::check(&shader, &pipeline, &opts, &mut |_, _| {}).unwrap();
    let text = report.render(&shader, false);
    let at = |kind: &str, line: &str| {
        report
            .findings
            .iter()
            .find(|f| f.kind == kind && f.location.as_deref().is_some_and(|l| l.contains(line)))
    };
    let stuck = at("progress-dependence", ":7:").expect(&text);
    assert_eq!(stuck.wave_sizes, [4, 8, 16, 32, 64, 128], "{text}");
    assert!(stuck.message.contains("may never end"), "{text}");
    // Lane 5 is past a wave of 4: found before the loop.
    assert_eq!(
        at("lane-out-of-range", ":5:").expect(&text).wave_sizes,
        [4],
        "{text}"
    );
}

/// An order dependence names the atomics whose order can show: one whose
/// returned value is read (the slot), not one whose result nothing reads
/// and whose updates commute (the maximum), in groupshared memory as in
/// buffers.
#[test]
fn order_dependence_names_only_atomics_whose_order_shows() {
    let dir = repo().join("tests/check");
    let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
        groupshared uint Count, Max, List[64];\n\
        [numthreads(64, 1, 1)]\n\
        void main(uint gi : SV_GroupIndex) {\n\
        \x20   if (gi == 0) { Count = 0; Max = 0; }\n\
        \x20   GroupMemoryBarrierWithGroupSync();\n\
        \x20   InterlockedMax(Max, gi * 7 % 13);\n\
        \x20   InterlockedOr(Out[64], 1u << (gi % 8));\n\
        \x20   uint slot; InterlockedAdd(Count, 1, slot);\n\
        \x20   List[slot] = gi;\n\
        \x20   GroupMemoryBarrierWithGroupSync();\n\
        \x20   Out[gi] = List[gi];\n\
        \x20   if (gi == 0) Out[65] = Max;\n\
        }\n";
    let (report, text) = check_source(&dir.join("ub.yaml"), "slots.hlsl", source);
    assert!(!report.order_dependence.is_empty(), "{text}");
    for o in &report.order_dependence {
        assert_eq!(o.atomics.len(), 1, "{text}");
        assert!(o.atomics[0].contains("slots.hlsl:9:"), "{text}");
    }
}

/// The shuffled schedules run as machine code where the wave size has it:
/// waves that take slots from a groupshared counter store them in an order
/// the shuffles change, at every size with more than one wave to a group
/// (4 to 32 for 64 threads), and only there; stores of each wave's own
/// `GetGroupWaveIndex`, `SV_GroupIndex` and group id, beside the same
/// counter, stay the same in every order (each turn runs its own wave).
#[test]
fn shuffled_orders_run_as_machine_code() {
    let yaml = "---
Shaders:
  - Stage: Compute
    Entry: main
    DispatchSize: [ 24, 1, 1 ]
Buffers:
  - Name: Out
    Format: UInt32
    FillSize: 6144
DescriptorSets:
  - Resources:
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding: { Register: 0, Space: 0 }
";
    let dir = std::env::temp_dir().join(format!("lockstep-shuffled-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pipeline = dir.join("shuffled.yaml");
    std::fs::write(&pipeline, yaml).unwrap();
    let shader = |store: &str| {
        format!(
            "RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Count;
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{{
    if (gi == 0)
        Count = 0;
    GroupMemoryBarrierWithGroupSync();
    uint at;
    InterlockedAdd(Count, 1u, at);
    {store}
}}
"
        )
    };
    let slots = shader("Out[id.x] = at;");
    let (report, text) = check_source(&pipeline, "slots.hlsl", &slots);
    std::fs::write(dir.join("slots.hlsl"), &slots).unwrap();
    let (_, compiled) = load(&pipeline, &dir.join("slots.hlsl"));
    for w in [4, 8, 16, 32, 64, 128] {
        let engine = compiled.program.engine_report(w, lockstep::Engine::Auto);
        assert!(engine.native, "wave size {w}: {:?}", engine.reason);
        let shuffled = report
            .order_dependence
            .iter()
            .filter(|o| o.wave_size == w && o.variation.contains("shuffled"))
            .count();
        assert_eq!(shuffled > 0, w < 64, "wave size {w}:\n{text}");
    }
    let own = shader(
        "Out[id.x] = GetGroupWaveIndex() * 100000u + gid.x * 1000u + gi + (at < 64u ? 0u : 7u);",
    );
    let (report, text) = check_source(&pipeline, "own.hlsl", &own);
    // The wave index moves with the wave size: a portability issue.
    assert!(
        report.order_dependence.is_empty() && report.findings.is_empty(),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A memory fence with no group sync (`DeviceMemoryBarrier`,
/// `GroupMemoryBarrier`, `AllMemoryBarrier`), legal in a branch, holds no
/// wave back: the other waves stay at the group barrier they wait at until
/// every wave reaches it. Every thread then reads the flag thread 63 set,
/// at every wave size, and the check finds nothing.
#[test]
fn fences_in_branches_are_not_group_barriers() {
    for fence in [
        "DeviceMemoryBarrier",
        "GroupMemoryBarrier",
        "AllMemoryBarrier",
    ] {
        let source = format!(
            "RWStructuredBuffer<uint> Out : register(u0);\n\
             groupshared uint flag;\n\
             [numthreads(64, 1, 1)]\n\
             void main(uint gi : SV_GroupIndex)\n\
             {{\n\
                 if (gi == 0)\n\
                     flag = 0;\n\
                 GroupMemoryBarrierWithGroupSync();\n\
                 if (gi == 63) {{\n\
                     Out[0] = 5;\n\
                     {fence}();\n\
                     flag = 1;\n\
                 }}\n\
                 GroupMemoryBarrierWithGroupSync();\n\
                 Out[gi] = flag + (gi == 0 ? Out[0] : 0);\n\
             }}\n"
        );
        for w in [4, 8, 32, 64] {
            let out = crate::harness::run_words(
                &source,
                [1, 1, 1],
                &[crate::harness::buf(
                    "Out",
                    lockstep::pipeline::Kind::RwStructuredBuffer,
                    0,
                    vec![0; 64],
                )],
                w,
            );
            let mut want = vec![1u32; 64];
            want[0] = 6;
            assert_eq!(out[0], want, "{fence} at wave size {w}");
        }
        let dir = repo().join("tests/check");
        let (report, text) = check_source(&dir.join("ub.yaml"), "fence.hlsl", &source);
        assert!(report.is_clean(), "{fence}:\n{text}");
    }
}

/// A texel read past a texture's size or its last mip level is reported
/// as such, without a byte offset (a texel address has none).
#[test]
fn texels_outside_a_texture_are_reported() {
    let source = "Texture2D<float> T : register(t0);\n\
                  RWStructuredBuffer<float> Out : register(u0);\n\
                  [numthreads(2, 1, 1)]\n\
                  void main(uint i : SV_GroupIndex) {\n\
                      Out[i] = T.Load(int3(i, 0, i));\n\
                  }\n";
    let yaml = "Shaders:\n  - Stage: Compute\n    Entry: main\nBuffers:\n\
        \x20 - Name: T\n    Format: Float32\n    Data: [ 1, 2, 3 ]\n\
        \x20   OutputProps: { Width: 2, Height: 1, Depth: 1, MipLevels: 2 }\n\
        \x20 - Name: Out\n    Format: Float32\n    FillSize: 8\n\
        DescriptorSets:\n  - Resources:\n\
        \x20   - { Name: T, Kind: Texture2D, DirectXBinding: { Register: 0, Space: 0 } }\n\
        \x20   - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0, Space: 0 } }\n";
    let shader = crate::harness::compile(source, &CompileOptions::default());
    let p = lockstep::pipeline::parse(yaml).unwrap();
    let opts = RunOptions {
        wave_size: 4,
        ..RunOptions::default()
    };
    let (out, report) = lockstep::run_checked(&shader, &p, &opts).unwrap();
    // Lane 0 reads level 0's texel 0; lane 1 reads x 1 of level 1 (1×1).
    assert_eq!(out.contents[1][..4], 1f32.to_le_bytes());
    assert_eq!(out.contents[1][4..], [0; 4]);
    let found: Vec<(&str, &[u32], &str)> = report
        .findings
        .iter()
        .map(|f| (f.kind, f.lanes.as_slice(), f.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [(
            "out-of-bounds-resource",
            &[1u32][..],
            "reads a texel outside 'T': a coordinate is past its size, or the mip level past the last (first lane)"
        )]
    );
}

/// A local array indexed past its end at run time is out of bounds (the
/// read gives 0, the write is dropped), for the lanes that do it; `check`
/// finds it too, as the proof cannot bound the index.
#[test]
fn local_arrays_indexed_past_their_end_are_reported() {
    let source = r#"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint a[4] = { 1, 2, 3, 4 };
    a[gi & 7] = 9;
    Out[gi] = a[gi / 2];
}
"#;
    let (words, report) = run_checked_at_wave_8(source, 8);
    // Each lane has its own array: lanes 0..3 set their own element to 9
    // (lanes 4..7 write past the end, dropped), then read element gi / 2:
    // 9 for lane 0 (its own), the initial values for the others.
    assert_eq!(words, [9, 1, 2, 2, 3, 3, 4, 4]);
    let found: Vec<(&str, &[u32], &str)> = report
        .findings
        .iter()
        .map(|f| (f.kind, f.lanes.as_slice(), f.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [(
            "out-of-bounds",
            &[4u32, 5, 6, 7][..],
            "writes a local array out of bounds: scalar 4 of its 4 (first lane)"
        )]
    );
}

/// A read past the end of a buffer is defined on D3D12 (it gives 0): the
/// check reports it at its line as a note and still passes; one past
/// groupshared memory is undefined and fails it.
#[test]
fn resource_bounds_are_notes_and_groupshared_bounds_errors() {
    let dir = repo().join("tests/check");
    for (file, clean) in [
        ("out_of_bounds_resource.hlsl", true),
        ("out_of_bounds.hlsl", false),
    ] {
        let (pipeline, shader) = load(&dir.join("ub.yaml"), &dir.join(file));
        let report =
            lockstep::check(&shader, &pipeline, &RunOptions::default(), &mut |_, _| {}).unwrap();
        let text = report.render(&shader, false);
        assert_eq!(report.is_clean(), clean, "{text}");
        let severity = if clean {
            lockstep::Severity::Note
        } else {
            lockstep::Severity::Error
        };
        assert!(
            report.findings.iter().all(|f| f.severity == severity),
            "{text}"
        );
        if clean {
            assert!(text.contains("warning: out-of-bounds-resource"), "{text}");
            assert!(
                text.contains("clean: no undefined behaviour at wave sizes 4, 8, 16, 32, 64, 128 (1 out-of-bounds buffer or texture access, defined on D3D12)"),
                "{text}"
            );
        }
    }
}

/// The compare-exchange loop of a float atomic add reads the word plainly
/// first: a read racing only with atomics sees the word before or after
/// each, so it is no race, and the sum is the same in every order. A plain
/// store racing with another wave's atomic still is one.
#[test]
fn reads_racing_only_with_atomics_are_no_race() {
    let source = "StructuredBuffer<uint> In : register(t0);\n\
                  RWStructuredBuffer<uint> Out : register(u0);\n\
                  groupshared uint Sum;\n\
                  [numthreads(64, 1, 1)]\n\
                  void main(uint gi : SV_GroupIndex)\n\
                  {\n\
                  \x20   if (gi == 0) Sum = asuint(0.0f);\n\
                  \x20   GroupMemoryBarrierWithGroupSync();\n\
                  \x20   uint seen = Sum;\n\
                  \x20   uint old;\n\
                  \x20   [allow_uav_condition] while (true) {\n\
                  \x20       InterlockedCompareExchange(Sum, seen, asuint(asfloat(seen) + 1.0f), old);\n\
                  \x20       if (old == seen) break;\n\
                  \x20       seen = old;\n\
                  \x20   }\n\
                  \x20   GroupMemoryBarrierWithGroupSync();\n\
                  \x20   Out[gi] = Sum;\n\
                  }\n";
    let (report, text) = check_source(&repo().join("tests/check/ub.yaml"), "cas.hlsl", source);
    assert!(report.is_clean(), "{text}");
    let racy = source.replace("uint seen = Sum;", "uint seen = Sum; if (gi == 5) Sum = 0;");
    let (report, text) = check_source(&repo().join("tests/check/ub.yaml"), "cas_store.hlsl", &racy);
    assert!(
        report.findings.iter().any(|f| f.kind == "groupshared-race"
            && f.location.as_deref().is_some_and(|l| l.contains(":9:"))),
        "{text}"
    );
}

/// `ulps`: float outputs a few units in the last place apart count as the
/// same between wave sizes and reduction orders, so a float wave sum passes
/// with a tolerance and fails without one.
#[test]
fn float_outputs_agree_within_ulps() {
    let dir = repo().join("tests/check");
    let (mut pipeline, shader) = load(&dir.join("ub.yaml"), &dir.join("float_order.hlsl"));
    // Only float buffers compare with a tolerance: `Out` as floats.
    pipeline.buffers[1].format = lockstep::pipeline::Format::Float32;
    let exact =
        lockstep::check(&shader, &pipeline, &RunOptions::default(), &mut |_, _| {}).unwrap();
    assert!(
        !exact.order_dependence.is_empty(),
        "{}",
        exact.render(&shader, false)
    );
    let opts = RunOptions {
        ulps: 1 << 20,
        ..RunOptions::default()
    };
    let loose = lockstep::check(&shader, &pipeline, &opts, &mut |_, _| {}).unwrap();
    assert!(loose.is_clean(), "{}", loose.render(&shader, false));
}
