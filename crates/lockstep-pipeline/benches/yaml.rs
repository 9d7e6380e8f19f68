//! Pipeline YAML throughput: parsing a large `Data` list into bytes, and
//! writing it back as offloader prints it.
//!
//! `cargo bench -p lockstep-pipeline --bench yaml`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use lockstep_pipeline::{Style, parse, render_buffers};

/// A pipeline whose one buffer holds `count` Float32 values spelled as
/// printf's `%g` spells them, sixteen to a line.
fn pipeline_text(count: usize) -> String {
    let mut text = String::from("---\nBuffers:\n  - Name: In\n    Format: Float32\n    Data: [ ");
    let mut state = 12345u32;
    for i in 0..count {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let value = f64::from(state >> 8) / 16384.0;
        if i > 0 {
            text.push_str(if i % 16 == 0 { ",\n            " } else { ", " });
        }
        text.push_str(&format!("{value:.6}"));
    }
    text.push_str(" ]\n...\n");
    text
}

fn yaml(c: &mut Criterion) {
    let text = pipeline_text(1 << 20);
    let mut group = c.benchmark_group("yaml");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse/4MiB_float32", |b| {
        b.iter(|| {
            let p = parse(&text).expect("parses");
            assert_eq!(p.buffers[0].data.len(), 4 << 20);
            p
        })
    });
    let pipeline = parse(&text).expect("parses");
    let rendered = render_buffers::<Vec<u8>>(&pipeline, &[], Style::Offloader);
    group.throughput(Throughput::Bytes(rendered.len() as u64));
    group.bench_function("render/4MiB_float32", |b| {
        b.iter(|| {
            let out = render_buffers::<Vec<u8>>(&pipeline, &[], Style::Offloader);
            assert_eq!(out.len(), rendered.len());
            out
        })
    });
    group.finish();
}

criterion_group!(benches, yaml);
criterion_main!(benches);
