//! The compute entry point: `[numthreads]`, `[shader("compute")]`, the
//! system-value parameters and the D3D12 thread-group limits.

use lockstep_ir::{self as ir, ScalarType, SystemValue, Type};
use lockstep_syntax::{Span, ast};

use crate::context::Sema;

/// D3D12 limits: threads per group, and per dimension.
const MAX_GROUP_THREADS: u64 = 1024;
const MAX_DIMENSION: [u32; 3] = [1024, 1024, 64];

fn system_value(semantic: &str) -> Option<SystemValue> {
    Some(match semantic.to_ascii_lowercase().as_str() {
        "sv_dispatchthreadid" => SystemValue::DispatchThreadId,
        "sv_groupid" => SystemValue::GroupId,
        "sv_groupthreadid" => SystemValue::GroupThreadId,
        "sv_groupindex" => SystemValue::GroupIndex,
        _ => return None,
    })
}

impl Sema<'_> {
    pub fn lower_entry_point(&mut self) {
        let name = self.opts.entry.clone();
        let defined: Vec<usize> = self
            .functions
            .get(&name)
            .map(|list| {
                list.iter()
                    .copied()
                    .filter(|&i| self.fn_syms[i].defined)
                    .collect()
            })
            .unwrap_or_default();
        let Some(&idx) = defined.first() else {
            self.error(Span::default(), format!("missing entry point '{name}'"));
            return;
        };
        let decl = self.fn_syms[idx].decl.clone();
        if defined.len() > 1 {
            self.error(
                decl.name.span,
                format!("entry point '{name}' is overloaded"),
            );
            return;
        }
        if !self.is_void(self.fn_syms[idx].result) {
            self.error(
                decl.return_type.span,
                "compute entry point must return void",
            );
        }
        self.check_shader_attribute(&decl);
        let group_size = self.numthreads(&decl);
        let inputs = self.entry_inputs(&decl);
        let (Some(group_size), Some(inputs)) = (group_size, inputs) else {
            return;
        };
        let function = self.function_id(idx);
        self.module.entry = Some(ir::EntryPoint {
            function,
            name,
            group_size,
            inputs,
        });
    }

    fn check_shader_attribute(&mut self, decl: &ast::FunctionDecl) {
        for attr in &decl.attributes {
            let lower = attr.name.name.to_ascii_lowercase();
            match lower.as_str() {
                "shader" => {
                    let stage = attr.args.first().and_then(stage_name);
                    match stage {
                        Some(s) if s == "compute" => {}
                        Some(s) => self.error(
                            attr.span,
                            format!("entry point '{}' is compiled as a compute shader, but its shader attribute says '{s}'", decl.name.name),
                        ),
                        None => self.error(attr.span, "the shader attribute requires a stage name such as \"compute\""),
                    }
                }
                "numthreads" => {}
                _ => self.warning(
                    attr.name.span,
                    format!("attribute '{}' is ignored", attr.name.name),
                ),
            }
        }
    }

    fn numthreads(&mut self, decl: &ast::FunctionDecl) -> Option<[u32; 3]> {
        let Some(attr) = decl
            .attributes
            .iter()
            .find(|a| a.name.name.eq_ignore_ascii_case("numthreads"))
        else {
            self.error(
                decl.name.span,
                "compute entry point must have a numthreads attribute",
            );
            return None;
        };
        if attr.args.len() != 3 {
            self.error(
                attr.span,
                "the numthreads attribute requires exactly 3 arguments",
            );
            return None;
        }
        let mut size = [0u32; 3];
        for (i, arg) in attr.args.iter().enumerate() {
            let value = self.const_u32(arg, "numthreads argument")?;
            let axis = ["x", "y", "z"][i];
            if value == 0 || value > MAX_DIMENSION[i] {
                self.error(
                    arg.span,
                    format!(
                        "numthreads {axis} value {value} is out of range: must be between 1 and {}",
                        MAX_DIMENSION[i]
                    ),
                );
                return None;
            }
            size[i] = value;
        }
        let total: u64 = size.iter().map(|&v| u64::from(v)).product();
        if total > MAX_GROUP_THREADS {
            self.error(
                attr.span,
                format!(
                    "thread group size {} x {} x {} = {total} exceeds the maximum of {MAX_GROUP_THREADS} threads",
                    size[0], size[1], size[2]
                ),
            );
            return None;
        }
        Some(size)
    }

    fn entry_inputs(&mut self, decl: &ast::FunctionDecl) -> Option<Vec<SystemValue>> {
        let fn_id = self
            .fn_syms
            .iter()
            .find(|s| s.decl.span == decl.span)
            .and_then(|s| s.id);
        let mut inputs = Vec::new();
        let mut ok = true;
        for (i, p) in decl.params.iter().enumerate() {
            match self.entry_input(p, fn_id, i) {
                Some(sv) => inputs.push(sv),
                None => ok = false,
            }
        }
        ok.then_some(inputs)
    }

    fn entry_input(
        &mut self,
        p: &ast::Param,
        fn_id: Option<ir::FunctionId>,
        index: usize,
    ) -> Option<SystemValue> {
        let Some(semantic) = &p.semantic else {
            self.error(
                p.span,
                format!(
                    "entry point parameter '{}' must have a system-value semantic",
                    p.name.name
                ),
            );
            return None;
        };
        let Some(sv) = system_value(&semantic.name) else {
            self.error(
                semantic.span,
                format!(
                    "invalid semantic '{}' for a compute shader input",
                    semantic.name
                ),
            );
            return None;
        };
        if p.direction != ast::ParamDirection::In {
            self.error(p.span, "compute shader inputs cannot be 'out' or 'inout'");
            return None;
        }
        let ty = fn_id.and_then(|f| {
            self.module
                .functions
                .get(f.index())?
                .locals
                .get(index)
                .map(|l| l.ty)
        })?;
        let ok = match *self.get(ty) {
            Type::Scalar(s) => matches!(s, ScalarType::Int32 | ScalarType::UInt32),
            Type::Vector(s, n) => {
                matches!(s, ScalarType::Int32 | ScalarType::UInt32)
                    && n <= 3
                    && sv != SystemValue::GroupIndex
            }
            _ => false,
        };
        if !ok {
            let shown = self.show(ty);
            let allowed = if sv == SystemValue::GroupIndex {
                "uint"
            } else {
                "uint, uint2 or uint3"
            };
            self.error(
                p.span,
                format!(
                    "parameter with semantic '{}' must have type {allowed}, but has type '{shown}'",
                    semantic.name
                ),
            );
            return None;
        }
        Some(sv)
    }
}

/// The stage named by `[shader("compute")]`: a string literal, or an
/// identifier where the parser keeps it so.
fn stage_name(arg: &ast::Expr) -> Option<String> {
    match &arg.kind {
        ast::ExprKind::StringLit(s) => Some(s.to_ascii_lowercase()),
        ast::ExprKind::Ident(id) => Some(id.name.to_ascii_lowercase()),
        _ => None,
    }
}
