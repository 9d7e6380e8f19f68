//! `lockstep trace`: runs a dispatch or a draw in checked mode, records
//! the chosen waves (`lockstep_exec::trace`), and turns the recording into
//! a document: JSON with the schema of docs/trace.md, or a self-contained
//! HTML page ([`page`]).

mod json;
pub mod page;

use lockstep_exec::{DispatchConfig, Program, TraceRequest, TraceSink, Workers};
use lockstep_ir::Stage;
use lockstep_pipeline::Pipeline;
use serde::Serialize;

use crate::bind::{Bindings, choose_wave_size};
use crate::check::{CheckReport, reported};
use crate::draw::{DrawError, draw_with};
use crate::{RunError, RunOptions, Shader};

pub use json::{
    FindingJson, Hex, LaneValues, OpJson, SourceFileJson, StatementJson, StepJson, Steps,
    TargetJson, VariableJson, WaveJson, WriteJson,
};

/// What to trace, and how.
#[derive(Clone, Debug)]
pub struct TraceOptions {
    /// The device and limits of the run.
    pub run: RunOptions,
    /// The waves and steps recorded.
    pub request: TraceRequest,
    /// Also run `lockstep check` (every wave size and order) and show its
    /// report beside the trace.
    pub check: bool,
    /// A draw's stage to trace: pixel (the default) or vertex.
    pub stage: Stage,
}

impl Default for TraceOptions {
    fn default() -> TraceOptions {
        TraceOptions {
            run: RunOptions::default(),
            request: TraceRequest::default(),
            check: true,
            stage: Stage::Pixel,
        }
    }
}

/// A trace as `--format json` writes it (docs/trace.md is its schema).
#[derive(Clone, Debug, Serialize)]
pub struct TraceDocument {
    /// Always `lockstep-trace`.
    pub format: &'static str,
    /// The schema's version.
    pub version: u32,
    /// The traced stage: compute, vertex or pixel.
    pub stage: &'static str,
    /// Lanes per wave.
    pub wave_size: u32,
    /// The entry point's name.
    pub entry: String,
    /// The source files statements are in (the shader first).
    pub files: Vec<SourceFileJson>,
    /// The statements steps ran.
    pub statements: Vec<StatementJson>,
    /// The variables' scalar components writes name.
    pub variables: Vec<VariableJson>,
    /// The traced waves.
    pub waves: Vec<WaveJson>,
    /// The steps, in the order they ran.
    pub steps: Steps,
    /// Undefined behaviour the traced run met, and `check`'s report.
    pub findings: Vec<FindingJson>,
    /// The render target of a draw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<TargetJson>,
    /// Steps the traced waves ran, kept or not.
    pub total_steps: u64,
    /// Why the trace stopped before the waves did, and how to narrow it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
    /// The error the traced run stopped with (a loop past the step
    /// budget, say); the steps before it are kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

impl TraceDocument {
    /// The document as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Writes the document as JSON to `out`.
    pub fn write_json(&self, out: impl std::io::Write) -> std::io::Result<()> {
        serde_json::to_writer(out, self).map_err(std::io::Error::other)
    }

    /// The document as a self-contained HTML page.
    pub fn to_html(&self) -> String {
        page::render(self)
    }

    /// Writes the document as a self-contained HTML page to `out`.
    pub fn write_html(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        page::write(self, out)
    }
}

/// Traces the dispatch `pipeline` describes.
pub fn trace(
    shader: &Shader,
    pipeline: &Pipeline,
    opts: &TraceOptions,
) -> Result<TraceDocument, RunError> {
    let bindings = Bindings::new(shader, pipeline)?;
    let choice = choose_wave_size(shader, &opts.run.device())?;
    let w = choice.size;
    validate_request(&opts.request, pipeline.dispatch, shader, w)?;
    let checked = Program::compile_checked(&shader.module)?;
    let sink = TraceSink::new(&checked, opts.request.clone())?;
    // Groups traced together run on one thread: their steps then come in
    // the same order every run.
    let threads = if opts.request.groups.len() > 1 {
        1
    } else {
        opts.run.threads
    };
    let workers = Workers::new(threads)?;
    let memories = bindings.memories(shader, pipeline, &workers);
    let config = DispatchConfig {
        wave_size: w,
        threads,
        step_budget: opts.run.step_budget,
        group_count: pipeline.dispatch,
        ..DispatchConfig::default()
    };
    let ran = lockstep_exec::dispatch_traced_on(
        &workers,
        &checked,
        &bindings.bound(&memories),
        &config,
        &sink,
    );
    drop(memories);
    // A run that stops (a loop past the step budget) keeps the steps
    // before it: they show how it got there.
    let (findings, stopped) = match ran {
        Ok(findings) => (findings, None),
        Err(e) => (Vec::new(), Some(RunError::from(e))),
    };
    let mut report = CheckReport {
        findings: findings.into_iter().map(|f| reported(shader, f)).collect(),
        ..CheckReport::default()
    };
    report
        .findings
        .extend(stopped.iter().map(|e| error_finding(shader, e)));
    let sweep = opts.check.then(|| {
        crate::check(shader, pipeline, &opts.run, &mut |_, _| {}).unwrap_or_else(|e| CheckReport {
            findings: vec![error_finding(shader, &e)],
            ..CheckReport::default()
        })
    });
    report.sort_findings();
    let mut doc = json::document(
        shader,
        "compute",
        sink.finish(),
        &report,
        sweep.as_ref(),
        None,
        &opts.request,
    );
    doc.stopped = stopped.map(|e| stopped_message(shader, &e));
    Ok(doc)
}

/// Traces the draw `pipeline` describes: `opts.stage`'s waves; wave `n`
/// is group `[n, 0, 0]` of the request.
pub fn trace_draw(
    vertex: &Shader,
    pixel: &Shader,
    pipeline: &Pipeline,
    opts: &TraceOptions,
) -> Result<TraceDocument, DrawError> {
    let checked = (
        Program::compile_checked(&vertex.module).map_err(RunError::from)?,
        Program::compile_checked(&pixel.module).map_err(RunError::from)?,
    );
    let (shader, program, name, stage) = match opts.stage {
        Stage::Vertex => (vertex, &checked.0, "vertex", Stage::Vertex),
        _ => (pixel, &checked.1, "pixel", Stage::Pixel),
    };
    let sink = TraceSink::new(program, opts.request.clone()).map_err(RunError::from)?;
    let ran = draw_with(
        vertex,
        pixel,
        pipeline,
        &opts.run,
        lockstep_raster::Packing::Dense,
        Some((&checked.0, &checked.1)),
        Some((stage, &sink)),
    );
    // The traced stage stopping keeps the steps before it; anything else
    // stopping leaves nothing to show.
    let (findings, stopped) = match ran {
        Ok((_, findings)) => (findings, None),
        Err(e) if e.stage == Some(stage) => (Vec::new(), Some(e.error)),
        Err(e) => return Err(e),
    };
    let mut report = CheckReport::default();
    for (s, f) in findings {
        if s == stage {
            report.findings.push(reported(shader, f));
        }
    }
    report
        .findings
        .extend(stopped.iter().map(|e| error_finding(shader, e)));
    report.sort_findings();
    let trace = sink.finish();
    if trace.waves.is_empty() {
        return Err(RunError::new(format!(
            "the draw has no {name} wave {}: its waves are numbered from 0 in the order they were shaded",
            opts.request.groups.first().map_or(0, |g| g[0])
        ))
        .into());
    }
    let sweep = opts.check.then(|| {
        crate::check_draw(vertex, pixel, pipeline, &opts.run, &mut |_, _| {}).unwrap_or_else(|e| {
            CheckReport {
                findings: vec![error_finding(shader, &e.error)],
                ..CheckReport::default()
            }
        })
    });
    let target = pipeline.graphics.as_ref().and_then(|g| {
        let rt = pipeline.buffer_index(&g.render_target)?;
        let props = pipeline.buffers[rt].output_props?;
        Some(TargetJson {
            width: props.width,
            height: props.height,
            name: g.render_target.clone(),
        })
    });
    let mut doc = json::document(
        shader,
        name,
        trace,
        &report,
        sweep.as_ref(),
        target,
        &opts.request,
    );
    doc.stopped = stopped.map(|e| stopped_message(shader, &e));
    Ok(doc)
}

/// A run's error as a finding, at its statement.
fn error_finding(shader: &Shader, e: &RunError) -> crate::ReportedFinding {
    let location = e.span.map(|s| {
        shader.source_map.location(lockstep_syntax::Span::new(
            lockstep_syntax::FileId(s.file),
            s.start,
            s.end,
        ))
    });
    crate::ReportedFinding {
        kind: "error",
        severity: crate::Severity::Error,
        message: e.message.clone(),
        location,
        called_from: None,
        calls: Vec::new(),
        wave_sizes: Vec::new(),
        wave_size: 0,
        group: [0; 3],
        wave: 0,
        lanes: Vec::new(),
        count: 1,
        finding: None,
    }
}

/// "the run stopped at FILE:LINE:COL: MESSAGE".
fn stopped_message(shader: &Shader, e: &RunError) -> String {
    match error_finding(shader, e).location {
        Some(at) => format!("the run stopped at {at}: {}", e.message),
        None => format!("the run stopped: {}", e.message),
    }
}

/// A clear error for groups or a wave the dispatch does not have.
fn validate_request(
    request: &TraceRequest,
    groups: [u32; 3],
    shader: &Shader,
    wave_size: u32,
) -> Result<(), RunError> {
    for g in &request.groups {
        if (0..3).any(|i| g[i] >= groups[i]) {
            return Err(RunError::new(format!(
                "--group {},{},{}: the dispatch has {} x {} x {} groups, numbered from 0",
                g[0], g[1], g[2], groups[0], groups[1], groups[2]
            )));
        }
    }
    let waves = shader.program.group.waves(wave_size);
    if let Some(w) = request.wave.filter(|&w| u64::from(w) >= waves) {
        return Err(RunError::new(format!(
            "--wave {w}: a group has {waves} wave{} at wave size {wave_size}, numbered from 0",
            if waves == 1 { "" } else { "s" }
        )));
    }
    if request.steps.is_empty() {
        return Err(RunError::new(format!(
            "--steps {}..{}: the range keeps no step",
            request.steps.start, request.steps.end
        )));
    }
    Ok(())
}
