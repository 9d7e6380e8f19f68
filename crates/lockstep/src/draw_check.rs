//! `lockstep check` of a draw: the draw at every wave size the device
//! supports and with every packing of quads into waves, in checked mode;
//! reports undefined wave behaviour in either stage, outputs that depend on
//! the wave size, and outputs that depend on the packing.

use lockstep_exec::Program;
use lockstep_ir::Stage;
use lockstep_pipeline::Pipeline;
use lockstep_raster::Packing;

use crate::bind::Bindings;
use crate::check::{
    CheckReport, ReportedFinding, merge_finding, order_issue, portability, reported,
    result_failures,
};
use crate::draw::{DrawError, draw_with};
use crate::{RunError, RunOptions, Shader};

/// Checks the draw `pipeline` describes with `vertex` and `pixel`: each
/// wave size of the device, each [`Packing`], one thread per draw.
/// `progress(done, total)` is called after each draw.
pub fn check_draw(
    vertex: &Shader,
    pixel: &Shader,
    pipeline: &Pipeline,
    opts: &RunOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<CheckReport, DrawError> {
    let device = opts.device();
    device.validate().map_err(RunError::from)?;
    let sizes: Vec<u32> = device.sizes().collect();
    let checked = (
        Program::compile_checked(&vertex.module).map_err(RunError::from)?,
        Program::compile_checked(&pixel.module).map_err(RunError::from)?,
    );
    let total = sizes.len() * Packing::ALL.len();
    let mut done = 0;
    let mut report = CheckReport {
        wave_sizes: sizes.clone(),
        ..CheckReport::default()
    };
    let mut baselines: Vec<Vec<Vec<u8>>> = Vec::new();
    let outputs = written_buffers(vertex, pixel, pipeline)?;
    for &w in &sizes {
        let run_opts = RunOptions {
            wave_size: w,
            wave_sizes: (w, w),
            threads: 1,
            ..opts.clone()
        };
        let mut dense: Option<Vec<Vec<u8>>> = None;
        for packing in Packing::ALL {
            let (out, findings) = draw_with(
                vertex,
                pixel,
                pipeline,
                &run_opts,
                packing,
                Some((&checked.0, &checked.1)),
                None,
            )
            .map_err(|mut e| {
                e.error = e
                    .error
                    .with_note(format!("at wave size {w}, quads packed {}", packing.name()));
                e
            })?;
            for (stage, f) in findings {
                merge_finding(
                    &mut report.findings,
                    stage_finding(vertex, pixel, stage, f),
                    w,
                );
            }
            let contents: Vec<Vec<u8>> = out.contents.iter().map(|c| c.to_vec()).collect();
            match &dense {
                None => dense = Some(contents),
                Some(base) => {
                    for &b in &outputs {
                        if base[b] != contents[b] {
                            report.order_dependence.push(order_issue(
                                pipeline,
                                b,
                                w,
                                &format!("quads packed {} instead of densely", packing.name()),
                                &base[b],
                                &contents[b],
                            ));
                        }
                    }
                }
            }
            done += 1;
            progress(done, total);
        }
        baselines.extend(dense);
    }
    let same = |_: usize, a: &[u8], b: &[u8]| a == b;
    for &b in &outputs {
        if let Some(issue) = portability(pipeline, b, &sizes, &baselines, &same) {
            report.portability.push(issue);
        }
    }
    report.results = result_failures(pipeline, &sizes, &baselines);
    report.sort_findings();
    Ok(report)
}

/// One draw in checked mode (`lockstep run --check`): its output, and
/// what each stage's checked run found.
pub fn draw_checked<'p>(
    vertex: &Shader,
    pixel: &Shader,
    pipeline: &'p Pipeline,
    opts: &RunOptions,
) -> Result<(crate::RunOutput<'p>, CheckReport), DrawError> {
    let checked = (
        Program::compile_checked(&vertex.module).map_err(RunError::from)?,
        Program::compile_checked(&pixel.module).map_err(RunError::from)?,
    );
    let (out, findings) = draw_with(
        vertex,
        pixel,
        pipeline,
        opts,
        Packing::Dense,
        Some((&checked.0, &checked.1)),
        None,
    )?;
    let w = out.wave_size.size;
    let mut report = CheckReport {
        wave_sizes: vec![w],
        ..CheckReport::default()
    };
    for (stage, f) in findings {
        merge_finding(
            &mut report.findings,
            stage_finding(vertex, pixel, stage, f),
            w,
        );
    }
    report.sort_findings();
    Ok((out, report))
}

/// The buffers a draw writes: the render target, and those bound to a
/// resource either shader can write.
fn written_buffers(
    vertex: &Shader,
    pixel: &Shader,
    pipeline: &Pipeline,
) -> Result<Vec<usize>, RunError> {
    let n = pipeline.buffers.len();
    let target = pipeline
        .graphics
        .as_ref()
        .and_then(|g| pipeline.buffer_index(&g.render_target));
    let vs = Bindings::new(vertex, pipeline)?.buffers_where(vertex, n, |r| r.kind.is_writable());
    let ps = Bindings::new(pixel, pipeline)?.buffers_where(pixel, n, |r| r.kind.is_writable());
    Ok((0..n)
        .filter(|&b| Some(b) == target || vs[b] || ps[b])
        .collect())
}

/// A finding of one stage; those of the vertex shader say so, and carry
/// their location in the message (the report renders against the pixel
/// shader's source).
fn stage_finding(
    vertex: &Shader,
    pixel: &Shader,
    stage: Stage,
    f: lockstep_exec::Finding,
) -> ReportedFinding {
    if stage == Stage::Pixel {
        return reported(pixel, f);
    }
    let mut r = reported(vertex, f);
    r.message = match &r.location {
        Some(at) => format!("in the vertex shader, at {at}: {}", r.message),
        None => format!("in the vertex shader: {}", r.message),
    };
    r.finding = None;
    r
}
