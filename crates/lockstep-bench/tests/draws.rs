//! Draws on Lockstep against Mesa's lavapipe, where the Vulkan loader,
//! lavapipe and glslangValidator are installed (`.ci/run` installs them):
//! the same HLSL and pipeline, every channel of every pixel within 1/65535
//! as offloader's PNG holds it.

use std::path::{Path, PathBuf};

use lockstep_bench::draws;
use lockstep_bench::vulkan::Context;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn draws_match_lavapipe() {
    if std::process::Command::new("glslangValidator")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: glslangValidator is not installed (apt-get install glslang-tools)");
        return;
    }
    let ctx = match Context::new("llvmpipe") {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let cases = [
        repo().join("examples/draw/triangle"),
        repo().join("examples/draw/rings"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/draws/perspective"),
    ];
    for case in cases {
        let yaml = case.with_extension("yaml");
        let hlsl = case.with_extension("hlsl");
        let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(&yaml).unwrap())
            .unwrap_or_else(|e| panic!("{}:{e}", yaml.display()));
        let c = draws::compare(&ctx, &hlsl, &pipeline, 1, 8, 0)
            .unwrap_or_else(|e| panic!("{}: {e}", hlsl.display()));
        assert!(
            c.differing == 0,
            "{}: {} channel values differ by more than 1/65535 (largest {}); first at {:?}",
            case.display(),
            c.differing,
            c.max_steps,
            c.first
        );
    }
}
