//! `lockstep trace` as a user runs it: the page and the JSON it writes,
//! and the errors of its flags.

use std::path::Path;
use std::process::{Command, Output};

fn lockstep(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(args)
        .output()
        .expect("run lockstep")
}

const EXAMPLE: [&str; 3] = [
    "trace",
    "examples/compact_write.yaml",
    "examples/compact_write.hlsl",
];

fn with(extra: &[&str]) -> Output {
    let args: Vec<&str> = EXAMPLE.iter().chain(extra).copied().collect();
    lockstep(&args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn writes_a_page_that_needs_no_network() {
    let dir = std::env::temp_dir().join(format!("lockstep-trace-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("t.html");
    let o = with(&["--no-check", "-o", page.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Group 0 has two waves of 32 lanes at the default wave size.
    assert!(stderr(&o).contains("steps of 2 waves"), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(html.starts_with("<!DOCTYPE html>"));
    for remote in ["src=\"http", "href=\"http", "import(", "fetch("] {
        assert!(!html.contains(remote), "the page loads {remote}");
    }
}

#[test]
fn json_goes_to_standard_output() {
    let o = with(&[
        "--no-check",
        "--format",
        "json",
        "--wave-size",
        "16",
        "--wave",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(doc["format"], "lockstep-trace");
    assert_eq!(doc["wave_size"], 16);
    assert_eq!(doc["waves"].as_array().unwrap().len(), 1);
    assert_eq!(doc["waves"][0]["index"], 1);
}

#[test]
fn a_dash_writes_to_standard_output() {
    for format in ["json", "html"] {
        let o = with(&["--no-check", "--format", format, "-o", "-"]);
        assert_eq!(o.status.code(), Some(0), "{format}: {}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        let start = if format == "json" {
            "{"
        } else {
            "<!DOCTYPE html>"
        };
        assert!(
            out.starts_with(start),
            "{format}: {}",
            &out[..out.len().min(80)]
        );
        assert!(!stderr(&o).contains("wrote"), "{format}: {}", stderr(&o));
    }
    assert!(
        !Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../-")
            .exists()
    );
}

#[test]
fn bad_flags_exit_2_with_the_reason() {
    let cases: [(&[&str], &str); 6] = [
        (&["--steps", "5"], "--steps: expected A..B"),
        (&["--steps", "9..3"], "keeps no step"),
        (&["--group", "1,0"], "--group: expected X,Y,Z"),
        (&["--group", "7,0,0"], "the dispatch has 2 x 1 x 1 groups"),
        (&["--stage", "vertex"], "--stage is for a draw"),
        (&["--format", "xml"], "expected html or json"),
    ];
    for (extra, message) in cases {
        let o = with(extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{extra:?}: {}", stderr(&o));
    }
}

#[test]
fn a_draw_traces_a_pixel_wave_chosen_by_number() {
    let draw = [
        "trace",
        "examples/draw/triangle.yaml",
        "examples/draw/triangle.hlsl",
        "examples/draw/triangle.hlsl",
    ];
    let args: Vec<&str> = draw
        .iter()
        .chain(&["--no-check", "--format", "json", "--wave", "2"])
        .copied()
        .collect();
    let o = lockstep(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(doc["stage"], "pixel");
    assert_eq!(doc["waves"][0]["group"], serde_json::json!([2, 0, 0]));
    let args: Vec<&str> = draw.iter().chain(&["--group", "1,0,0"]).copied().collect();
    let o = lockstep(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--wave N"), "{}", stderr(&o));
    let args: Vec<&str> = draw.iter().chain(&["--wave", "100000"]).copied().collect();
    let o = lockstep(&args);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("has no pixel wave 100000"),
        "{}",
        stderr(&o)
    );
}
