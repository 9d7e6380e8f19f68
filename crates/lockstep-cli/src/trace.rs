//! `lockstep trace`: records chosen waves of a dispatch or a draw and
//! writes them as an HTML page or as JSON.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use lockstep::exec::TraceRequest;
use lockstep::exec::trace::DEFAULT_MAX_STEPS;

use crate::{
    CompileArgs, DeviceArgs, EXIT_FAIL, EXIT_PASS, StageArgs, error, json_error, load_stages,
    report_draw_error, report_run_error, use_color,
};

#[derive(Args, Debug)]
pub(crate) struct TraceArgs {
    /// The pipeline file (offload-test-suite YAML).
    pipeline: PathBuf,
    /// The HLSL compute shader; for a graphics pipeline, the vertex shader.
    shader: PathBuf,
    #[command(flatten)]
    stages: StageArgs,
    #[command(flatten)]
    pub(crate) compile: CompileArgs,
    #[command(flatten)]
    device: DeviceArgs,
    /// The group whose waves are traced, as X,Y,Z (default: 0,0,0); give it
    /// again for more groups. Not for draws.
    #[arg(long = "group", value_name = "X,Y,Z")]
    groups: Vec<String>,
    /// Only this wave of each group (default: every wave). In a draw, the
    /// stage's wave N, numbered from 0 in the order they were shaded
    /// (default: 0).
    #[arg(long, value_name = "N")]
    wave: Option<u32>,
    /// Keep only steps A to B-1, numbered from 0 over the traced waves in
    /// the order they ran (A.. and ..B leave one end open).
    #[arg(long, value_name = "A..B")]
    steps: Option<String>,
    /// The most steps the trace keeps; past it, recording stops and the
    /// page says how to narrow the trace.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_STEPS)]
    step_limit: u64,
    /// A draw's stage to trace: pixel or vertex.
    #[arg(long, value_name = "STAGE", default_value = "pixel")]
    stage: String,
    /// Do not run `lockstep check` (every wave size and order) for the
    /// page's findings; only the traced run's are shown.
    #[arg(long)]
    no_check: bool,
    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    threads: usize,
    /// Take buffer NAME's initial contents from a binary file of
    /// little-endian elements instead of the pipeline's Data.
    #[arg(long = "buffer", value_name = "NAME=FILE")]
    buffers: Vec<String>,
    /// Loop iterations one wave may run before the run stops with an error.
    /// As for `check`, lower than run's default: a trace runs in checked
    /// mode.
    #[arg(long, value_name = "N", default_value_t = crate::CHECK_STEP_BUDGET)]
    max_steps: u64,
    /// Where to write the trace, `-` for standard output (default:
    /// trace.html; for --format json, standard output).
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<PathBuf>,
    /// Output format: html (a page that opens from disk) or json (the
    /// schema of docs/trace.md).
    #[arg(long, value_name = "FORMAT", default_value = "html")]
    pub(crate) format: String,
    /// Colour diagnostics: auto, always or never.
    #[arg(long, value_name = "WHEN", default_value = "auto")]
    color: String,
}

/// `A..B`, `A..` or `..B` as a range of step numbers.
fn parse_steps(text: &str) -> Result<std::ops::Range<u64>, String> {
    let bad = || format!("--steps: expected A..B such as 100..200, got '{text}'");
    let (a, b) = text.split_once("..").ok_or_else(bad)?;
    let a = match a.trim() {
        "" => 0,
        a => a.parse().map_err(|_| bad())?,
    };
    let b = match b.trim() {
        "" => u64::MAX,
        b => b.parse().map_err(|_| bad())?,
    };
    Ok(a..b)
}

fn parse_group(text: &str) -> Result<[u32; 3], String> {
    let parts: Vec<Option<u32>> = text.split(',').map(|p| p.trim().parse().ok()).collect();
    match parts.as_slice() {
        [Some(x), Some(y), Some(z)] => Ok([*x, *y, *z]),
        [Some(x)] => Ok([*x, 0, 0]),
        _ => Err(format!(
            "--group: expected X,Y,Z such as 1,0,0, got '{text}'"
        )),
    }
}

impl TraceArgs {
    fn options(&self) -> Result<lockstep::TraceOptions, String> {
        if !matches!(self.format.as_str(), "html" | "json") {
            return Err(format!(
                "--format: expected html or json, got '{}'",
                self.format
            ));
        }
        let run = self.device.run_options(self.threads, self.max_steps)?;
        let draw = self.stages.pixel.is_some();
        let stage = match self.stage.as_str() {
            "pixel" => lockstep::ir::Stage::Pixel,
            "vertex" => lockstep::ir::Stage::Vertex,
            other => return Err(format!("--stage: expected pixel or vertex, got '{other}'")),
        };
        if !draw && self.stage != "pixel" {
            return Err("--stage is for a draw (PIPELINE VS.hlsl PS.hlsl)".into());
        }
        let mut groups = self
            .groups
            .iter()
            .map(|g| parse_group(g))
            .collect::<Result<Vec<_>, _>>()?;
        let mut wave = self.wave;
        if draw {
            if !groups.is_empty() {
                return Err(
                    "--group is for a dispatch: a draw's waves are chosen with --wave N".into(),
                );
            }
            groups = vec![[wave.take().unwrap_or(0), 0, 0]];
        } else if groups.is_empty() {
            groups.push([0; 3]);
        }
        if self.step_limit == 0 {
            return Err("--step-limit: at least 1".into());
        }
        let steps = match &self.steps {
            Some(s) => parse_steps(s)?,
            None => 0..u64::MAX,
        };
        Ok(lockstep::TraceOptions {
            run,
            request: TraceRequest {
                groups,
                wave,
                steps,
                max_steps: self.step_limit,
                ..TraceRequest::default()
            },
            check: !self.no_check,
            stage,
        })
    }
}

/// `lockstep trace`.
pub(crate) fn trace(args: &TraceArgs) -> u8 {
    let color = use_color(&args.color);
    let opts = match args.options() {
        Ok(o) => o,
        Err(e) => return error(e),
    };
    let (mut pipeline, shaders) = match load_stages(
        &args.pipeline,
        &args.shader,
        &args.stages,
        &args.compile,
        color,
    ) {
        Ok(job) => job,
        Err(code) => return code,
    };
    if let Err(code) = crate::load_buffers(&args.buffers, &mut pipeline) {
        return code;
    }
    let doc = match shaders.as_slice() {
        [vs, ps] => match lockstep::trace_draw(vs, ps, &pipeline, &opts) {
            Ok(doc) => doc,
            Err(e) => {
                json_error(&args.compile, &e.to_string());
                return report_draw_error(&shaders, e, color);
            }
        },
        _ => match lockstep::trace(&shaders[0], &pipeline, &opts) {
            Ok(doc) => doc,
            Err(e) => {
                json_error(&args.compile, &e.message);
                return report_run_error(&shaders[0], e, color);
            }
        },
    };
    if doc.steps.is_empty() {
        return error(format!(
            "the trace kept no step: the traced waves ran {} steps{}",
            doc.total_steps,
            if args.steps.is_some() {
                "; --steps starts past them"
            } else {
                ""
            }
        ));
    }
    let json = args.format == "json";
    let write = |out: &mut dyn Write| -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(out);
        if json {
            doc.write_json(&mut out)?;
        } else {
            doc.write_html(&mut out)?;
        }
        out.flush()
    };
    // `-o -`, or JSON with no -o: standard output.
    let to_stdout = match &args.output {
        Some(path) => path.as_os_str() == "-",
        None => json,
    };
    let written = match &args.output {
        _ if to_stdout => {
            write(&mut std::io::stdout().lock()).map(|_| "standard output".to_string())
        }
        path => {
            let path = path.clone().unwrap_or_else(|| PathBuf::from("trace.html"));
            std::fs::File::create(&path)
                .and_then(|mut f| write(&mut f))
                .map(|_| path.display().to_string())
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        }
    };
    let to = match written {
        Ok(to) => to,
        Err(e) => return error(e),
    };
    if let Some(note) = &doc.truncated {
        eprintln!("warning: {note}");
    }
    if let Some(stopped) = &doc.stopped {
        eprintln!("error: {stopped}; the trace shows the steps before it");
    }
    if !to_stdout {
        eprintln!(
            "wrote {to}: {} steps of {} wave{}, {} finding{}",
            doc.steps.len(),
            doc.waves.len(),
            if doc.waves.len() == 1 { "" } else { "s" },
            doc.findings.len(),
            if doc.findings.len() == 1 { "" } else { "s" },
        );
    }
    if doc.stopped.is_some() {
        return EXIT_FAIL;
    }
    EXIT_PASS
}
