//! The data-driven corpus: each `tests/data/NAME.hlsl` is parsed and its
//! tree and diagnostics compared with `tests/data/NAME.out`.

use std::path::Path;

use lockstep_syntax::PreprocessOptions;

use crate::{MAIN, ast_and_diags};

#[test]
fn corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut inputs: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/data exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "hlsl"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty());
    let mut failures = Vec::new();
    for input in inputs {
        let text = std::fs::read_to_string(&input).expect("readable input");
        let actual = ast_and_diags(&[(MAIN, &text)], &PreprocessOptions::default());
        let expected_path = input.with_extension("out");
        if update {
            std::fs::write(&expected_path, &actual).expect("writable snapshot");
            continue;
        }
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected != actual {
            failures.push(format!("{}:\n{actual}", expected_path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "snapshots differ (UPDATE_EXPECT=1 refreshes):\n{}",
        failures.join("\n")
    );
}
