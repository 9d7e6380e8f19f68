//! The trace document's parts, as `--format json` writes them, and how a
//! recording becomes one.

use std::collections::HashMap;

use lockstep_exec::trace::{OpRecord, Trace, result_type};
use lockstep_exec::{Span, TraceRequest};
use lockstep_ir::ScalarType;
use lockstep_wave::Mask;
use serde::Serialize;
use serde_json::Value;

use super::TraceDocument;
use crate::Shader;
use crate::check::{CheckReport, ReportedFinding};

/// A source file.
#[derive(Clone, Debug, Serialize)]
pub struct SourceFileJson {
    /// Its name as the shader was compiled.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// A statement steps ran.
#[derive(Clone, Debug, Serialize)]
pub struct StatementJson {
    /// Index into `files`.
    pub file: u32,
    /// The first line, from 1.
    pub line: u32,
    /// The first column, from 1.
    pub column: u32,
    /// The last line.
    pub end_line: u32,
    /// `file:line:col` as diagnostics spell it (after `#line`).
    pub location: String,
}

/// A scalar component of a variable.
#[derive(Clone, Debug, Serialize)]
pub struct VariableJson {
    /// `v`, `v.x`, `s.count`, `a[2]`.
    pub name: String,
    /// The function it belongs to; empty for `static` globals.
    pub function: String,
    /// Its HLSL scalar type.
    #[serde(rename = "type")]
    pub ty: &'static str,
}

/// A traced wave.
#[derive(Clone, Debug, Serialize)]
pub struct WaveJson {
    /// Its group, x, y, z (for a draw's stages: the wave's number, 0, 0).
    pub group: [u32; 3],
    /// Its index in the group.
    pub index: u32,
    /// The lanes that exist, as a hexadecimal mask (bit i: lane i).
    pub lanes: Hex,
    /// Pixel waves: each lane's pixel as `[x, y, covered]` (`covered` 0 for
    /// a helper lane), `null` for a lane without a quad.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pixels: Option<Vec<Option<[u32; 3]>>>,
}

/// One statement run by one wave.
#[derive(Clone, Debug, Serialize)]
pub struct StepJson {
    /// Index into `waves`.
    pub wave: u32,
    /// Index into `statements`.
    pub statement: u32,
    /// The active lanes when the step began, as a hexadecimal mask.
    pub active: Hex,
    /// The helper lanes, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub helpers: Option<Hex>,
    /// The variable components the step wrote.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub writes: Vec<WriteJson>,
    /// The wave and quad operations it ran.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ops: Vec<OpJson>,
}

/// The values a step gave one variable component.
#[derive(Clone, Debug, Serialize)]
pub struct WriteJson {
    /// Index into `variables`.
    pub variable: u32,
    /// The lanes recorded, as a hexadecimal mask.
    pub lanes: Hex,
    /// One value for every lane of `lanes`; `{"first": a, "step": d}` when
    /// the k-th lane of `lanes` (ascending) has the integer a + k·d; or an
    /// array of one value per lane, ascending.
    pub values: LaneValues,
    /// The lanes of `lanes` whose value is undefined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undefined: Option<Hex>,
}

/// A wave or quad operation.
#[derive(Clone, Debug, Serialize)]
pub struct OpJson {
    /// The intrinsic's name.
    pub op: &'static str,
    /// The operand's type.
    #[serde(rename = "type")]
    pub ty: &'static str,
    /// The lanes that ran it, as a hexadecimal mask.
    pub active: Hex,
    /// The lanes whose operand it read.
    pub sources: Hex,
    /// The operand on each lane of `sources | active`, ascending.
    pub inputs: Vec<Value>,
    /// The result on each lane of `active`, ascending (`uint4` results as
    /// arrays of four).
    pub outputs: Vec<Value>,
}

/// A finding, linked to the steps at its line.
#[derive(Clone, Debug, Serialize)]
pub struct FindingJson {
    /// `run` for the traced run's, `check` for the report of `lockstep
    /// check` over every wave size and order.
    pub from: &'static str,
    /// The kind: `out-of-bounds`, `portability`, `order-dependence`, …
    pub kind: String,
    /// What went wrong.
    pub message: String,
    /// `file:line:col`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The steps of the statements at its line(s).
    pub steps: Vec<u32>,
}

/// A draw's render target.
#[derive(Clone, Debug, Serialize)]
pub struct TargetJson {
    /// The buffer's name.
    pub name: String,
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
}

/// A lane mask, written as a hexadecimal string (bit i: lane i).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hex(pub Mask);

impl Serialize for Hex {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{:x}", self.0))
    }
}

/// Lanes' values of one type, kept as bits and written as
/// [`WriteJson::values`] says.
#[derive(Clone, Debug)]
pub struct LaneValues {
    ty: ScalarType,
    bits: Vec<u64>,
}

impl Serialize for LaneValues {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        if let Some(&b) = self
            .bits
            .first()
            .filter(|_| self.bits.windows(2).all(|w| w[0] == w[1]))
        {
            return value(b, self.ty).serialize(s);
        }
        if let Some((first, step)) = affine(&self.bits, self.ty) {
            return serde_json::json!({ "first": first, "step": step }).serialize(s);
        }
        let mut seq = s.serialize_seq(Some(self.bits.len()))?;
        for &b in &self.bits {
            seq.serialize_element(&value(b, self.ty))?;
        }
        seq.end()
    }
}

/// A lane's value as JSON: booleans, integers (as strings past 2^53) and
/// floats (NaN and infinities as strings).
pub(crate) fn value(bits: u64, ty: ScalarType) -> Value {
    const EXACT: u64 = 1 << 53;
    let float = |f: f64| {
        if f.is_finite() {
            serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
        } else {
            Value::String(f.to_string())
        }
    };
    let int = |i: i64| {
        if i.unsigned_abs() <= EXACT {
            Value::from(i)
        } else {
            Value::String(i.to_string())
        }
    };
    match ty {
        ScalarType::Bool => Value::Bool(bits != 0),
        ScalarType::Int16 => Value::from(bits as u16 as i16),
        ScalarType::UInt16 => Value::from(bits as u16),
        ScalarType::Int32 => Value::from(bits as u32 as i32),
        ScalarType::UInt32 => Value::from(bits as u32),
        ScalarType::Int64 => int(bits as i64),
        ScalarType::UInt64 if bits <= EXACT => Value::from(bits),
        ScalarType::UInt64 => Value::String(bits.to_string()),
        // The shortest decimal that reads back as the same half or float.
        ScalarType::Float16 => float(shortest(half::f16::from_bits(bits as u16).to_f32())),
        ScalarType::Float32 => float(shortest(f32::from_bits(bits as u32))),
        ScalarType::Float64 => float(f64::from_bits(bits)),
    }
}

/// `f` as the double nearest its shortest decimal spelling, so that JSON
/// prints `0.1` rather than `0.10000000149011612`.
fn shortest(f: f32) -> f64 {
    f.to_string().parse().unwrap_or(f64::from(f))
}

/// `(a, d)` when three or more integers of type `ty` are a + k·d, with
/// every value exact in JSON.
fn affine(bits: &[u64], ty: ScalarType) -> Option<(i64, i64)> {
    if bits.len() < 3 || !ty.is_integer() {
        return None;
    }
    let int = |b: u64| value(b, ty).as_i64();
    let (a, d) = (int(bits[0])?, int(bits[1])?.checked_sub(int(bits[0])?)?);
    let fits = bits
        .iter()
        .enumerate()
        .all(|(k, &b)| (k as i64).checked_mul(d).and_then(|kd| kd.checked_add(a)) == int(b));
    fits.then_some((a, d))
}

fn op_json(trace: &Trace, op: &OpRecord) -> OpJson {
    let out_ty = result_type(op.op, op.ty);
    let outputs = trace
        .op_outputs(op)
        .into_iter()
        .map(|(_, v)| match v {
            [one] => value(*one, out_ty),
            many => Value::Array(many.iter().map(|&b| value(b, out_ty)).collect()),
        })
        .collect();
    OpJson {
        op: lockstep_ir::print::wave_name(op.op),
        ty: op.ty.name(),
        active: Hex(op.active),
        sources: Hex(op.sources),
        inputs: trace
            .op_inputs(op)
            .into_iter()
            .map(|(_, b)| value(b, op.ty))
            .collect(),
        outputs,
    }
}

/// The steps of a recording, made into [`StepJson`] one at a time as they
/// are read or written (a million steps are not all held as JSON).
#[derive(Clone, Debug)]
pub struct Steps(Trace);

impl Steps {
    /// The number of steps.
    pub fn len(&self) -> usize {
        self.0.steps.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.steps.is_empty()
    }

    /// Step `i`.
    pub fn get(&self, i: usize) -> Option<StepJson> {
        self.0.steps.get(i).map(|s| step_json(&self.0, s))
    }

    /// Every step, in the order they ran.
    pub fn iter(&self) -> impl Iterator<Item = StepJson> + '_ {
        self.0.steps.iter().map(|s| step_json(&self.0, s))
    }
}

impl Serialize for Steps {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

fn step_json(trace: &Trace, s: &lockstep_exec::trace::Step) -> StepJson {
    StepJson {
        wave: s.wave,
        statement: s.statement,
        active: Hex(s.active),
        helpers: (s.helpers != 0).then_some(Hex(s.helpers)),
        writes: trace
            .writes(s)
            .iter()
            .map(|w| WriteJson {
                variable: w.variable,
                lanes: Hex(w.lanes),
                values: LaneValues {
                    ty: trace.variables[w.variable as usize].ty,
                    bits: trace.write_values(w).into_iter().map(|(_, b)| b).collect(),
                },
                undefined: (w.undefined != 0).then_some(Hex(w.undefined)),
            })
            .collect(),
        ops: trace.ops(s).iter().map(|op| op_json(trace, op)).collect(),
    }
}

/// Builds the document of `trace`, recorded from `shader`.
pub(super) fn document(
    shader: &Shader,
    stage: &'static str,
    trace: Trace,
    run: &CheckReport,
    sweep: Option<&CheckReport>,
    target: Option<super::TargetJson>,
    request: &TraceRequest,
) -> TraceDocument {
    let map = &shader.source_map;
    let span =
        |s: &Span| lockstep_syntax::Span::new(lockstep_syntax::FileId(s.file), s.start, s.end);
    // The files statements are in, the shader's first.
    let mut file_index: HashMap<u32, u32> = HashMap::new();
    let mut files = Vec::new();
    let in_map = |s: &Span| (s.file as usize) < map.files().len();
    for id in std::iter::once(0).chain(
        trace
            .statements
            .iter()
            .filter(|s| in_map(s))
            .map(|s| s.file),
    ) {
        if (id as usize) < map.files().len() && !file_index.contains_key(&id) {
            file_index.insert(id, files.len() as u32);
            let f = &map.files()[id as usize];
            files.push(SourceFileJson {
                name: f.name.clone(),
                text: f.text.clone(),
            });
        }
    }
    let statements: Vec<StatementJson> = trace
        .statements
        .iter()
        .map(|s| {
            if !in_map(s) {
                return StatementJson {
                    file: 0,
                    line: 0,
                    column: 0,
                    end_line: 0,
                    location: String::new(),
                };
            }
            let f = &map.files()[s.file as usize];
            let (line, column) = f.line_col(s.start);
            let (end_line, _) = f.line_col(s.end.saturating_sub(1).max(s.start));
            StatementJson {
                file: file_index[&s.file],
                line,
                column,
                end_line,
                location: map.location(span(s)),
            }
        })
        .collect();
    let variables = trace
        .variables
        .iter()
        .map(|v| VariableJson {
            name: v.name.clone(),
            function: v.function.clone(),
            ty: v.ty.name(),
        })
        .collect();
    let pixels: HashMap<u32, &Vec<Option<[u32; 3]>>> =
        trace.pixels.iter().map(|(w, p)| (*w, p)).collect();
    let waves = trace
        .waves
        .iter()
        .map(|w| WaveJson {
            group: w.group,
            index: w.index,
            lanes: Hex(w.lanes),
            pixels: pixels
                .get(&w.group[0])
                .map(|p| (*p).clone())
                .filter(|_| stage == "pixel"),
        })
        .collect();
    let step_statements: Vec<u32> = trace.steps.iter().map(|s| s.statement).collect();
    let findings = findings(&statements, &step_statements, run, sweep);
    let truncated = trace.truncated.then(|| {
        if trace.values_full {
            format!(
                "the trace stopped at {} steps of the {} the traced waves ran, when it held {} lane values (about 50 MB of page where they follow no pattern); narrow it with --steps A..B, --wave N, --group X,Y,Z or a smaller --wave-size",
                trace.steps.len(),
                trace.total_steps,
                request.max_values
            )
        } else {
            format!(
                "the trace stopped at {} steps (--step-limit) of the {} the traced waves ran; narrow it with --steps A..B, --wave N or --group X,Y,Z, or raise --step-limit",
                request.max_steps, trace.total_steps
            )
        }
    });
    TraceDocument {
        format: "lockstep-trace",
        version: 1,
        stage,
        wave_size: trace.wave_size,
        entry: shader
            .module
            .entry
            .as_ref()
            // A vertex or pixel stage's wrapper is `ENTRY.stage`.
            .map(|e| {
                let name = &shader.module.function(e.function).name;
                name.strip_suffix(".stage").unwrap_or(name).to_string()
            })
            .unwrap_or_default(),
        files,
        statements,
        variables,
        waves,
        findings,
        target,
        total_steps: trace.total_steps,
        truncated,
        stopped: None,
        steps: Steps(trace),
    }
}

/// The run's findings and the sweep's report, each with the steps of the
/// statements at its locations.
fn findings(
    statements: &[StatementJson],
    steps: &[u32],
    run: &CheckReport,
    sweep: Option<&CheckReport>,
) -> Vec<FindingJson> {
    // `file:line` of each statement, from its `file:line:col`.
    let line_of = |location: &str| -> String {
        location
            .rsplit_once(':')
            .map_or(location.to_string(), |(head, _)| head.to_string())
    };
    let mut by_line: HashMap<String, Vec<u32>> = HashMap::new();
    for (i, &s) in steps.iter().enumerate() {
        let at = &statements[s as usize].location;
        if !at.is_empty() {
            by_line.entry(line_of(at)).or_default().push(i as u32);
        }
    }
    let steps_at = |locations: &[&String]| -> Vec<u32> {
        let mut all: Vec<u32> = locations
            .iter()
            .flat_map(|l| by_line.get(&line_of(l)).cloned().unwrap_or_default())
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    };
    let finding = |from: &'static str, f: &ReportedFinding| FindingJson {
        from,
        kind: f.kind.to_string(),
        message: f.message.clone(),
        location: f.location.clone(),
        steps: steps_at(&f.location.iter().collect::<Vec<_>>()),
    };
    let mut out: Vec<FindingJson> = run.findings.iter().map(|f| finding("run", f)).collect();
    let Some(sweep) = sweep else {
        return out;
    };
    for f in &sweep.findings {
        if !run
            .findings
            .iter()
            .any(|r| r.kind == f.kind && r.location == f.location)
        {
            out.push(finding("check", f));
        }
    }
    for p in &sweep.portability {
        let sizes: Vec<String> = p
            .agreeing
            .iter()
            .map(|g| {
                let g: Vec<String> = g.iter().map(u32::to_string).collect();
                g.join(", ")
            })
            .collect();
        out.push(FindingJson {
            from: "check",
            kind: "portability".into(),
            message: format!(
                "{} differs between wave sizes ({}): {} elements",
                p.buffer,
                sizes.join(" | "),
                p.differing_elements
            ),
            location: p.written_at.first().cloned(),
            steps: steps_at(&p.written_at.iter().collect::<Vec<_>>()),
        });
    }
    // One finding per buffer and variation, with the wave sizes it shows
    // at; it points at the atomics whose order shows, else at the sources.
    let mut orders: Vec<(&crate::OrderIssue, Vec<u32>)> = Vec::new();
    for o in &sweep.order_dependence {
        match orders
            .iter_mut()
            .find(|(p, _)| p.buffer == o.buffer && p.variation == o.variation)
        {
            Some((_, sizes)) => sizes.push(o.wave_size),
            None => orders.push((o, vec![o.wave_size])),
        }
    }
    for (o, sizes) in orders {
        let sizes: Vec<String> = sizes.iter().map(u32::to_string).collect();
        let places: Vec<&String> = o.atomics.iter().chain(&o.sources).collect();
        out.push(FindingJson {
            from: "check",
            kind: "order-dependence".into(),
            message: format!(
                "{} changes when {} (wave sizes {}): {} elements at wave size {}",
                o.buffer,
                o.variation,
                sizes.join(", "),
                o.differing_elements,
                o.wave_size
            ),
            location: places.first().map(|l| (*l).clone()),
            steps: steps_at(&places),
        });
    }
    for r in &sweep.results {
        let failing: Vec<String> = r.failing.iter().map(u32::to_string).collect();
        out.push(FindingJson {
            from: "check",
            kind: "result".into(),
            message: format!(
                "rule {} ({}) fails at wave sizes {}",
                r.name,
                r.rule,
                failing.join(", ")
            ),
            location: None,
            steps: Vec::new(),
        });
    }
    out
}
