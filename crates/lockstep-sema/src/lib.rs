//! The HLSL type checker: resolves names, types, overloads and intrinsics of
//! a parsed translation unit and lowers it to the typed IR of `lockstep-ir`.
//!
//! Every type error becomes a [`Diagnostic`](lockstep_syntax::Diagnostic);
//! [`lower`] returns `None` when an error was reported. No input panics:
//! deep nesting is cut off by a depth limit with a diagnostic.

#![warn(missing_docs)]

mod access;
mod bindings;
mod call;
mod context;
mod convert;
mod dynamic;
mod entry;
mod expr;
mod fold;
mod func;
mod globals;
mod graphics;
mod init;
mod intrinsics;
mod ops;
pub mod prelude;
mod resource;
mod sample;
mod specialize;
mod stmt;
mod templates;
mod texture;
mod types;

use lockstep_syntax::{Diagnostics, SourceMap, ast};

pub use sample::{SAMPLER_STATE, SamplerField};

/// How to compile: the entry point, the shader-model profile and the
/// language options that change types.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    /// The name of the entry function (`-E`).
    pub entry: String,
    /// The profile's shader model (`-T cs_6_5` is `(6, 5)`).
    pub shader_model: (u32, u32),
    /// `-enable-16bit-types`: `half` is binary16 and 16-bit integers exist.
    pub enable_16bit_types: bool,
    /// The profile's stage (`cs_`, `vs_`, `ps_`).
    pub stage: lockstep_ir::Stage,
    /// `-Zpr`: matrices declared without `row_major`/`column_major` are
    /// row-major.
    pub row_major_default: bool,
}

impl Default for CompileOptions {
    fn default() -> CompileOptions {
        CompileOptions {
            entry: "main".to_string(),
            shader_model: (6, 10),
            enable_16bit_types: false,
            stage: lockstep_ir::Stage::Compute,
            row_major_default: false,
        }
    }
}

/// Checks the translation unit and lowers it. Returns None when an error was
/// reported.
pub fn lower(
    tu: &ast::TranslationUnit,
    map: &SourceMap,
    opts: &CompileOptions,
    diags: &mut Diagnostics,
) -> Option<lockstep_ir::Module> {
    let errors_before = diags.items.iter().filter(|d| d.is_error()).count();
    let mut sema = context::Sema::new(opts, diags);
    sema.num_waves = entry::declared_num_waves(tu, &opts.entry);
    sema.library_file = map
        .files()
        .iter()
        .position(|f| f.name == prelude::FILE_NAME)
        .map(|i| i as u32);
    if opts.stage == lockstep_ir::Stage::Pixel {
        sema.declare_helper();
    }
    for item in &tu.items {
        sema.lower_item(item);
    }
    let module = sema.finish();
    let errors_after = diags.items.iter().filter(|d| d.is_error()).count();
    (errors_after == errors_before).then_some(module)
}
