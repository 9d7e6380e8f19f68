//! Turning pipeline text into a [`Pipeline`]: the keys of each section as
//! upstream's offload-test-suite reads them, and the checks that relate
//! several parts of the file.

use std::collections::HashMap;

use crate::binding::{Binding, Kind};
use crate::check::{DenormMode, ResultRule, Rule, format_problem};
use crate::data;
use crate::error::{Location, PipelineError};
use crate::named::Named;
use crate::read::{self, Fields, Path};
use crate::yaml::{self, Node};
use crate::{BufferDesc, Pipeline};

/// The D3D12 limit on each dispatch group count.
pub const MAX_GROUP_COUNT: u64 = 65535;

const DOCUMENT_KEYS: &[&str] = &[
    "Shaders",
    "RuntimeSettings",
    "DispatchParameters",
    "Buffers",
    "Bindings",
    "Results",
    "DescriptorSets",
    "Samplers",
];
const SHADER_KEYS: &[&str] = &["Stage", "Entry", "DispatchSize", "SpecializationConstants"];
const DISPATCH_KEYS: &[&str] = &["DispatchGroupCount", "VertexCount"];
const RESULT_KEYS: &[&str] = &[
    "Result",
    "Rule",
    "Actual",
    "Expected",
    "ULPT",
    "Epsilon",
    "DenormMode",
];
const SET_KEYS: &[&str] = &["Resources"];
const RESOURCE_KEYS: &[&str] = &[
    "Name",
    "Kind",
    "DirectXBinding",
    "VulkanBinding",
    "HasCounter",
];
const DIRECTX_KEYS: &[&str] = &["Register", "Space"];
const VULKAN_KEYS: &[&str] = &["Binding", "Set", "CounterBinding"];

/// Parses and checks a pipeline file.
pub fn parse(text: &str) -> Result<Pipeline, PipelineError> {
    parse_with(text, false).map(|(pipeline, _)| pipeline)
}

/// The bytes of the file at `path`, which must be a regular file (a device
/// such as `/dev/zero` never ends).
pub fn read_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::other(if path.is_dir() {
            "it is a directory"
        } else {
            "it is not a regular file"
        }));
    }
    std::fs::read(path)
}

/// Reads, parses and checks the pipeline file at `path`. A large `Data`
/// list is decoded after the rest, from the file a piece at a time, once
/// the text is dropped: reading a file costs about the larger of its
/// text and its buffers, not both.
pub fn parse_file(path: &std::path::Path) -> Result<Pipeline, PipelineError> {
    let io =
        |e: std::io::Error| PipelineError::new(format!("cannot read '{}': {e}", path.display()));
    let text = String::from_utf8(read_file(path).map_err(io)?)
        .map_err(|_| PipelineError::new(format!("'{}' is not UTF-8 text", path.display())))?;
    let graphics = text.contains("Bindings:");
    let (mut pipeline, deferred) = parse_with(&text, !graphics)?;
    drop(text);
    if deferred.is_empty() {
        return Ok(pipeline);
    }
    let mut file = std::fs::File::open(path).map_err(io)?;
    for (index, d) in deferred {
        let buffer = &mut pipeline.buffers[index];
        data::decode_deferred(&mut file, &d, buffer)?;
        data::check_deferred_props(buffer)?;
    }
    Ok(pipeline)
}

/// Parses `text`; with `defer`, large `Data` lists are left undecoded and
/// returned with their buffers' indices.
fn parse_with(
    text: &str,
    defer: bool,
) -> Result<(Pipeline, Vec<(usize, data::Deferred)>), PipelineError> {
    let root = yaml::parse_document(text)?;
    let top = Fields::new(&root, Path::default(), DOCUMENT_KEYS)?;
    let stages = shaders(&top)?;
    let shader = stages.compute;
    let graphics_stages = stages.vertex.is_some() || stages.pixel.is_some();
    let vertex_count = vertex_count(&top, graphics_stages)?;
    let dispatch = dispatch_size(&top, shader.as_ref())?;
    let buffers = match top.get_with_path("Buffers") {
        Some((node, path)) => read::items(node, &path)?
            .iter()
            .map(|(node, path)| data::buffer(node, path, defer))
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    let mut deferred = Vec::new();
    let buffers: Vec<(BufferDesc, Location)> = buffers
        .into_iter()
        .enumerate()
        .map(|(i, (b, at, d))| {
            if let Some(d) = d {
                deferred.push((i, d));
            }
            (b, at)
        })
        .collect();
    check_unique_names(&buffers)?;
    let buffers: Vec<BufferDesc> = buffers.into_iter().map(|(b, _)| b).collect();
    let samplers = match top.get_with_path("Samplers") {
        Some((node, path)) => read::items(node, &path)?
            .iter()
            .map(|(node, path)| crate::sampler::sampler(node, path))
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    for (i, (sampler, at)) in samplers.iter().enumerate() {
        if samplers[..i].iter().any(|(s, _)| s.name == sampler.name) {
            return Err(PipelineError::at(
                *at,
                format!("duplicate sampler name `{}`", sampler.name),
            ));
        }
    }
    let samplers: Vec<crate::SamplerDesc> = samplers.into_iter().map(|(s, _)| s).collect();
    let bindings = match top.get_with_path("DescriptorSets") {
        Some((node, path)) => bindings(node, &path, &buffers, &samplers)?,
        None => Vec::new(),
    };
    let graphics = match (top.get_with_path("Bindings"), graphics_stages) {
        (Some((node, path)), true) => Some(crate::graphics::graphics(
            node,
            &path,
            &buffers,
            (
                stages.vertex.and_then(|s| s.entry),
                stages.pixel.and_then(|s| s.entry),
            ),
            vertex_count,
        )?),
        (Some((node, path)), false) => {
            return Err(path.error(
                node.at,
                "Bindings belong to graphics pipelines, but Shaders has no Vertex and Pixel shader",
            ));
        }
        (None, true) => {
            return Err(Path::default().key("Shaders").error(
                top.at,
                "a graphics pipeline (Vertex and Pixel shaders) needs Bindings: VertexBuffer, VertexAttributes and RenderTarget",
            ));
        }
        (None, false) => None,
    };
    let results = match top.get_with_path("Results") {
        Some((node, path)) => read::items(node, &path)?
            .iter()
            .map(|(node, path)| result_rule(node, path, &buffers))
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let pipeline = Pipeline {
        dispatch,
        entry: shader.and_then(|s| s.entry),
        buffers,
        results,
        bindings,
        samplers,
        graphics,
    };
    Ok((pipeline, deferred))
}

/// The shader stages of `Shaders`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Compute,
    Vertex,
    Pixel,
}

impl Named for Stage {
    const WHAT: &'static str = "stage";
    const ALL: &'static [Self] = &[Stage::Compute, Stage::Vertex, Stage::Pixel];

    fn name(self) -> &'static str {
        match self {
            Stage::Compute => "Compute",
            Stage::Vertex => "Vertex",
            Stage::Pixel => "Pixel",
        }
    }
}

struct Shader {
    entry: Option<String>,
    dispatch_size: Option<(Location, [u32; 3])>,
}

/// The shaders of `Shaders`, by stage.
#[derive(Default)]
struct Stages {
    compute: Option<Shader>,
    vertex: Option<Shader>,
    pixel: Option<Shader>,
}

/// The shaders of `Shaders`: one compute shader, or a vertex and a pixel
/// shader (in the order of the shader files).
fn shaders(top: &Fields<'_, '_>) -> Result<Stages, PipelineError> {
    let Some((node, path)) = top.get_with_path("Shaders") else {
        return Ok(Stages::default());
    };
    let mut stages = Stages::default();
    for (node, path) in read::items(node, &path)? {
        let fields = Fields::new(&node, path, SHADER_KEYS)?;
        let stage = fields.read("Stage", read::name::<Stage>)?;
        if let Some((node, path)) = fields.get_with_path("SpecializationConstants") {
            return Err(path.error(
                node.at,
                "specialization constants are not supported (they belong to Vulkan's SPIR-V)",
            ));
        }
        let shader = Shader {
            entry: fields.read("Entry", read::string)?,
            dispatch_size: fields
                .get_with_path("DispatchSize")
                .map(|(n, p)| group_count(n, &p).map(|c| (n.at, c)))
                .transpose()?,
        };
        let slot = match stage {
            Some(Stage::Vertex) => &mut stages.vertex,
            Some(Stage::Pixel) => &mut stages.pixel,
            Some(Stage::Compute) | None => &mut stages.compute,
        };
        if slot.is_some() {
            let what = stage.unwrap_or(Stage::Compute).name();
            return Err(fields.path.error(
                fields.at,
                format!("a second {what} shader: a pipeline has one of each stage"),
            ));
        }
        *slot = Some(shader);
    }
    let graphics = stages.vertex.is_some() || stages.pixel.is_some();
    if graphics && stages.compute.is_some() {
        return Err(Path::default().key("Shaders").error(
            top.at,
            "a pipeline runs a compute shader or a Vertex and a Pixel shader, not both",
        ));
    }
    if graphics && (stages.vertex.is_none() || stages.pixel.is_none()) {
        return Err(Path::default().key("Shaders").error(
            top.at,
            "a graphics pipeline needs both a Vertex and a Pixel shader",
        ));
    }
    Ok(stages)
}

/// `DispatchParameters: VertexCount`, which only graphics pipelines take.
fn vertex_count(
    top: &Fields<'_, '_>,
    graphics: bool,
) -> Result<Option<(u32, Location)>, PipelineError> {
    let Some((node, path)) = top.get_with_path("DispatchParameters") else {
        return Ok(None);
    };
    let fields = Fields::new(node, path, DISPATCH_KEYS)?;
    let Some((node, path)) = fields.get_with_path("VertexCount") else {
        return Ok(None);
    };
    if !graphics {
        return Err(path.error(
            node.at,
            "VertexCount belongs to graphics pipelines (Vertex and Pixel shaders)",
        ));
    }
    Ok(Some((read::uint32(node, &path)?, node.at)))
}

/// `DispatchParameters: DispatchGroupCount`, or the older per-shader
/// `DispatchSize`; `[1, 1, 1]` when neither is given.
fn dispatch_size(top: &Fields<'_, '_>, shader: Option<&Shader>) -> Result<[u32; 3], PipelineError> {
    let count = match top.get_with_path("DispatchParameters") {
        Some((node, path)) => {
            let fields = Fields::new(node, path, DISPATCH_KEYS)?;
            fields.read("DispatchGroupCount", group_count)?
        }
        None => None,
    };
    match (shader.and_then(|s| s.dispatch_size), count) {
        (Some((at, size)), Some(count)) if size != count => Err(PipelineError::at(
            at,
            format!("dispatch sizes disagree: DispatchSize {size:?}, DispatchGroupCount {count:?}"),
        )),
        (Some((_, dispatch)), _) | (None, Some(dispatch)) => Ok(dispatch),
        (None, None) => Ok([1, 1, 1]),
    }
}

/// Three group counts, each within 1 to [`MAX_GROUP_COUNT`].
fn group_count(node: &Node<'_>, path: &Path) -> Result<[u32; 3], PipelineError> {
    let items = read::items(node, path)?;
    let [x, y, z] = items.as_slice() else {
        return Err(path.error(
            node.at,
            format!("expected three group counts, found {}", items.len()),
        ));
    };
    let mut counts = [0; 3];
    for (count, (node, path)) in counts.iter_mut().zip([x, y, z]) {
        let value = read::integer(node, path, i128::MIN, i128::MAX)?;
        *count = match value {
            1..=65535 => value as u32,
            ..=0 => {
                return Err(path.error(node.at, format!("group count {value} must be at least 1")));
            }
            _ => {
                return Err(path.error(
                    node.at,
                    format!("group count {value} exceeds the D3D12 limit of {MAX_GROUP_COUNT}"),
                ));
            }
        };
    }
    Ok(counts)
}

fn check_unique_names(buffers: &[(BufferDesc, Location)]) -> Result<(), PipelineError> {
    for (i, (buffer, at)) in buffers.iter().enumerate() {
        if buffers[..i].iter().any(|(b, _)| b.name == buffer.name) {
            return Err(PipelineError::at(
                *at,
                format!("duplicate buffer name `{}`", buffer.name),
            ));
        }
    }
    Ok(())
}

/// The buffer a resource or result names: an error at the name when there
/// is none, suggesting a close one.
fn buffer_named<'b>(
    buffers: &'b [BufferDesc],
    fields: &Fields<'_, '_>,
    key: &str,
    user: impl FnOnce() -> String,
) -> Result<(&'b BufferDesc, String), PipelineError> {
    let node = fields.require(key)?;
    let name = read::string(node, &fields.path.key(key))?;
    match buffers.iter().find(|b| b.name == name) {
        Some(buffer) => Ok((buffer, name)),
        None => {
            let names: Vec<&str> = buffers.iter().map(|b| b.name.as_str()).collect();
            let hint = match read::suggestion(&name, &names) {
                Some(close) => format!("; did you mean `{close}`?"),
                None => String::new(),
            };
            Err(PipelineError::at(
                node.at,
                format!("{}: no buffer named `{name}`{hint}", user()),
            ))
        }
    }
}

/// The sampler a `Kind: Sampler` resource names: an error at the name when
/// `Samplers` has none of it.
fn sampler_named(
    samplers: &[crate::SamplerDesc],
    fields: &Fields<'_, '_>,
    set: usize,
) -> Result<String, PipelineError> {
    let node = fields.require("Name")?;
    let name = read::string(node, &fields.path.key("Name"))?;
    if samplers.iter().any(|s| s.name == name) {
        return Ok(name);
    }
    let names: Vec<&str> = samplers.iter().map(|s| s.name.as_str()).collect();
    let hint = match read::suggestion(&name, &names) {
        Some(close) => format!("; did you mean `{close}`?"),
        None if names.is_empty() => " (the pipeline has no Samplers)".to_string(),
        None => String::new(),
    };
    Err(PipelineError::at(
        node.at,
        format!("descriptor set {set}: no sampler named `{name}`{hint}"),
    ))
}

/// Flattens the descriptor sets, checking that each resource names a
/// buffer and that no register is bound twice.
fn bindings(
    node: &Node<'_>,
    path: &Path,
    buffers: &[BufferDesc],
    samplers: &[crate::SamplerDesc],
) -> Result<Vec<Binding>, PipelineError> {
    let mut bindings = Vec::new();
    let mut taken: HashMap<(char, u32, u32), String> = HashMap::new();
    for (set, (node, path)) in read::items(node, path)?.into_iter().enumerate() {
        let fields = Fields::new(&node, path, SET_KEYS)?;
        let Some((node, path)) = fields.get_with_path("Resources") else {
            continue;
        };
        for (node, path) in read::items(node, &path)? {
            let resource = Fields::new(&node, path, RESOURCE_KEYS)?;
            let kind_node = resource.require("Kind")?;
            let kind: Kind = read::name(kind_node, &resource.path.key("Kind"))?;
            let (buffer, name) = if kind == Kind::Sampler {
                (None, sampler_named(samplers, &resource, set)?)
            } else {
                let (buffer, name) = buffer_named(buffers, &resource, "Name", || {
                    format!("descriptor set {set}")
                })?;
                (Some(buffer), name)
            };
            if let Some(buffer) = buffer
                && kind.is_texture()
                && buffer.output_props.is_none()
            {
                return Err(PipelineError::at(
                    kind_node.at,
                    format!(
                        "descriptor set {set}: buffer `{}` is bound as a {kind} but has no OutputProps giving its Width, Height and Depth",
                        buffer.name
                    ),
                ));
            }
            let (dx_node, dx_path) = (
                resource.require("DirectXBinding")?,
                resource.path.key("DirectXBinding"),
            );
            let dx = Fields::new(dx_node, dx_path, DIRECTX_KEYS)?;
            let register = read::uint32(dx.require("Register")?, &dx.path.key("Register"))?;
            let space = dx.read("Space", read::uint32)?.unwrap_or(0);
            let vulkan_binding = match resource.get_with_path("VulkanBinding") {
                Some((node, path)) => {
                    let vk = Fields::new(node, path, VULKAN_KEYS)?;
                    vk.read("Binding", read::uint32)?
                }
                None => None,
            };
            resource.read("HasCounter", read::boolean)?;
            let binding = Binding {
                name,
                kind,
                register,
                space,
                set,
                vulkan_binding,
            };
            let key = (
                binding.kind.register_class(),
                binding.register,
                binding.space,
            );
            if let Some(first) = taken.insert(key, binding.name.clone()) {
                return Err(PipelineError::at(
                    dx_node.at,
                    format!(
                        "register {} is bound to both `{first}` and `{}`",
                        binding.register_name(),
                        binding.name
                    ),
                ));
            }
            bindings.push(binding);
        }
    }
    Ok(bindings)
}

/// The rule names of `Results`; their parameters are read separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RuleName {
    Exact,
    FloatUlp,
    FloatEpsilon,
}

impl Named for RuleName {
    const WHAT: &'static str = "rule";
    const ALL: &'static [Self] = &[RuleName::Exact, RuleName::FloatUlp, RuleName::FloatEpsilon];

    fn name(self) -> &'static str {
        match self {
            RuleName::Exact => "BufferExact",
            RuleName::FloatUlp => "BufferFloatULP",
            RuleName::FloatEpsilon => "BufferFloatEpsilon",
        }
    }
}

fn result_rule(
    node: &Node<'_>,
    path: &Path,
    buffers: &[BufferDesc],
) -> Result<ResultRule, PipelineError> {
    let fields = Fields::new(node, path.clone(), RESULT_KEYS)?;
    let name = read::string(fields.require("Result")?, &path.key("Result"))?;
    let fail =
        |message: String| PipelineError::at(fields.at, format!("result `{name}`: {message}"));
    let rule_name: RuleName = read::name(fields.require("Rule")?, &path.key("Rule"))?;
    let denorm = fields
        .read("DenormMode", read::name::<DenormMode>)?
        .unwrap_or_default();
    let rule = match rule_name {
        RuleName::Exact => Rule::BufferExact,
        RuleName::FloatUlp => Rule::BufferFloatUlp {
            ulpt: fields
                .read("ULPT", read::uint64)?
                .ok_or_else(|| fail("BufferFloatULP needs ULPT".into()))?,
            denorm,
        },
        RuleName::FloatEpsilon => {
            let epsilon = fields
                .read("Epsilon", read::float)?
                .ok_or_else(|| fail("BufferFloatEpsilon needs Epsilon".into()))?;
            if epsilon.is_nan() || epsilon < 0.0 {
                return Err(fail(format!(
                    "Epsilon {epsilon} is not a non-negative number"
                )));
            }
            Rule::BufferFloatEpsilon { epsilon, denorm }
        }
    };
    let user = || format!("result `{name}`");
    let (actual, actual_name) = buffer_named(buffers, &fields, "Actual", user)?;
    let (expected, expected_name) = buffer_named(buffers, &fields, "Expected", user)?;
    if let Some(problem) = format_problem(rule, actual, expected) {
        return Err(fail(problem));
    }
    Ok(ResultRule {
        name: name.clone(),
        rule,
        actual: actual_name,
        expected: expected_name,
    })
}
