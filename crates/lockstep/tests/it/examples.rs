//! Every bundled example passes its own Results at every wave size.

use std::path::Path;

use lockstep::{CompileOptions, RunOptions};

use crate::harness::WAVE_SIZES;

struct FsLoader;

impl lockstep::syntax::preprocess::SourceLoader for FsLoader {
    fn load(&self, path: &str) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

fn examples_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

#[test]
fn every_example_passes_at_every_wave_size() {
    let mut count = 0;
    let mut entries: Vec<_> = std::fs::read_dir(examples_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for hlsl in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "hlsl"))
    {
        let yaml = hlsl.with_extension("yaml");
        let source = std::fs::read_to_string(hlsl).unwrap();
        let pipeline = lockstep::pipeline::parse(&std::fs::read_to_string(&yaml).unwrap()).unwrap();
        let name = hlsl.display().to_string();
        let opts = CompileOptions {
            entry: pipeline.entry.clone().unwrap_or_else(|| "main".into()),
            ..CompileOptions::default()
        };
        let shader = lockstep::compile(&name, &source, &opts, &FsLoader)
            .unwrap_or_else(|e| panic!("{}", e.render(false)));
        assert!(!pipeline.results.is_empty(), "{name} has no Results");
        // Every wave size the shader's [WaveSize] allows, each on a device
        // that supports only that size.
        let range = shader.module.entry.as_ref().and_then(|e| e.wave_size);
        let allowed = WAVE_SIZES
            .into_iter()
            .filter(|w| range.is_none_or(|r| (r.min..=r.max).contains(w)));
        for w in allowed {
            let opts = RunOptions {
                wave_size: w,
                wave_sizes: (w, w),
                ..RunOptions::default()
            };
            let out =
                lockstep::run(&shader, &pipeline, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(out.wave_size.size, w);
            for o in &out.outcomes {
                assert!(o.passed, "{name} at wave size {w}:\n{}", o.render());
            }
        }
        count += 1;
    }
    assert_eq!(count, 9, "expected the nine bundled examples");
}
