//! A compiled shader as SPIR-V for Vulkan (see `lockstep_spirv`), with what
//! the back end cannot express reported as a diagnostic at its source.

use lockstep_spirv::{Options, Spirv};
use lockstep_syntax::{self as syntax, Diagnostic};

use crate::{CompileError, Shader};

/// Emits `shader`'s compute entry point as a SPIR-V module.
pub fn emit_spirv(shader: &Shader, options: &Options) -> Result<Spirv, CompileError> {
    let module = &shader.module;
    let mut work = || lockstep_spirv::emit(module, options);
    crate::on_compile_stack(&mut work).map_err(|e| {
        let span = e
            .span
            .map(|s| syntax::Span::new(syntax::FileId(s.file), s.start, s.end))
            .unwrap_or_default();
        CompileError {
            source_map: shader.source_map.clone(),
            diagnostics: vec![Diagnostic::error(
                span,
                format!("cannot emit SPIR-V: {}", e.message),
            )],
        }
    })
}
