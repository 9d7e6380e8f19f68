//! The vertex and fixed-function stages of a draw, with Direct3D's rules:
//! input assembly, the vertex shader's lanes, clipping, rasterization with
//! the top-left fill rule, interpolation, and pixel quads packed into waves
//! for the pixel shader; then the depth test and the render target.
//!
//! The engine runs both shaders as it runs a compute dispatch: each lane
//! reads one record and writes one (`lockstep_ir::StageIo`). This crate
//! writes the records and reads them back; it knows triangles, and the
//! engine knows only lanes, quads and helper lanes.
//!
//! A draw, in order:
//!
//! 1. **Input assembly** (`vertex.rs`): vertex `i`'s record holds its
//!    attributes by semantic, missing components filled from (0, 0, 0, 1),
//!    and `SV_VertexID` = `i`, `SV_InstanceID` = 0.
//! 2. **Primitives** (`clip.rs`): triangle lists and strips (odd strip
//!    triangles as (i, i + 2, i + 1), so each keeps the strip's winding and
//!    vertex i leads); each triangle is clipped against 0 ≤ z ≤ w and a
//!    guard band 16 viewports wide, then mapped to the viewport (y down,
//!    0..W × 0..H × 0..1).
//! 3. **Coverage** (`raster.rs`): vertices snap to 1/256 pixel; a pixel is
//!    covered when its centre is inside, or on an edge that is a top edge
//!    or a left edge. No culling. Clockwise triangles on the target are
//!    front-facing.
//! 4. **Quads** (`raster.rs`): each triangle's 2×2 quads aligned to even
//!    coordinates with at least one covered pixel, in rows from the top;
//!    the uncovered pixels are helper lanes. Attributes are interpolated
//!    at pixel centres (helpers extrapolate the triangle's plane).
//! 5. **Waves** (`Packing`): quads fill the pixel shader's waves, four
//!    lanes each in reading order, in batches of at most [`BATCH_QUADS`]
//!    quads (so a draw's memory is bounded). An unchecked, densely packed
//!    batch is shaded and merged in slices of whole waves, so that its
//!    records and outputs stay in the caches.
//! 6. **Output** (`lib.rs`): covered pixels that did not discard, in
//!    primitive order, pass the depth test (LESS against a target cleared
//!    to 1.0, when there is one) and write `SV_Target0`.

mod clip;
mod raster;
mod vertex;

use lockstep_exec::{BoundResource, DispatchConfig, ExecError, Memory, Program, Workers};
use lockstep_ir::{StageIo, Varying, VaryingKind};

pub use raster::Quad;

/// One vertex attribute: its semantic and each vertex's components.
#[derive(Clone, Debug)]
pub struct Attribute {
    /// The semantic's name, upper case, without its index (`TEXCOORD`).
    pub semantic: String,
    /// The semantic's index (0 when none is written).
    pub index: u32,
    /// What each component holds.
    pub kind: VaryingKind,
    /// Components per vertex, 1 to 4.
    pub channels: u32,
    /// `channels` words per vertex, vertex after vertex.
    pub words: Vec<u32>,
}

/// How vertices make triangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Topology {
    /// Every three vertices make a triangle.
    #[default]
    TriangleList,
    /// Each vertex after the second makes a triangle with the two before it.
    TriangleStrip,
}

/// How pixel quads fill the pixel shader's waves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Packing {
    /// Quads in primitive order, filling every wave before the next: a
    /// wave may hold quads of several triangles.
    #[default]
    Dense,
    /// Each triangle starts a new wave.
    PerPrimitive,
    /// Dense, from the last quad to the first of each batch of
    /// [`BATCH_QUADS`].
    Reversed,
}

impl Packing {
    /// Every packing, the default first.
    pub const ALL: [Packing; 3] = [Packing::Dense, Packing::PerPrimitive, Packing::Reversed];

    /// The packing's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Packing::Dense => "dense",
            Packing::PerPrimitive => "one triangle per wave",
            Packing::Reversed => "reversed",
        }
    }
}

/// The render target's size, and whether a depth target goes with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// Pixels per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Whether a depth target (cleared to 1.0, test LESS) is bound.
    pub depth: bool,
}

/// The most pixels a render target may have.
pub const MAX_PIXELS: u64 = 1 << 26;

/// One stage's compiled shader and what it binds.
#[derive(Clone, Copy)]
pub struct StageProgram<'a> {
    /// The compiled shader.
    pub program: &'a Program,
    /// The shader compiled for checked mode: when given, the stage runs
    /// checked and the draw returns its findings.
    pub checked: Option<&'a Program>,
    /// Where the checked stage's traced waves record (see
    /// [`lockstep_exec::trace`]); group `[n, 0, 0]` is the stage's wave `n`.
    pub trace: Option<&'a lockstep_exec::TraceSink>,
    /// Its records.
    pub io: &'a StageIo,
    /// Its resources by resource id; the entries of `io`'s two buffers are
    /// replaced by the draw's records.
    pub resources: &'a [BoundResource<'a>],
}

/// A draw call.
#[derive(Clone, Copy)]
pub struct Draw<'a> {
    /// The vertex shader.
    pub vertex: StageProgram<'a>,
    /// The pixel shader.
    pub pixel: StageProgram<'a>,
    /// The vertex buffer's attributes.
    pub attributes: &'a [Attribute],
    /// Vertices drawn.
    pub vertex_count: u32,
    /// How they make triangles.
    pub topology: Topology,
    /// Where the pixels go.
    pub target: Target,
}

/// The render target after a draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Pixels per row.
    pub width: u32,
    /// Rows, the top one first.
    pub height: u32,
    /// `SV_Target0`'s four words per pixel (zero past its components;
    /// zero where nothing was drawn).
    pub color: Vec<[u32; 4]>,
    /// What `color`'s words hold; `None` when the pixel shader writes no
    /// `SV_Target0`.
    pub color_kind: Option<VaryingKind>,
    /// The depth target, when one is bound.
    pub depth: Option<Vec<f32>>,
    /// Pixel-shader lanes run: covered pixels and helper lanes.
    pub lanes: u64,
    /// Of them, helper lanes.
    pub helpers: u64,
    /// What the stages that ran checked found.
    pub findings: Vec<(lockstep_ir::Stage, lockstep_exec::Finding)>,
}

/// Why a draw could not run.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawError {
    /// What went wrong.
    pub message: String,
    /// An error of a shader run, with its place in the source.
    pub exec: Option<ExecError>,
    /// The stage whose shader failed, for an error of a shader run.
    pub stage: Option<lockstep_ir::Stage>,
}

impl Image {
    /// The cleared target of `draw`: colour 0, depth 1.0.
    fn cleared(draw: &Draw<'_>) -> Image {
        let Target {
            width,
            height,
            depth,
        } = draw.target;
        let pixels = width as usize * height as usize;
        Image {
            width,
            height,
            // The words of a target an earlier draw gave back, where one fits.
            color: bytemuck::allocation::try_cast_vec(lockstep_exec::memory::zeroed_words(
                4 * pixels,
            ))
            .unwrap_or_else(|_| vec![[0u32; 4]; pixels]),
            color_kind: find(&draw.pixel.io.outputs, "SV_TARGET", 0).map(|v| v.kind),
            depth: depth.then(|| vec![1.0f32; pixels]),
            lanes: 0,
            helpers: 0,
            findings: Vec::new(),
        }
    }
}

impl DrawError {
    fn new(message: impl Into<String>) -> DrawError {
        DrawError {
            message: message.into(),
            exec: None,
            stage: None,
        }
    }
}

impl From<ExecError> for DrawError {
    fn from(e: ExecError) -> DrawError {
        DrawError {
            message: e.message.clone(),
            exec: Some(e),
            stage: None,
        }
    }
}

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DrawError {}

/// Runs the draw: the vertex shader over every vertex, the pixel shader
/// over every quad, with `config`'s wave size, budget and order (its group
/// count is the draw's own).
pub fn draw(
    workers: &Workers,
    draw: &Draw<'_>,
    config: &DispatchConfig,
    packing: Packing,
) -> Result<Image, DrawError> {
    let Target { width, height, .. } = draw.target;
    if width == 0 || height == 0 || u64::from(width) * u64::from(height) > MAX_PIXELS {
        return Err(DrawError::new(format!(
            "a render target of {width} x {height} pixels: it must have at least one and at most {MAX_PIXELS}"
        )));
    }
    let mut records = vertex::records(draw)?;
    // Whole waves of records: the lanes past the last vertex read state 0.
    let w = config.wave_size.max(1) as usize;
    let stride = draw.vertex.io.input_words as usize;
    records.resize((draw.vertex_count as usize).div_ceil(w) * w * stride, 0);
    let mut findings = Vec::new();
    let outputs = run_stage(
        &mut findings,
        workers,
        lockstep_ir::Stage::Vertex,
        &draw.vertex,
        &records,
        draw.vertex_count as u64,
        config,
        Vec::new(),
    )?;
    let vertices = vertex::outputs(draw.vertex.io, &outputs, draw.vertex_count)?;
    let triangles = clip::triangles(draw, &vertices);
    let setup = raster::Setup::new(draw.vertex.io, draw.pixel.io)?;
    let planes = raster::planes(&triangles);
    let image = Image::cleared(draw);
    let mut pass = PixelPass {
        workers,
        draw,
        config,
        packing,
        setup: &setup,
        triangles: &triangles,
        planes: &planes,
        pending: Vec::new(),
        limit: if packing == Packing::Dense && draw.pixel.checked.is_none() {
            // Whole waves to a slice: the waves a batch would make.
            let per_wave = (config.wave_size as usize / 4).max(1);
            (SHADED_QUADS * workers.threads()).div_ceil(per_wave) * per_wave
        } else {
            BATCH_QUADS
        },
        records: Vec::new(),
        outputs: Vec::new(),
        image,
        findings,
        waves_shaded: 0,
    };
    let early = draw.pixel.io.early_depth && pass.image.depth.is_some();
    for (t, tri) in triangles.iter().enumerate() {
        raster::triangle_quads(t, tri, draw.target, |q| {
            if !early {
                return pass.push(q);
            }
            let q = pass.early_depth(q);
            if q.covered == 0 {
                return Ok(());
            }
            pass.push(q)
        })?;
    }
    pass.flush()?;
    let mut image = pass.image;
    image.findings = pass.findings;
    Ok(image)
}

/// Quads shaded at once: the records of at most this many quads (a
/// million lanes) exist together, whatever the draw covers.
pub const BATCH_QUADS: usize = 1 << 18;

/// The pixel shader's pass: quads gathered into batches, each shaded and
/// merged into the image in primitive order.
struct PixelPass<'a> {
    workers: &'a Workers,
    draw: &'a Draw<'a>,
    config: &'a DispatchConfig,
    packing: Packing,
    setup: &'a raster::Setup,
    triangles: &'a [clip::Triangle],
    planes: &'a [raster::Plane],
    pending: Vec<Quad>,
    /// Quads gathered before they are shaded: in an unchecked, densely
    /// packed draw a slice of [`SHADED_QUADS`] per worker, so that the
    /// records and the outputs stay in the caches; else a batch.
    limit: usize,
    /// The records and the outputs, reused from slice to slice.
    records: Vec<u32>,
    outputs: Vec<u32>,
    image: Image,
    findings: Vec<(lockstep_ir::Stage, lockstep_exec::Finding)>,
    /// Pixel waves shaded by earlier batches.
    waves_shaded: u32,
}

impl PixelPass<'_> {
    /// `[earlydepthstencil]`: the depth test and write of `q`'s covered
    /// pixels, in primitive order before any is shaded; the pixels that
    /// fail it are left uncovered (helper lanes, where the quad runs).
    fn early_depth(&mut self, mut q: Quad) -> Quad {
        let (tri, plane) = (&self.triangles[q.triangle], &self.planes[q.triangle]);
        let width = self.draw.target.width as usize;
        let Some(depth) = self.image.depth.as_mut() else {
            return q;
        };
        for p in 0..4 {
            if q.covered & (1 << p) == 0 {
                continue;
            }
            let (x, y) = q.pixel(p);
            let at = y as usize * width + x as usize;
            let z = raster::depth(tri, plane.weights(x, y));
            if z.partial_cmp(&depth[at]) == Some(std::cmp::Ordering::Less) {
                depth[at] = z;
            } else {
                q.covered &= !(1 << p);
            }
        }
        q
    }

    fn push(&mut self, q: Quad) -> Result<(), DrawError> {
        self.pending.push(q);
        if self.pending.len() >= self.limit {
            self.flush()?;
        }
        Ok(())
    }

    /// Shades the pending quads and merges them.
    fn flush(&mut self) -> Result<(), DrawError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let mut quads = std::mem::take(&mut self.pending);
        let (order, slots) = pack(&quads, self.packing, self.config.wave_size);
        let shaded = self.shade(&quads, &order, slots);
        quads.clear();
        self.pending = quads;
        shaded
    }

    /// Writes the records of `quads` (quad `i` at slot `order[i]`, `slots`
    /// lanes in all), runs the pixel shader over them and merges its
    /// outputs.
    fn shade(&mut self, quads: &[Quad], order: &[usize], slots: usize) -> Result<(), DrawError> {
        let records = &mut self.records;
        let words = self.setup.words as usize;
        // Every word of a slot is written: a quad's records, or zeros
        // (state 0: no lane).
        records.resize(slots * words, 0);
        // Each slot's quad, and the records written by the workers.
        let mut quad_of = vec![usize::MAX; slots / 4];
        for (q, &slot) in order.iter().enumerate() {
            quad_of[slot] = q;
        }
        let (setup, triangles, planes) = (self.setup, self.triangles, self.planes);
        let write = |(chunk, &qi): (&mut [u32], &usize)| match quads.get(qi) {
            Some(q) => setup.write_quad(q, &triangles[q.triangle], &planes[q.triangle], chunk),
            None => chunk.fill(0),
        };
        if self.workers.single() {
            records.chunks_mut(4 * words).zip(&quad_of).for_each(write);
        } else {
            self.workers.install(|| {
                use rayon::prelude::*;
                records
                    .par_chunks_mut(4 * words)
                    .zip(quad_of.par_iter())
                    .for_each(write);
            });
        }
        if let Some(trace) = self.draw.pixel.trace {
            place_pixels(
                trace,
                quads,
                order,
                self.waves_shaded,
                self.config.wave_size,
            );
        }
        let out = run_stage(
            &mut self.findings,
            self.workers,
            lockstep_ir::Stage::Pixel,
            &self.draw.pixel,
            records,
            slots as u64,
            self.config,
            std::mem::take(&mut self.outputs),
        )?;
        merge(self, quads, order, &out);
        self.outputs = out;
        let w = self.config.wave_size.max(1) as usize;
        self.waves_shaded = self.waves_shaded.saturating_add(slots.div_ceil(w) as u32);
        Ok(())
    }
}

/// Quads shaded at once per worker thread in an unchecked, densely packed
/// draw: their records and outputs fit in the caches.
const SHADED_QUADS: usize = 1 << 13;

/// Each quad's slot among the waves' quads (lanes `4·slot..4·slot + 4`),
/// and the number of lanes.
fn pack(quads: &[Quad], packing: Packing, wave_size: u32) -> (Vec<usize>, usize) {
    let per_wave = (wave_size as usize / 4).max(1);
    let mut order = Vec::with_capacity(quads.len());
    let mut next: usize = 0;
    match packing {
        Packing::Dense => order.extend(0..quads.len()),
        Packing::Reversed => order.extend((0..quads.len()).rev()),
        Packing::PerPrimitive => {
            let mut last = None;
            for q in quads {
                if last.is_some_and(|t| t != q.triangle) {
                    next = next.div_ceil(per_wave) * per_wave;
                }
                last = Some(q.triangle);
                order.push(next);
                next += 1;
            }
        }
    }
    if packing != Packing::PerPrimitive {
        next = quads.len();
    }
    let slots = next.div_ceil(per_wave) * per_wave;
    (order, slots * 4)
}

/// Runs one stage over `records` (`lanes` of them): one wave per group.
/// The outputs are written over `out`'s words, zeroed first.
#[allow(clippy::too_many_arguments)]
fn run_stage(
    findings: &mut Vec<(lockstep_ir::Stage, lockstep_exec::Finding)>,
    workers: &Workers,
    kind: lockstep_ir::Stage,
    stage: &StageProgram<'_>,
    records: &[u32],
    lanes: u64,
    config: &DispatchConfig,
    mut out: Vec<u32>,
) -> Result<Vec<u32>, DrawError> {
    let io = stage.io;
    // The records are read in place: the stage only reads its input.
    let bytes: &[u8] = bytemuck::cast_slice(records);
    let input = Memory::read_only(bytes).unwrap_or_else(|| Memory::from_bytes(bytes));
    let out_bytes = lanes
        .checked_mul(u64::from(io.output_words) * 4)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| DrawError::new("the draw's records do not fit in memory"))?;
    out.clear();
    out.resize(out_bytes / 4, 0);
    let output = Memory::from_words(out);
    let mut bound: Vec<BoundResource<'_>> = stage.resources.to_vec();
    let need = io.input.index().max(io.output.index()) + 1;
    if bound.len() < need {
        return Err(DrawError::new(
            "the stage's resources do not include its records",
        ));
    }
    bound[io.input.index()] = BoundResource::buffer(&input);
    bound[io.output.index()] = BoundResource::buffer(&output);
    let w = u64::from(config.wave_size.max(1));
    let groups = u32::try_from(lanes.div_ceil(w))
        .map_err(|_| DrawError::new("the draw needs more than 2^32 waves"))?;
    if groups > 0 {
        let cfg = DispatchConfig {
            group_count: [groups, 1, 1],
            ..config.clone()
        };
        let located = |e| {
            let mut e = DrawError::from(e);
            e.stage = Some(kind);
            e
        };
        match stage.checked {
            Some(program) => findings.extend(
                match stage.trace {
                    Some(trace) => {
                        lockstep_exec::dispatch_traced_on(workers, program, &bound, &cfg, trace)
                    }
                    None => lockstep_exec::dispatch_checked_on(workers, program, &bound, &cfg),
                }
                .map_err(located)?
                .into_iter()
                .map(|f| (kind, f)),
            ),
            None => {
                lockstep_exec::dispatch_on(workers, stage.program, &bound, &cfg).map_err(located)?
            }
        }
    }
    drop(bound);
    let (words, _) = output.into_le_words();
    Ok(match words {
        std::borrow::Cow::Owned(w) if cfg!(target_endian = "little") => w,
        w => w.iter().map(|&x| u32::from_le(x)).collect(),
    })
}

/// Tells `trace` which pixel each lane of the waves it traces shades: quad
/// `i` of `quads` is in slot `order[i]`, and the batch's waves come after
/// `waves_before` others.
fn place_pixels(
    trace: &lockstep_exec::TraceSink,
    quads: &[Quad],
    order: &[usize],
    waves_before: u32,
    wave_size: u32,
) {
    let w = wave_size.max(1) as usize;
    let mut waves: std::collections::BTreeMap<u32, Vec<Option<[u32; 3]>>> = Default::default();
    for (q, &slot) in quads.iter().zip(order) {
        let wave = waves_before.saturating_add((slot * 4 / w) as u32);
        if !trace.wants_group([wave, 0, 0]) {
            continue;
        }
        let lanes = waves.entry(wave).or_insert_with(|| vec![None; w]);
        for p in 0..4 {
            let lane = (slot * 4 + p) % w;
            let covered = u32::from(q.covered >> p & 1);
            lanes[lane] = Some([q.x + (p as u32 & 1), q.y + (p as u32 >> 1), covered]);
        }
    }
    for (wave, lanes) in waves {
        trace.place_pixels(wave, lanes);
    }
}

/// Finds a varying by semantic and index.
pub(crate) fn find<'v>(vars: &'v [Varying], semantic: &str, index: u32) -> Option<&'v Varying> {
    vars.iter()
        .find(|v| v.semantic == semantic && v.index == index)
}

/// The depth test and the render target, in primitive order.
fn merge(pass: &mut PixelPass<'_>, quads: &[Quad], order: &[usize], out: &[u32]) {
    use rayon::prelude::*;
    let (workers, draw, triangles, planes) = (pass.workers, pass.draw, pass.triangles, pass.planes);
    let image = &mut pass.image;
    let width = draw.target.width as usize;
    let io = draw.pixel.io;
    let stride = io.output_words as usize;
    let target = find(&io.outputs, "SV_TARGET", 0);
    let sv_depth = find(&io.outputs, "SV_DEPTH", 0);
    image.lanes += quads.len() as u64 * 4;
    image.helpers += quads
        .iter()
        .map(|q| u64::from(4 - q.covered.count_ones()))
        .sum::<u64>();
    let comps = target.map_or(0, |v| v.components.min(4) as usize);
    // Merges quads `list` (in primitive order) into the rows from `top`
    // of the target, `color` and `depth`.
    let merge_rows = |top: u32,
                      color: &mut [[u32; 4]],
                      mut depth: Option<&mut [f32]>,
                      list: &mut dyn Iterator<Item = usize>| {
        for i in list {
            let (q, slot) = (&quads[i], order[i]);
            let records = &out[slot * 4 * stride..(slot + 1) * 4 * stride];
            for (p, rec) in records.chunks_exact(stride).enumerate() {
                if q.covered & (1 << p) == 0 || rec[0] != 1 {
                    continue;
                }
                let (x, y) = q.pixel(p);
                let at = (y - top) as usize * width + x as usize;
                // With early depth, the test and the write came first.
                if let Some(buf) = depth.as_deref_mut().filter(|_| !io.early_depth) {
                    let z = match sv_depth {
                        Some(v) => f32::from_bits(rec[v.word as usize]).clamp(0.0, 1.0),
                        None => {
                            raster::depth(&triangles[q.triangle], planes[q.triangle].weights(x, y))
                        }
                    };
                    if z.partial_cmp(&buf[at]) != Some(std::cmp::Ordering::Less) {
                        continue;
                    }
                    buf[at] = z;
                }
                if let Some(v) = target {
                    let from = v.word as usize;
                    match rec.get(from..from + 4) {
                        Some(&[a, b, c, d]) if comps == 4 => color[at] = [a, b, c, d],
                        _ => color[at][..comps].copy_from_slice(&rec[from..from + comps]),
                    }
                }
            }
        }
    };
    if workers.single() {
        merge_rows(
            0,
            &mut image.color,
            image.depth.as_deref_mut(),
            &mut (0..quads.len()),
        );
        return;
    }
    // Bands of rows, each merged by one worker from every quad in
    // primitive order: a pixel's writes keep their order.
    let band_rows = 16usize;
    let band = band_rows * width;
    let mut depth_bands: Vec<Option<&mut [f32]>> = match &mut image.depth {
        Some(d) => d.chunks_mut(band).map(Some).collect(),
        None => (0..image.color.len().div_ceil(band))
            .map(|_| None)
            .collect(),
    };
    // Each band's quads, in primitive order.
    let mut by_band: Vec<Vec<u32>> = vec![Vec::new(); depth_bands.len()];
    for (i, q) in quads.iter().enumerate() {
        if let Some(list) = by_band.get_mut(q.y as usize / band_rows) {
            list.push(i as u32);
        }
    }
    workers.install(|| {
        image
            .color
            .par_chunks_mut(band)
            .zip(depth_bands.par_iter_mut())
            .zip(by_band.par_iter())
            .enumerate()
            .for_each(|(b, ((color, depth), list))| {
                let top = (b * band_rows) as u32;
                merge_rows(
                    top,
                    color,
                    depth.as_deref_mut(),
                    &mut list.iter().map(|&i| i as usize),
                );
            });
    });
}
