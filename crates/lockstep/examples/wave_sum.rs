//! Compiles a shader, runs it on a pipeline given as text, and checks what
//! every lane wrote: the library without the command line.
//!
//! `cargo run -p lockstep --example wave_sum`

use lockstep::{CompileOptions, MemoryLoader, RunOptions};

const SHADER: &str = r#"
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Out[id.x] = WaveActiveSum(id.x);
}
"#;

const PIPELINE: &str = r#"
---
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: Out
    Format: UInt32
    FillSize: 32
DescriptorSets:
  - Resources:
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding:
        Register: 0
        Space: 0
...
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let shader = lockstep::compile(
        "wave_sum.hlsl",
        SHADER,
        &CompileOptions::default(),
        &MemoryLoader::default(),
    )?;
    let pipeline = lockstep::pipeline::parse(PIPELINE)?;
    for wave_size in [4, 8] {
        let options = RunOptions {
            wave_size,
            ..RunOptions::default()
        };
        let run = lockstep::run(&shader, &pipeline, &options)?;
        let sums: Vec<u32> = run.contents[0]
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        // Lanes 0..3 and 4..7 are two waves of 4, or one wave of 8.
        let expected = if wave_size == 4 {
            [6, 6, 6, 6, 22, 22, 22, 22]
        } else {
            [28; 8]
        };
        assert_eq!(sums, expected);
        println!("wave size {wave_size}: {sums:?}");
    }
    Ok(())
}
