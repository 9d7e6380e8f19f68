//! What a compiled shader needs from a device: the entry point, the group
//! shape, the wave size it would run at and why, its memory and bindings.

use lockstep_exec::{Device, select_wave_size};
use lockstep_ir::{GroupShape, ResourceKind};
use serde::Serialize;

use crate::Shader;

/// A shader's launch requirements on a device (`lockstep info`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShaderInfo {
    /// The entry point's name; empty when the module has none.
    pub entry: String,
    /// The stage: `compute`, `vertex` or `pixel`.
    pub stage: String,
    /// A vertex or pixel shader's inputs, by semantic, with their
    /// components and interpolation: `TEXCOORD1: float2, linear`.
    pub inputs: Vec<String>,
    /// A vertex or pixel shader's outputs, by semantic.
    pub outputs: Vec<String>,
    /// `numthreads(x, y, z)` or `numWaves(n)`.
    pub group: String,
    /// The `[WaveSize]` attribute, when present.
    pub wave_size_attribute: Option<String>,
    /// The wave size the device would run the shader at (`None` when it
    /// cannot run it), and why.
    pub wave_size: Option<u32>,
    /// Why that wave size; when the device cannot run the shader, the error's notes.
    pub wave_size_reason: String,
    /// Why the device cannot run the shader, when it cannot.
    pub wave_size_error: Option<String>,
    /// Waves in one group at that wave size; `None` when the device cannot run the shader.
    pub waves_per_group: Option<u64>,
    /// Threads in one group at that wave size; `None` when the device cannot run the shader.
    pub threads_per_group: Option<u64>,
    /// Which threads make a quad: `linear` (four consecutive group
    /// indices) or `2x2 blocks` (SM 6.6, numthreads X and Y even).
    pub quads: String,
    /// Bytes of `groupshared` memory one group uses.
    pub groupshared_bytes: u32,
    /// The lowest shader model with every feature the shader uses.
    pub shader_model: String,
    /// The resources the shader binds.
    pub bindings: Vec<BindingInfo>,
}

/// One resource the shader binds, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BindingInfo {
    /// The resource's name in the source.
    pub name: String,
    /// The HLSL resource type, e.g. `RWStructuredBuffer`.
    pub kind: String,
    /// `t0`, `u1`, `b0`.
    pub register: String,
    /// The register space.
    pub space: u32,
    /// Whether the shader wrote `register(...)`.
    pub explicit: bool,
}

/// The HLSL spelling of a resource kind.
fn kind_name(kind: ResourceKind) -> String {
    format!("{kind:?}")
}

/// Describes `shader` on `device`.
pub fn info(shader: &Shader, device: &Device) -> ShaderInfo {
    let module = &shader.module;
    let entry = module.entry.as_ref();
    let group = match entry.map(|e| e.group) {
        Some(GroupShape::Threads([x, y, z])) => format!("numthreads({x}, {y}, {z})"),
        Some(GroupShape::Waves(n)) => format!("numWaves({n})"),
        None => "none".to_string(),
    };
    let attribute = entry.and_then(|e| e.wave_size).map(|r| match r.preferred {
        Some(p) => format!("WaveSize({}, {}, {p})", r.min, r.max),
        None if r.min == r.max => format!("WaveSize({})", r.min),
        None => format!("WaveSize({}, {})", r.min, r.max),
    });
    let choice = select_wave_size(entry.and_then(|e| e.wave_size), device);
    let (wave_size, reason, error) = match &choice {
        Ok(c) => (Some(c.size), c.reason.clone(), None),
        Err(e) => (None, e.notes.join("; "), Some(e.message.clone())),
    };
    let per_group = |f: fn(GroupShape, u32) -> u64| match (entry, &choice) {
        (Some(e), Ok(c)) => Some(f(e.group, c.size)),
        _ => None,
    };
    let (major, minor) = module.required_shader_model;
    let stage = entry.map_or(lockstep_ir::Stage::Compute, |e| e.stage);
    let io = entry.and_then(|e| e.io.as_ref());
    let varyings = |list: Option<&Vec<lockstep_ir::Varying>>, interpolated: bool| -> Vec<String> {
        list.into_iter()
            .flatten()
            .map(|v| {
                let scalar = match v.kind {
                    lockstep_ir::VaryingKind::Float => "float",
                    lockstep_ir::VaryingKind::Int => "int",
                    lockstep_ir::VaryingKind::UInt => "uint",
                };
                let shape = match v.components {
                    1 => scalar.to_string(),
                    n => format!("{scalar}{n}"),
                };
                let index = if v.index == 0 {
                    String::new()
                } else {
                    v.index.to_string()
                };
                let how = match v.interpolation {
                    _ if !interpolated || v.semantic.starts_with("SV_") => String::new(),
                    lockstep_ir::Interpolation::Linear => ", linear".into(),
                    lockstep_ir::Interpolation::Centroid => ", centroid".into(),
                    lockstep_ir::Interpolation::NoPerspective => ", noperspective".into(),
                    lockstep_ir::Interpolation::NoInterpolation => ", nointerpolation".into(),
                };
                format!("{}{index}: {shape}{how}", v.semantic)
            })
            .collect()
    };
    let graphics = stage != lockstep_ir::Stage::Compute;
    let group = match stage {
        lockstep_ir::Stage::Vertex => "one lane per vertex, in order".to_string(),
        lockstep_ir::Stage::Pixel => "one lane per pixel, 2x2 quads filling the waves".to_string(),
        lockstep_ir::Stage::Compute => group,
    };
    ShaderInfo {
        entry: entry.map_or_else(String::new, |e| e.name.clone()),
        stage: stage.name().to_string(),
        inputs: varyings(io.map(|io| &io.inputs), stage == lockstep_ir::Stage::Pixel),
        outputs: varyings(io.map(|io| &io.outputs), false),
        group,
        wave_size_attribute: attribute,
        wave_size,
        wave_size_reason: reason,
        wave_size_error: error,
        waves_per_group: per_group(GroupShape::waves).filter(|_| !graphics),
        threads_per_group: per_group(GroupShape::threads).filter(|_| !graphics),
        quads: match shader.program.quads {
            _ if stage == lockstep_ir::Stage::Vertex => "none (a vertex shader has no quads)".to_string(),
            _ if stage == lockstep_ir::Stage::Pixel => {
                "2x2 pixels at even coordinates, lanes 4q..4q+3 in reading order; uncovered pixels run as helper lanes".to_string()
            }
            lockstep_ir::QuadLayout::Linear => {
                "linear: four consecutive SV_GroupIndex values".to_string()
            }
            lockstep_ir::QuadLayout::Blocks => {
                "2x2 blocks of SV_GroupThreadID.xy, as four adjacent lanes (from SM 6.6; below it, four consecutive SV_GroupIndex values)".to_string()
            }
        },
        groupshared_bytes: shader.program.groupshared_bytes,
        shader_model: format!("{major}.{minor}"),
        bindings: module
            .resources
            .iter()
            // Counters and a stage's records are not bound by the user.
            .filter(|r| r.counter_of.is_none() && r.register != u32::MAX)
            .map(|r| BindingInfo {
                name: r.name.clone(),
                kind: kind_name(r.kind),
                register: format!("{}{}", r.kind.register_class(), r.register),
                space: r.space,
                explicit: r.explicit_binding,
            })
            .collect(),
    }
}

impl ShaderInfo {
    /// The human-readable form.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut line = |label: &str, value: String| out.push_str(&format!("{label:<18}{value}\n"));
        line("entry point", self.entry.clone());
        line("stage", self.stage.clone());
        for (label, list) in [("inputs", &self.inputs), ("outputs", &self.outputs)] {
            for (i, v) in list.iter().enumerate() {
                line(if i == 0 { label } else { "" }, v.clone());
            }
        }
        line(
            if self.stage == "compute" {
                "group"
            } else {
                "lanes"
            },
            self.group.clone(),
        );
        if let Some(a) = &self.wave_size_attribute {
            line("wave size range", format!("[{a}]"));
        }
        match (self.wave_size, &self.wave_size_error) {
            (Some(size), _) => line("wave size", format!("{size} ({})", self.wave_size_reason)),
            (None, error) => line(
                "wave size",
                format!("none: {}", error.as_deref().unwrap_or("unknown")),
            ),
        }
        if let (Some(w), Some(t)) = (self.waves_per_group, self.threads_per_group) {
            let plural = |n: u64, word: &str| match n {
                1 => format!("1 {word}"),
                n => format!("{n} {word}s"),
            };
            line(
                "per group",
                format!("{}, {}", plural(w, "wave"), plural(t, "thread")),
            );
        }
        line("quads", self.quads.clone());
        line("groupshared", format!("{} bytes", self.groupshared_bytes));
        line(
            "shader model",
            format!(
                "{} or later ({}s_{})",
                self.shader_model,
                &self.stage[..1],
                self.shader_model.replace('.', "_")
            ),
        );
        if self.bindings.is_empty() {
            line("bindings", "none".to_string());
        }
        for (i, b) in self.bindings.iter().enumerate() {
            let how = if b.explicit { "" } else { " (implicit)" };
            line(
                if i == 0 { "bindings" } else { "" },
                format!(
                    "{} {}: {}, space{}{how}",
                    b.kind, b.name, b.register, b.space
                ),
            );
        }
        out
    }
}
