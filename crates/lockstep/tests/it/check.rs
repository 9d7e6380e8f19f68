//! `lockstep check`: a corpus of deliberately wrong shaders, each reported
//! with the right kind at the marked line, and correct shaders with no
//! findings.

use std::path::{Path, PathBuf};

use lockstep::{CheckReport, CompileOptions, RunOptions};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct FsLoader;

impl lockstep::syntax::preprocess::SourceLoader for FsLoader {
    fn load(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

fn check_files(yaml: &Path, hlsl: &Path) -> (CheckReport, String) {
    let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(yaml).unwrap()).unwrap();
    let source = std::fs::read_to_string(hlsl).unwrap();
    let opts = CompileOptions {
        entry: pipeline.entry.clone().unwrap_or_else(|| "main".into()),
        ..CompileOptions::default()
    };
    let name = hlsl.display().to_string();
    let shader = lockstep::compile(&name, &source, &opts, &FsLoader)
        .unwrap_or_else(|e| panic!("{}", e.render(false)));
    let report =
        lockstep::check(&shader, &pipeline, &RunOptions::default(), &mut |_, _| {}).unwrap();
    let text = report.render(&shader, false);
    (report, text)
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
            "portability" => assert!(
                !report.portability.is_empty(),
                "{}:\n{text}",
                hlsl.display()
            ),
            "order-dependence" => assert!(
                !report.order_dependence.is_empty(),
                "{}:\n{text}",
                hlsl.display()
            ),
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
            "divergent-barrier",
            "division-by-zero",
            "groupshared-race",
            "inactive-lane-read",
            "incomplete-quad",
            "order-dependence",
            "out-of-bounds",
            "portability",
            "undefined-value",
            "uninitialized-groupshared"
        ]
    );
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
}

/// Examples whose outputs do not depend on scheduling are clean. The
/// others are flagged for exactly what real GPUs leave open: the order
/// waves of a group (or groups) reach a shared atomic counter, and reads of
/// the groups one pipeline dispatches past the image at larger wave sizes.
#[test]
fn examples_are_clean_or_flagged_for_what_they_leave_open() {
    let dir = repo().join("examples");
    for (name, expect_clean) in [
        ("atomic_per_wave", true),
        ("uniform_fast_path", true),
        ("tile_minmax_one_wave", true),
        ("tile_minmax_two_waves", true),
        ("compact_write", false),
        ("ordered_append", false),
        ("reserve_last_lane", false),
        ("coherent_append", false),
        ("coalesced_or", true),
    ] {
        let (report, text) = check_files(
            &dir.join(format!("{name}.yaml")),
            &dir.join(format!("{name}.hlsl")),
        );
        assert_eq!(report.is_clean(), expect_clean, "{name}:\n{text}");
        if !expect_clean {
            let kinds: Vec<&str> = report.findings.iter().map(|f| f.kind).collect();
            assert!(
                kinds.iter().all(|&k| k == "out-of-bounds"),
                "{name}: {kinds:?}\n{text}"
            );
        }
    }
}
