//! Lockstep's public API: compile an HLSL compute shader, bind a pipeline's
//! buffers to it, run the dispatch on the CPU with exact wave semantics, and
//! check the results.
//!
//! ```
//! use lockstep::{CompileOptions, MemoryLoader, RunOptions};
//!
//! let source = "RWStructuredBuffer<uint> Out : register(u0);\n\
//!               [numthreads(4, 1, 1)]\n\
//!               void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = WavePrefixSum(id.x); }\n";
//! let pipeline = lockstep::pipeline::parse(
//!     "Buffers:\n  - { Name: Out, Format: UInt32, FillSize: 16 }\n\
//!      DescriptorSets:\n  - Resources:\n    \
//!      - { Name: Out, Kind: RWStructuredBuffer, DirectXBinding: { Register: 0 } }\n",
//! )?;
//! let shader = lockstep::compile("s.hlsl", source, &CompileOptions::default(), &MemoryLoader::default())?;
//! let run = lockstep::run(&shader, &pipeline, &RunOptions::default())?;
//! // The exclusive prefix sums of the lane indices 0, 1, 2, 3.
//! assert_eq!(run.contents[0].as_ref(), [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0, 0, 0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod bind;
mod check;
mod contents;
#[cfg(feature = "vulkan")]
mod diff;
mod draw;
mod draw_check;
pub mod dxc;
mod image;
mod info;
pub mod offload;
mod pragma;
mod render;
mod spirv;
pub mod trace;
#[cfg(feature = "vulkan")]
mod vulkan;
#[cfg(feature = "vulkan")]
mod vulkan_draw;

pub use lockstep_exec as exec;
pub use lockstep_ir as ir;
pub use lockstep_pipeline as pipeline;
pub use lockstep_sema as sema;
pub use lockstep_syntax as syntax;
pub use lockstep_wave as wave;

pub use bind::{RunError, RunOptions, RunOutput, run};
pub use check::{
    CheckReport, ElementDiff, OrderIssue, PortabilityIssue, ReportedFinding, ResultFailure,
    Severity, SkippedSize, check, check_in_checked_mode, check_wave_sizes, run_checked,
};
pub use contents::BufferContents;
#[cfg(feature = "vulkan")]
pub use diff::{BufferDiff, DeviceElement, DiffOptions, DiffReport, diff, diff_draw};
pub use draw::{DrawError, draw, draw_packed};
pub use draw_check::{check_draw, draw_checked};
pub use image::texture_png;
pub use info::{BindingInfo, ShaderInfo, info};
pub use lockstep_exec::{Device, Engine, EngineReport, WavePreference, WaveSizeChoice};
pub use lockstep_raster as raster;
pub use lockstep_spirv as spirv_backend;
#[cfg(feature = "vulkan")]
pub use lockstep_vulkan as vulkan_device;
pub use offload::{
    FileCheck, FileCheckFn, TestFile, TestOptions, TestOutcome, TestSummary, eval_features,
    parse_test_file, run_test_file,
};
pub use pragma::Pragmas;
pub use render::{DiagnosticJson, LabelJson, diagnostics_json, render_diagnostics};
pub use spirv::emit_spirv;
pub use trace::{TraceDocument, TraceOptions, trace, trace_draw};
#[cfg(feature = "vulkan")]
pub use vulkan::{VulkanOptions, VulkanRun, run_vulkan};
#[cfg(feature = "vulkan")]
pub use vulkan_draw::draw_vulkan;

use lockstep_syntax::preprocess::{PreprocessOptions, SourceLoader};
use lockstep_syntax::{Diagnostic, Diagnostics, SourceMap};

/// How to compile a shader (DXC's flags).
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// `-E`: the entry point.
    pub entry: String,
    /// `-T cs_6_x`: the shader model.
    pub shader_model: (u32, u32),
    /// `-T`'s stage: `cs_`, `vs_` or `ps_`.
    pub stage: ir::Stage,
    /// `-enable-16bit-types`.
    pub enable_16bit_types: bool,
    /// `-D NAME[=VALUE]`.
    pub defines: Vec<(String, String)>,
    /// `-I DIR`, searched after the including file's directory.
    pub include_dirs: Vec<String>,
    /// `-Zpr`: matrices declared without `row_major`/`column_major` are
    /// row-major (`-Zpc`, column-major, is the default).
    pub row_major_default: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            entry: "main".to_string(),
            shader_model: (6, 10),
            stage: ir::Stage::Compute,
            enable_16bit_types: false,
            defines: Vec::new(),
            include_dirs: Vec::new(),
            row_major_default: false,
        }
    }
}

/// Puts the HLSL-written intrinsics the shader's files mention
/// ([`lockstep_sema::prelude`]) ahead of its declarations.
fn add_prelude(
    tu: &mut lockstep_syntax::ast::TranslationUnit,
    map: &mut SourceMap,
    pp: &PreprocessOptions,
    (sixteen_bit, derivatives, pixel): (bool, bool, bool),
    diags: &mut Diagnostics,
) -> Option<syntax::FileId> {
    // A function the shader defines itself takes the name: it is not
    // written again.
    let defined: std::collections::HashSet<&str> = tu
        .items
        .iter()
        .filter_map(|item| match item {
            lockstep_syntax::ast::Item::Function(f) => Some(f.name.name.as_str()),
            _ => None,
        })
        .collect();
    // The words of every file (runs of letters, digits and `_`): a name is
    // mentioned where it is one, in code, comments or strings alike.
    let words: std::collections::HashSet<&str> = map
        .files()
        .iter()
        .flat_map(|f| {
            f.text
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        })
        .filter(|w| !w.is_empty())
        .collect();
    let mentioned = |name: &str| !defined.contains(name) && words.contains(name);
    let text = lockstep_sema::prelude::source(mentioned, sixteen_bit, derivatives, pixel);
    if text.is_empty() {
        return None;
    }
    let id = map.add(lockstep_sema::prelude::FILE_NAME, &text, None);
    let prelude = lockstep_syntax::parser::parse_file(map, id, pp, &syntax::NoIncludes, diags);
    tu.items.splice(0..0, prelude.items);
    Some(id)
}

/// The stack of the thread that lowers and compiles a shader: room for the
/// deepest expression the parser accepts.
const COMPILE_STACK_BYTES: usize = 256 << 20;

/// Runs `work` on a thread whose stack holds the deepest expression the
/// parser accepts (or here, when no thread can be had).
fn on_compile_stack<T: Send>(work: &mut (dyn FnMut() -> T + Send)) -> T {
    let on_thread = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("lockstep-compile".into())
            .stack_size(COMPILE_STACK_BYTES)
            .spawn_scoped(scope, &mut *work)
            .ok()
            .map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
            })
    });
    match on_thread {
        Some(result) => result,
        None => work(),
    }
}

/// The highest shader model Lockstep knows.
pub const MAX_SHADER_MODEL: (u32, u32) = (6, 10);

/// Parses a compute `-T` profile such as `cs_6_5`.
pub fn parse_profile(profile: &str) -> Result<(u32, u32), String> {
    match parse_stage_profile(profile)? {
        (ir::Stage::Compute, sm) => Ok(sm),
        _ => Err(format!(
            "profile '{profile}' is not a compute profile: a dispatch runs a compute shader (cs_6_x)"
        )),
    }
}

/// Parses a `-T` profile of a stage Lockstep runs: `cs_6_5`, `vs_6_0`,
/// `ps_6_6`.
pub fn parse_stage_profile(profile: &str) -> Result<(ir::Stage, (u32, u32)), String> {
    let err = || {
        format!(
            "invalid profile '{profile}': expected cs_6_0 to cs_6_{0}, vs_6_0 to vs_6_{0} or ps_6_0 to ps_6_{0}",
            MAX_SHADER_MODEL.1
        )
    };
    let stage = [ir::Stage::Compute, ir::Stage::Vertex, ir::Stage::Pixel]
        .into_iter()
        .find(|s| profile.starts_with(&format!("{}_", s.prefix())));
    let Some(stage) = stage else {
        return Err(if profile.len() > 3 && profile.as_bytes()[2] == b'_' {
            format!(
                "profile '{profile}' is not a stage Lockstep runs: it runs compute (cs_6_x), vertex (vs_6_x) and pixel (ps_6_x) shaders"
            )
        } else {
            err()
        });
    };
    let rest = &profile[3..];
    let (major, minor) = rest.split_once('_').ok_or_else(err)?;
    let major: u32 = major.parse().map_err(|_| err())?;
    let minor: u32 = minor.parse().map_err(|_| err())?;
    if major != 6 || minor > MAX_SHADER_MODEL.1 {
        return Err(err());
    }
    Ok((stage, (major, minor)))
}

/// A compiled shader ready to run.
pub struct Shader {
    /// The shader in the IR, as the front end lowered it.
    pub module: ir::Module,
    /// The bytecode the engine runs.
    pub program: exec::Program,
    /// The source files the shader was compiled from, for diagnostics.
    pub source_map: SourceMap,
    /// What its `#pragma lockstep` directives said.
    pub pragmas: Pragmas,
    /// Warnings and notes from compiling (no errors).
    pub diagnostics: Vec<Diagnostic>,
}

/// Compilation failed: the diagnostics say why.
pub struct CompileError {
    /// The source files compiled, for rendering the diagnostics.
    pub source_map: SourceMap,
    /// Every diagnostic, errors included.
    pub diagnostics: Vec<Diagnostic>,
}

impl CompileError {
    /// Renders every diagnostic as a compiler does.
    pub fn render(&self, color: bool) -> String {
        render_diagnostics(&self.source_map, &self.diagnostics, color)
    }
}

/// The rendered diagnostics, without colour.
impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.render(false).trim_end())
    }
}

impl std::fmt::Debug for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CompileError({self})")
    }
}

impl std::error::Error for CompileError {}

/// Source text from a file's bytes, as DXC reads it: a UTF-8 byte-order
/// mark is dropped, and bytes that are not UTF-8 become U+FFFD, which is
/// harmless in comments and `#if 0` blocks and an error anywhere else.
pub fn decode_source(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    String::from_utf8_lossy(bytes).into_owned()
}

/// Reads included files from the file system, decoded with
/// [`decode_source`].
#[derive(Clone, Copy, Debug, Default)]
pub struct FsLoader;

impl SourceLoader for FsLoader {
    fn load(&self, path: &str) -> Option<String> {
        let path = std::path::Path::new(path);
        if !path.is_file() {
            return None;
        }
        std::fs::read(path).ok().map(|bytes| decode_source(&bytes))
    }
}

/// Reads included files from a map of path → text (for tests and embedders
/// without a file system).
#[derive(Clone, Debug, Default)]
pub struct MemoryLoader {
    /// Each file's text, keyed by the path the preprocessor looks it up by.
    pub files: std::collections::HashMap<String, String>,
}

impl SourceLoader for MemoryLoader {
    fn load(&self, path: &str) -> Option<String> {
        self.files.get(path).cloned()
    }
}

/// Compiles HLSL source text. `name` is the file name diagnostics print;
/// `#include`s are read through `loader`.
pub fn compile(
    name: &str,
    source: &str,
    opts: &CompileOptions,
    loader: &dyn SourceLoader,
) -> Result<Shader, CompileError> {
    let source = source.strip_prefix('\u{feff}').unwrap_or(source);
    let mut map = SourceMap::new();
    let main = map.add(name, source, None);
    let mut diags = Diagnostics::default();
    let mut defines = opts.defines.clone();
    if opts.enable_16bit_types {
        defines.insert(0, ("__HLSL_ENABLE_16_BIT".to_string(), "1".to_string()));
    }
    let pp = PreprocessOptions {
        defines,
        include_dirs: opts.include_dirs.clone(),
        shader_model: opts.shader_model,
        stage: match opts.stage {
            ir::Stage::Compute => "COMPUTE",
            ir::Stage::Vertex => "VERTEX",
            ir::Stage::Pixel => "PIXEL",
        },
    };
    let mut tu = lockstep_syntax::parser::parse_file(&mut map, main, &pp, loader, &mut diags);
    let fail = |map: SourceMap, diags: Diagnostics| CompileError {
        source_map: map,
        diagnostics: diags.items,
    };
    if diags.has_errors() {
        return Err(fail(map, diags));
    }
    // Pixel shaders take derivatives over quads, compute shaders from SM
    // 6.6.
    let pixel = opts.stage == ir::Stage::Pixel;
    // A vertex shader gets them too, and an error where it calls them.
    let derivatives = opts.stage != ir::Stage::Compute || opts.shader_model >= (6, 6);
    let library = add_prelude(
        &mut tu,
        &mut map,
        &pp,
        (opts.enable_16bit_types, derivatives, pixel),
        &mut diags,
    );
    if diags.has_errors() {
        return Err(fail(map, diags));
    }
    let sema_opts = lockstep_sema::CompileOptions {
        entry: opts.entry.clone(),
        shader_model: opts.shader_model,
        enable_16bit_types: opts.enable_16bit_types,
        stage: opts.stage,
        row_major_default: opts.row_major_default,
    };
    // Lowering and code generation recurse once per level of expression
    // nesting: they run on a thread whose stack holds the deepest nesting
    // the parser accepts, whatever the caller's stack.
    let mut work = || {
        let mut module = lockstep_sema::lower(&tu, &map, &sema_opts, &mut diags)
            .filter(|_| !diags.has_errors())?;
        for f in &mut module.functions {
            f.library = library.is_some_and(|id| id.0 == f.span.file);
        }
        let program = exec::Program::compile(&module);
        Some((module, program))
    };
    let lowered = on_compile_stack(&mut work);
    let Some((module, program)) = lowered else {
        return Err(fail(map, diags));
    };
    let pragmas = pragma::read(&tu.pragmas, &module, &mut diags);
    let program = match program {
        Ok(p) => p,
        Err(e) => {
            let span = e
                .span
                .map(|s| syntax::Span::new(syntax::FileId(s.file), s.start, s.end))
                .unwrap_or_default();
            let mut d = Diagnostic::error(span, e.message);
            d.notes = e.notes;
            diags.push(d);
            return Err(fail(map, diags));
        }
    };
    let shader = Shader {
        module,
        program,
        source_map: map,
        pragmas,
        diagnostics: diags.items,
    };
    Ok(shader)
}
