//! `compile/2000_lines`: how long `lockstep::compile` (preprocess, parse,
//! check, lower to IR and to wave bytecode) takes on a generated shader of
//! about 2,000 lines: structs, many functions, loops, `switch`, wave
//! intrinsics, all called from the entry point. `compile/2000_lines_native`
//! adds the machine code at wave size 32.
//!
//! ```sh
//! cargo bench -p lockstep --bench compile
//! ```

use std::fmt::Write;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lockstep::{CompileOptions, MemoryLoader};

/// One struct, two functions and their use in the entry point per unit.
fn unit(k: usize, out: &mut String) {
    write!(
        out,
        r#"
// Unit {k}.
struct Item{k}
{{
    uint key;
    float weight;
    float3 position;
    uint flags[4];
}};

float helper{k}(Item{k} item, float scale)
{{
    float acc = 0.0f;
    for (uint i = 0; i < 4; ++i)
    {{
        if ((item.flags[i] & 1u) != 0)
            acc += item.weight * scale + float(i);
        else
            acc -= dot(item.position, float3(1.0f, 2.0f, 3.0f)) * 0.5f;
    }}
    return max(acc, -{k}.0f);
}}

uint wave{k}(uint value, bool keep)
{{
    uint sum = WaveActiveSum(value);
    uint prefix = WavePrefixSum(value);
    uint count = WaveActiveCountBits(keep);
    uint first = WaveReadLaneFirst(value);
    uint result = sum ^ prefix ^ count ^ first;
    while (result > 1000u)
        result = result / 3u + {k}u;
    switch (result & 3u)
    {{
    case 0:
        result += 1u;
        break;
    case 1:
        result *= 3u;
        break;
    default:
        result ^= 0x55u;
        break;
    }}
    return result;
}}
"#
    )
    .unwrap();
}

fn call(k: usize, out: &mut String) {
    write!(
        out,
        r#"    {{
        Item{k} it;
        it.key = dtid.x + {k}u;
        it.weight = float(it.key) * 0.25f;
        it.position = float3(it.weight, 1.0f, -it.weight);
        for (uint j = 0; j < 4; ++j)
            it.flags[j] = (it.key >> j) & 1u;
        total += wave{k}(it.key, helper{k}(it, 1.5f) > 0.0f);
    }}
"#
    )
    .unwrap();
}

/// A shader of about `lines` lines.
fn generate(lines: usize) -> String {
    let mut units = 1;
    loop {
        let mut s = String::from(
            "// Generated for the compile-speed benchmark.\n\
             StructuredBuffer<uint> Input : register(t0);\n\
             RWStructuredBuffer<uint> Output : register(u0);\n",
        );
        for k in 0..units {
            unit(k, &mut s);
        }
        s.push_str(
            "\n[numthreads(64, 1, 1)]\nvoid main(uint3 dtid : SV_DispatchThreadID)\n{\n    uint total = Input[dtid.x];\n",
        );
        for k in 0..units {
            call(k, &mut s);
        }
        s.push_str("    Output[dtid.x] = total;\n}\n");
        if s.lines().count() >= lines {
            return s;
        }
        units += 1;
    }
}

fn compile(c: &mut Criterion) {
    let source = generate(2000);
    let lines = source.lines().count();
    let opts = CompileOptions::default();
    let loader = MemoryLoader::default();
    let mut group = c.benchmark_group("compile");
    group.throughput(Throughput::Elements(lines as u64));
    group.sample_size(20);
    group.warm_up_time(Duration::from_millis(500));
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("2000_lines", |b| {
        b.iter(|| {
            let shader = lockstep::compile("generated.hlsl", &source, &opts, &loader)
                .unwrap_or_else(|e| panic!("{}", e.render(false)));
            assert!(!shader.module.functions.is_empty());
        });
    });
    // The same, then its machine code at wave size 32 (made at the first
    // dispatch).
    group.bench_function("2000_lines_native", |b| {
        b.iter(|| {
            let shader = lockstep::compile("generated.hlsl", &source, &opts, &loader)
                .unwrap_or_else(|e| panic!("{}", e.render(false)));
            let report = shader.program.engine_report(32, lockstep::Engine::Native);
            assert!(report.native || report.reason.as_deref() == Some("the CPU lacks AVX2"));
        });
    });
    group.finish();
}

criterion_group!(benches, compile);
criterion_main!(benches);
