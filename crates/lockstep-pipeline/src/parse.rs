//! Turning pipeline text into a [`Pipeline`], with the checks that relate
//! several parts of the file.

use std::collections::HashMap;

use crate::binding::Binding;
use crate::check::{ResultRule, Rule, format_problem};
use crate::de::{
    RawDescriptorSet, RawDispatchParameters, RawDocument, RawResult, RawShader, RuleName,
};
use crate::error::PipelineError;
use crate::{BufferDesc, Pipeline};

/// Parses and checks a pipeline file.
pub fn parse(text: &str) -> Result<Pipeline, PipelineError> {
    let document: RawDocument =
        serde_norway::from_str(text).map_err(|e| PipelineError::from_yaml(&e))?;
    let shader = compute_shader(&document.shaders);
    let dispatch = dispatch_size(shader, document.dispatch_parameters.as_ref())?;
    let buffers: Vec<BufferDesc> = document.buffers.into_iter().map(|b| b.0).collect();
    check_unique_names(&buffers)?;
    let bindings = bindings(&document.descriptor_sets, &buffers)?;
    let results = document
        .results
        .iter()
        .map(|r| result_rule(r, &buffers))
        .collect::<Result<_, _>>()?;
    Ok(Pipeline {
        dispatch,
        entry: shader.and_then(|s| s.entry.clone()),
        buffers,
        results,
        bindings,
    })
}

/// The first compute shader (or shader without a stage), else the first.
fn compute_shader(shaders: &[RawShader]) -> Option<&RawShader> {
    shaders
        .iter()
        .find(|s| s.stage.as_deref().is_none_or(|stage| stage == "Compute"))
        .or(shaders.first())
}

fn dispatch_size(
    shader: Option<&RawShader>,
    parameters: Option<&RawDispatchParameters>,
) -> Result<[u32; 3], PipelineError> {
    let size = shader.and_then(|s| s.dispatch_size.as_ref()).map(|g| g.0);
    let count = parameters
        .and_then(|p| p.dispatch_group_count.as_ref())
        .map(|g| g.0);
    match (size, count) {
        (Some(size), Some(count)) if size != count => Err(PipelineError::new(format!(
            "dispatch sizes disagree: DispatchSize {size:?}, DispatchGroupCount {count:?}"
        ))),
        (Some(dispatch), _) | (None, Some(dispatch)) => Ok(dispatch),
        (None, None) => Err(PipelineError::new("no dispatch size")),
    }
}

fn check_unique_names(buffers: &[BufferDesc]) -> Result<(), PipelineError> {
    for (i, buffer) in buffers.iter().enumerate() {
        if buffers[..i].iter().any(|b| b.name == buffer.name) {
            return Err(PipelineError::new(format!(
                "duplicate buffer name `{}`",
                buffer.name
            )));
        }
    }
    Ok(())
}

fn require_buffer<'a>(
    buffers: &'a [BufferDesc],
    name: &str,
    user: impl FnOnce() -> String,
) -> Result<&'a BufferDesc, PipelineError> {
    buffers
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| PipelineError::new(format!("{}: no buffer named `{name}`", user())))
}

/// Flattens the descriptor sets, checking that each resource names a
/// buffer and that no register is bound twice.
fn bindings(
    sets: &[RawDescriptorSet],
    buffers: &[BufferDesc],
) -> Result<Vec<Binding>, PipelineError> {
    let mut bindings = Vec::new();
    let mut taken: HashMap<(char, u32, u32), String> = HashMap::new();
    for (set, descriptors) in sets.iter().enumerate() {
        for resource in &descriptors.resources {
            let buffer =
                require_buffer(buffers, &resource.name, || format!("descriptor set {set}"))?;
            let kind = resource.kind.0;
            if kind.is_texture() && buffer.output_props.is_none() {
                return Err(PipelineError::new(format!(
                    "descriptor set {set}: buffer `{}` is bound as a {kind} but has no OutputProps giving its Width, Height and Depth",
                    buffer.name
                )));
            }
            let binding = Binding {
                name: resource.name.clone(),
                kind,
                register: resource.directx_binding.register,
                space: resource.directx_binding.space,
                set,
                vulkan_binding: resource.vulkan_binding.as_ref().map(|v| v.binding),
            };
            let key = (
                binding.kind.register_class(),
                binding.register,
                binding.space,
            );
            if let Some(first) = taken.insert(key, binding.name.clone()) {
                return Err(PipelineError::new(format!(
                    "register {} is bound to both `{first}` and `{}`",
                    binding.register_name(),
                    binding.name
                )));
            }
            bindings.push(binding);
        }
    }
    Ok(bindings)
}

fn result_rule(raw: &RawResult, buffers: &[BufferDesc]) -> Result<ResultRule, PipelineError> {
    let fail = |message: String| PipelineError::new(format!("result `{}`: {message}", raw.result));
    let rule = match raw.rule.0 {
        RuleName::Exact => Rule::BufferExact,
        RuleName::FloatUlp => Rule::BufferFloatUlp {
            ulpt: raw
                .ulpt
                .ok_or_else(|| fail("BufferFloatULP needs ULPT".into()))?,
        },
        RuleName::FloatEpsilon => {
            let epsilon = raw
                .epsilon
                .ok_or_else(|| fail("BufferFloatEpsilon needs Epsilon".into()))?;
            if epsilon.is_nan() || epsilon < 0.0 {
                return Err(fail(format!(
                    "Epsilon {epsilon} is not a non-negative number"
                )));
            }
            Rule::BufferFloatEpsilon { epsilon }
        }
    };
    let user = || format!("result `{}`", raw.result);
    let actual = require_buffer(buffers, &raw.actual, user)?;
    let expected = require_buffer(buffers, &raw.expected, user)?;
    if let Some(problem) = format_problem(rule, actual, expected) {
        return Err(fail(problem));
    }
    Ok(ResultRule {
        name: raw.result.clone(),
        rule,
        actual: raw.actual.clone(),
        expected: raw.expected.clone(),
    })
}
