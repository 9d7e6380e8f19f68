//! `lockstep diff`: one dispatch on Lockstep's engine (checked, at the
//! device's wave size) and on a Vulkan device, compared buffer by buffer,
//! with the statements that wrote each differing element.

use std::time::Duration;

use lockstep_exec::{DispatchConfig, Program, Workers};
use lockstep_pipeline::Pipeline;
use serde::Serialize;

use crate::bind::Bindings;
use crate::check::{CheckReport, ReportedFinding, locations, reported, written_by};
use crate::{RunError, Shader, run_vulkan};

/// How to compare.
#[derive(Clone, Debug)]
pub struct DiffOptions {
    /// The wave size to ask the device for (default: its subgroup size).
    pub wave_size: Option<u32>,
    /// Floats this many units in the last place apart count as equal
    /// (0: bit for bit, any NaN equal to any NaN).
    pub ulps: u64,
    /// Floats at most this far apart count as equal too (for images, whose
    /// values near zero are many units in the last place apart for a tiny
    /// difference).
    pub tolerance: f64,
    /// The engine's worker threads; 0 means one per core.
    pub threads: usize,
    /// Loop iterations one wave may run in the engine.
    pub step_budget: u64,
}

impl Default for DiffOptions {
    fn default() -> DiffOptions {
        let run = crate::RunOptions::default();
        DiffOptions {
            wave_size: None,
            ulps: 0,
            tolerance: 0.0,
            threads: run.threads,
            step_budget: run.step_budget,
        }
    }
}

/// One element that differs.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceElement {
    /// The element's index in its buffer.
    pub index: usize,
    /// Its value from Lockstep's engine.
    pub engine: String,
    /// Its value from the device.
    pub device: String,
    /// The lane that wrote it in the engine's run: `group (x, y, z), wave
    /// w, lane l`.
    pub lane: Option<String>,
}

/// A buffer whose contents differ.
#[derive(Clone, Debug, Serialize)]
pub struct BufferDiff {
    /// The pipeline buffer's name.
    pub buffer: String,
    /// Elements in the buffer.
    pub elements: usize,
    /// How many differ.
    pub differing: usize,
    /// The first differing elements (at most [`SHOWN`]).
    pub first: Vec<DeviceElement>,
    /// `file:line:col` of the statements that wrote the differing elements
    /// in the engine's run.
    pub written_at: Vec<String>,
    /// Those statements' source lines.
    pub written_lines: Vec<String>,
    /// How many of the differing elements were written only by statements
    /// where the engine's checked run found undefined behaviour: values the
    /// specification leaves open.
    pub undefined: usize,
    /// How many of the other differing elements change in the engine too
    /// when its waves and groups take turns in another order (an append's
    /// slots): the device's order is its own.
    pub ordered: usize,
    /// How many of the other differing elements are zeros of opposite
    /// signs: Vulkan keeps the sign of zero only under
    /// `SignedZeroInfNanPreserve`, and `min`/`max` may return either.
    pub signed_zeros: usize,
}

/// Differing elements listed per buffer.
pub const SHOWN: usize = 8;

/// The comparison of one dispatch on the engine and on a device.
#[derive(Clone, Debug, Serialize)]
pub struct DiffReport {
    /// The device's name.
    pub device: String,
    /// The wave size both ran at.
    pub wave_size: u32,
    /// The buffers that differ.
    pub buffers: Vec<BufferDiff>,
    /// Undefined behaviour the engine's checked run met: results the
    /// specification leaves open, which a device may give otherwise.
    pub findings: Vec<ReportedFinding>,
    /// Where the device forms subgroups from other invocations than
    /// Lockstep's waves (wave `w` holds group indices `[w·W, (w+1)·W)`):
    /// the first invocation placed otherwise, as the report says it.
    pub layout: Option<String>,
    /// Output buffers compared.
    pub compared: usize,
    /// How long the dispatch took on the device's queue.
    #[serde(skip)]
    pub dispatch_time: Duration,
}

impl DiffReport {
    /// Whether any buffer differs.
    pub fn differs(&self) -> bool {
        !self.buffers.is_empty()
    }

    /// Differing elements that no undefined behaviour or order of groups
    /// explains.
    pub fn unexplained(&self) -> usize {
        self.buffers
            .iter()
            .map(|b| b.differing - b.undefined - b.ordered - b.signed_zeros)
            .sum()
    }

    /// The human-readable report.
    pub fn render(&self, shader: &Shader, color: bool) -> String {
        let mut out = String::new();
        for b in &self.buffers {
            out += &format!(
                "buffer {}: {} of {} elements differ between Lockstep and {}\n",
                b.buffer, b.differing, b.elements, self.device
            );
            if b.undefined > 0 {
                out += &format!(
                    "  {} of them written by statements with undefined behaviour (below): values the specification leaves open\n",
                    b.undefined
                );
            }
            if b.signed_zeros > 0 {
                out += &format!(
                    "  {} of them are zeros of opposite signs: the device's to choose (Vulkan keeps the sign of zero only under SignedZeroInfNanPreserve; min and max may return either)\n",
                    b.signed_zeros
                );
            }
            if b.ordered > 0 {
                out += &format!(
                    "  {} of them change in Lockstep too when its waves and groups take turns in another order: the device's order is its own\n",
                    b.ordered
                );
            }
            for e in &b.first {
                out += &format!("  [{}] Lockstep {}, device {}", e.index, e.engine, e.device);
                if let Some(lane) = &e.lane {
                    out += &format!(" (written by {lane})");
                }
                out.push('\n');
            }
            if b.differing > b.first.len() {
                out += &format!("  … and {} more\n", b.differing - b.first.len());
            }
            for (at, line) in b.written_at.iter().zip(&b.written_lines) {
                out += &format!("  written at {at}: {line}\n");
            }
        }
        if let Some(layout) = &self.layout {
            out += &format!("note: {layout}\n");
        }
        if !self.findings.is_empty() {
            out += "Lockstep's checked run met behaviour the specification leaves undefined; a device may resolve it otherwise:\n";
            let report = CheckReport {
                wave_sizes: vec![self.wave_size],
                findings: self.findings.clone(),
                ..CheckReport::default()
            };
            out += &report.render(shader, color);
        }
        out += &format!(
            "{}: {} output buffer{} compared at wave size {}, {}\n",
            self.device,
            self.compared,
            if self.compared == 1 { "" } else { "s" },
            self.wave_size,
            if self.differs() {
                format!("{} differ", self.buffers.len())
            } else {
                "all the same".to_string()
            }
        );
        out
    }
}

/// Runs `shader` on `device` and on Lockstep's engine at the wave size the
/// device ran, and compares every buffer a writable resource is bound to.
pub fn diff(
    shader: &Shader,
    pipeline: &Pipeline,
    device: &lockstep_vulkan::Device,
    opts: &DiffOptions,
) -> Result<DiffReport, RunError> {
    let vulkan = crate::VulkanOptions {
        wave_size: opts.wave_size,
        step_budget: opts.step_budget,
        runs: 1,
    };
    let on_device = run_vulkan(shader, pipeline, device, &vulkan)?;
    let w = on_device.output.wave_size.size;
    let bindings = Bindings::new(shader, pipeline)?;
    let checked = Program::compile_checked(&shader.module)?;
    let workers = Workers::new(opts.threads)?;
    let memories = bindings.memories(shader, pipeline, &workers);
    let config = DispatchConfig {
        wave_size: w,
        threads: opts.threads,
        step_budget: opts.step_budget,
        group_count: pipeline.dispatch,
        ..DispatchConfig::default()
    };
    let (findings, writers) =
        lockstep_exec::dispatch_checked_writers(&checked, &bindings.bound(&memories), &config)?;
    let engine: Vec<Vec<u8>> = (0..pipeline.buffers.len())
        .map(|b| bindings.buffer_bytes(&memories, b))
        .collect();
    let findings: Vec<ReportedFinding> =
        findings.into_iter().map(|f| reported(shader, f)).collect();
    let finding_lines: Vec<String> = findings
        .iter()
        .filter_map(|f| f.location.as_deref())
        .map(line_of)
        .collect();
    let outputs = bindings.buffers_where(shader, pipeline.buffers.len(), |r| r.kind.is_writable());
    // The engine's outputs with its waves and groups taking turns in two
    // shuffled orders, as `check` runs them.
    let mut shuffled = Vec::new();
    for seed in [1, 2] {
        let memories = bindings.memories(shader, pipeline, &workers);
        let config = DispatchConfig {
            schedule: lockstep_exec::Schedule::Shuffled(seed),
            ..config.clone()
        };
        // An order where a loop waits on another group past the budget
        // tells nothing here (`check` reports it).
        let run = lockstep_exec::dispatch_on(
            &workers,
            &shader.program,
            &bindings.bound(&memories),
            &config,
        );
        if run.is_err() {
            continue;
        }
        shuffled.push(
            (0..pipeline.buffers.len())
                .map(|b| bindings.buffer_bytes(&memories, b))
                .collect::<Vec<_>>(),
        );
    }
    let mut buffers = Vec::new();
    for (b, desc) in pipeline.buffers.iter().enumerate() {
        if !outputs[b] {
            continue;
        }
        let Some((mut d, differing)) =
            compare(desc, &engine[b], &on_device.output.contents[b], opts)
        else {
            continue;
        };
        // Elements another order changes in the engine as well.
        let size = desc.format.size().max(1);
        let moves = |i: usize| {
            let at = i * size..(i + 1) * size;
            shuffled
                .iter()
                .any(|run| run[b].get(at.clone()) != engine[b].get(at.clone()))
        };
        let slots = bindings.slots_of_buffer(pipeline, b);
        // An element is explained when every statement that wrote it is
        // one where the checked run found undefined behaviour.
        let undefined: Vec<bool> = differing
            .iter()
            .take(EXPLAINED_AT_MOST)
            .map(|&i| {
                let spans = written_by(&[&writers], &slots, &[i], size);
                let (at, _) = locations(shader, &spans);
                !at.is_empty() && at.iter().all(|l| finding_lines.contains(&line_of(l)))
            })
            .collect();
        d.undefined = undefined.iter().filter(|&&u| u).count();
        let zeros = |i: usize| {
            let at = i * size..(i + 1) * size;
            let value = |bytes: &[u8]| {
                bytes
                    .get(at.clone())
                    .and_then(|e| desc.format.float_value(desc.format.read_bits(e)))
            };
            matches!(
                (value(&engine[b]), value(&on_device.output.contents[b])),
                (Some(x), Some(y)) if x == 0.0 && y == 0.0
            )
        };
        for (&i, &u) in differing
            .iter()
            .zip(undefined.iter().chain(std::iter::repeat(&false)))
        {
            if u {
                continue;
            }
            if moves(i) {
                d.ordered += 1;
            } else if zeros(i) {
                d.signed_zeros += 1;
            }
        }
        let spans = written_by(&[&writers], &slots, &differing, size);
        (d.written_at, d.written_lines) = locations(shader, &spans);
        for e in &mut d.first {
            e.lane = writing_lane(&writers, &slots, e.index, size);
        }
        buffers.push(d);
    }
    let layout = if buffers.is_empty() {
        None
    } else {
        subgroup_layout(shader, device, w, opts.step_budget)
    };
    Ok(DiffReport {
        device: device.info.name.clone(),
        wave_size: w,
        buffers,
        findings,
        layout,
        compared: outputs.iter().filter(|&&o| o).count(),
        dispatch_time: on_device.dispatch_times.iter().sum(),
    })
}

/// Where `device`, at subgroup size `w`, forms subgroups of `shader`'s group
/// from other invocations than Lockstep's waves: a probe of the same group
/// shape writes each invocation's subgroup (its first invocation's group
/// index) and lane. `None` where they agree, or the probe cannot run.
fn subgroup_layout(
    shader: &Shader,
    device: &lockstep_vulkan::Device,
    w: u32,
    step_budget: u64,
) -> Option<String> {
    let entry = shader.module.entry.as_ref()?;
    let lockstep_ir::GroupShape::Threads([x, y, z]) = entry.group else {
        return None;
    };
    let threads = x.checked_mul(y)?.checked_mul(z)?;
    let source = format!(
        "RWStructuredBuffer<uint> Out : register(u0);\n\
         [numthreads({x}, {y}, {z})]\n\
         void main(uint gi : SV_GroupIndex) {{\n\
         \x20   Out[gi] = WaveReadLaneFirst(gi) * 65536u + WaveGetLaneIndex();\n\
         }}\n"
    );
    let probe = crate::compile(
        "layout.hlsl",
        &source,
        &crate::CompileOptions::default(),
        &crate::MemoryLoader::default(),
    )
    .ok()?;
    let pipeline = lockstep_pipeline::parse(&format!(
        "DispatchParameters:\n  DispatchGroupCount: [1, 1, 1]\nBuffers:\n\
         \x20 - {{ Name: Out, Format: UInt32, FillSize: {} }}\n\
         DescriptorSets:\n  - Resources:\n\
         \x20   - {{ Name: Out, Kind: RWStructuredBuffer, DirectXBinding: {{ Register: 0 }} }}\n",
        4 * u64::from(threads)
    ))
    .ok()?;
    let vulkan = crate::VulkanOptions {
        wave_size: Some(w),
        step_budget,
        runs: 1,
    };
    let run = run_vulkan(&probe, &pipeline, device, &vulkan).ok()?;
    let words = run.output.contents.first()?;
    for (gi, word) in words.chunks_exact(4).enumerate() {
        let got = u32::from_le_bytes(word.try_into().ok()?);
        let gi = gi as u32;
        let ours = (gi - gi % w) * 65536 + gi % w;
        if got != ours {
            return Some(format!(
                "{} forms subgroups of this group from other invocations than Lockstep's waves \
                 (wave w holds group indices [w·{w}, (w+1)·{w})): group index {gi} is lane {} of the subgroup \
                 led by group index {} there, lane {} of wave {} here; wave operations may differ for that alone",
                device.info.name,
                got & 0xFFFF,
                got >> 16,
                gi % w,
                gi / w
            ));
        }
    }
    None
}

/// A draw on `device` and on Lockstep's engine (checked, at the device's
/// subgroup size), compared buffer by buffer: the render and depth targets
/// and every buffer a shader can write. Draws record no writers, so the
/// report names no statements.
pub fn diff_draw(
    vertex: &Shader,
    pixel: &Shader,
    pipeline: &Pipeline,
    device: &lockstep_vulkan::Device,
    opts: &DiffOptions,
) -> Result<DiffReport, crate::DrawError> {
    let vulkan = crate::VulkanOptions {
        wave_size: opts.wave_size,
        step_budget: opts.step_budget,
        runs: 1,
    };
    let on_device = crate::draw_vulkan(vertex, pixel, pipeline, device, &vulkan)?;
    let w = on_device.output.wave_size.size;
    let run = crate::RunOptions {
        wave_size: w,
        wave_sizes: (w, w),
        threads: opts.threads,
        step_budget: opts.step_budget,
        ..crate::RunOptions::default()
    };
    let (engine, report) = crate::draw_checked(vertex, pixel, pipeline, &run)?;
    let mut outputs = vec![false; pipeline.buffers.len()];
    if let Some(g) = &pipeline.graphics {
        for name in std::iter::once(&g.render_target).chain(g.depth_target.as_ref()) {
            if let Some(i) = pipeline.buffer_index(name) {
                outputs[i] = true;
            }
        }
    }
    for shader in [vertex, pixel] {
        let bindings = Bindings::new(shader, pipeline)?;
        let written =
            bindings.buffers_where(shader, pipeline.buffers.len(), |r| r.kind.is_writable());
        for (o, w) in outputs.iter_mut().zip(written) {
            *o |= w;
        }
    }
    let mut buffers = Vec::new();
    for (b, desc) in pipeline.buffers.iter().enumerate() {
        if !outputs[b] {
            continue;
        }
        if let Some((d, _)) = compare(
            desc,
            &engine.contents[b],
            &on_device.output.contents[b],
            opts,
        ) {
            buffers.push(d);
        }
    }
    Ok(DiffReport {
        device: device.info.name.clone(),
        wave_size: w,
        buffers,
        findings: report.findings,
        layout: None,
        compared: outputs.iter().filter(|&&o| o).count(),
        dispatch_time: on_device.dispatch_times.iter().sum(),
    })
}

/// The differing elements of one buffer (with no statements named yet),
/// and their indices.
fn compare(
    desc: &lockstep_pipeline::BufferDesc,
    ours: &[u8],
    theirs: &[u8],
    opts: &DiffOptions,
) -> Option<(BufferDiff, Vec<usize>)> {
    let format = desc.format;
    let ours: Vec<u64> = format.elements(ours).collect();
    let theirs: Vec<u64> = format.elements(theirs).collect();
    let differing: Vec<usize> = (0..ours.len().max(theirs.len()))
        .filter(|&i| match (ours.get(i), theirs.get(i)) {
            (Some(&a), Some(&d)) => !same(format, a, d, opts),
            _ => true,
        })
        .collect();
    if differing.is_empty() {
        return None;
    }
    let text = |v: &[u64], i: usize| v.get(i).map(|&x| format.render_bits(x)).unwrap_or_default();
    let diff = BufferDiff {
        buffer: desc.name.clone(),
        elements: ours.len(),
        differing: differing.len(),
        first: differing
            .iter()
            .take(SHOWN)
            .map(|&i| DeviceElement {
                index: i,
                engine: text(&ours, i),
                device: text(&theirs, i),
                lane: None,
            })
            .collect(),
        written_at: Vec::new(),
        written_lines: Vec::new(),
        undefined: 0,
        ordered: 0,
        signed_zeros: 0,
    };
    Some((diff, differing))
}

/// The lane that wrote element `i` (of `size` bytes) of a buffer bound at
/// `slots` (slot, byte offset), as the report spells it.
fn writing_lane(
    writers: &lockstep_exec::Writers,
    slots: &[(usize, usize)],
    i: usize,
    size: usize,
) -> Option<String> {
    let start = i * size;
    let &(slot, offset) = slots
        .iter()
        .filter(|&&(_, offset)| offset <= start)
        .max_by_key(|&&(_, offset)| offset)?;
    let ([x, y, z], wave, lane) = writers.lane(slot, (start - offset) / 4)?;
    Some(format!("group ({x}, {y}, {z}), wave {wave}, lane {lane}"))
}

/// Differing elements looked at for undefined behaviour, per buffer.
const EXPLAINED_AT_MOST: usize = 4096;

/// `file:line` of a `file:line:col` location.
fn line_of(location: &str) -> String {
    location
        .rsplit_once(':')
        .map_or(location, |(head, _)| head)
        .to_string()
}

/// Whether two elements agree: the same bits, or for floats both NaN, or
/// within `opts.tolerance` or `opts.ulps` of each other.
fn same(format: lockstep_pipeline::Format, a: u64, b: u64, opts: &DiffOptions) -> bool {
    agree(format, a, b, opts.tolerance, opts.ulps)
}

/// Whether two elements of `format` agree: the same bits, or for floats
/// both NaN, or at most `tolerance` or `ulps` apart.
pub(crate) fn agree(
    format: lockstep_pipeline::Format,
    a: u64,
    b: u64,
    tolerance: f64,
    ulps: u64,
) -> bool {
    if a == b {
        return true;
    }
    let (Some(x), Some(y)) = (format.float_value(a), format.float_value(b)) else {
        return false;
    };
    if x.is_nan() && y.is_nan() {
        return true;
    }
    if x.is_nan() || y.is_nan() {
        return false;
    }
    if tolerance > 0.0 && (x - y).abs() <= tolerance {
        return true;
    }
    if ulps == 0 {
        return false;
    }
    // Distance in representable values: floats ordered as integers.
    let bits = 8 * format.size() as u32;
    let order = |v: u64| -> i128 {
        let sign = 1u64 << (bits - 1);
        if v & sign != 0 {
            -i128::from(v & (sign - 1))
        } else {
            i128::from(v)
        }
    };
    (order(a) - order(b)).unsigned_abs() <= u128::from(ulps)
}

#[cfg(test)]
mod tests {
    use super::{DiffOptions, same};
    use lockstep_pipeline::Format;

    fn ulps(n: u64) -> DiffOptions {
        DiffOptions {
            ulps: n,
            ..DiffOptions::default()
        }
    }

    #[test]
    fn floats_agree_within_their_ulps() {
        let (ulps0, ulps1, ulps5) = (ulps(0), ulps(1), ulps(5));
        let one = u64::from(1f32.to_bits());
        let next = one + 1;
        assert!(!same(Format::Float32, one, next, &ulps0));
        assert!(same(Format::Float32, one, next, &ulps1));
        // +0 and -0 are one step apart across zero.
        let neg_zero = u64::from((-0f32).to_bits());
        assert!(same(Format::Float32, 0, neg_zero, &ulps1));
        assert!(!same(Format::Float32, 0, neg_zero, &ulps0));
        let nan = u64::from(f32::NAN.to_bits());
        assert!(same(Format::Float32, nan, nan | 1, &ulps0));
        assert!(!same(Format::UInt32, 1, 2, &ulps5));
    }

    #[test]
    fn floats_agree_within_the_tolerance() {
        let bits = |v: f32| u64::from(v.to_bits());
        let near = DiffOptions {
            tolerance: 1e-4,
            ..DiffOptions::default()
        };
        // 1e-6 and 5e-5 are millions of units in the last place apart.
        assert!(same(Format::Float32, bits(1e-6), bits(5e-5), &near));
        assert!(!same(Format::Float32, bits(1e-6), bits(5e-5), &ulps(1000)));
        assert!(!same(Format::Float32, bits(0.5), bits(0.5002), &near));
    }
}
