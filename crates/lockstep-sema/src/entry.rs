//! The compute entry point: `[numthreads]` or `[numWaves]`, `[WaveSize]`,
//! `[shader("compute")]`, the system-value parameters and the D3D12
//! thread-group limits.

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
            self.missing_entry_point(&name);
            return;
        };
        let decl = self.fn_syms[idx].decl;
        if defined.len() > 1 {
            self.error(
                decl.name.span,
                format!("entry point '{name}' is overloaded"),
            );
            return;
        }
        let root = self.function_id(idx);
        self.check_stage_features(root);
        if self.opts.stage != ir::Stage::Compute {
            self.lower_graphics_entry(idx);
            return;
        }
        if !self.is_void(self.fn_syms[idx].result) {
            let d = lockstep_syntax::Diagnostic::error(
                decl.return_type.span,
                "compute entry point must return void",
            );
            // A vertex or pixel shader compiled as the default compute one.
            let d =
                match decl.semantic.is_some() || decl.params.iter().any(|p| p.semantic.is_some()) {
                    true => d.with_note(
                        "for a vertex or pixel shader, give its profile: -T vs_6_0 or -T ps_6_0",
                    ),
                    false => d,
                };
            self.push(d);
        }
        self.check_shader_attribute(decl);
        let wave_size = self.wave_size_attribute(decl);
        let group = self.group_shape(decl);
        let inputs = self.entry_inputs(decl);
        let (Some(group), Some(inputs)) = (group, inputs) else {
            return;
        };
        if let ir::GroupShape::Waves(_) = group {
            self.check_num_waves_inputs(&inputs);
        }
        let Some(wave_size) = wave_size else {
            return;
        };
        let inputs = inputs.into_iter().map(|(input, _)| input).collect();
        let function = self.function_id(idx);
        self.check_derivative_group(function, group, decl.name.span);
        // SM 6.6 defines compute quads in group-thread space, for the quad
        // operations and derivatives; a shader with none keeps the lanes in
        // group-index order.
        let quads = match group {
            ir::GroupShape::Threads([x, y, _])
                if self.opts.shader_model >= (6, 6)
                    && x % 2 == 0
                    && y % 2 == 0
                    && self.uses_quads(function) =>
            {
                ir::QuadLayout::Blocks
            }
            _ => ir::QuadLayout::Linear,
        };
        let wave_size_span = decl
            .attributes
            .iter()
            .find(|a| a.name.name.eq_ignore_ascii_case("WaveSize"))
            .map(|a| crate::context::ir_span(a.span));
        self.module.entry = Some(ir::EntryPoint {
            function,
            name,
            group,
            wave_size,
            wave_size_span,
            inputs,
            quads,
            stage: ir::Stage::Compute,
            io: None,
        });
    }

    /// Derivatives that the entry point reaches, in a compute shader (SM
    /// 6.6), need quads: numthreads X and Y even, or X a multiple of 4 with
    /// Y = Z = 1. (Functions it never calls do not count, nor the library's
    /// explicit-LOD samples beside an implicit one.)
    /// Whether the entry point reaches a quad operation or a derivative.
    fn uses_quads(&self, entry: ir::FunctionId) -> bool {
        use ir::WaveOp as W;
        self.reachable(entry)
            .into_iter()
            .filter_map(|id| self.module.functions.get(id.index()))
            .any(|f| {
                let mut quad = takes_derivatives(&f.name);
                ir::walk::each_expr(&f.body, &mut |e| {
                    quad |= matches!(
                        e.kind,
                        ir::ExprKind::Wave(
                            W::QuadReadAcrossX
                                | W::QuadReadAcrossY
                                | W::QuadReadAcrossDiagonal
                                | W::QuadReadLaneAt
                                | W::QuadAny
                                | W::QuadAll,
                            _
                        )
                    );
                });
                quad
            })
    }

    fn check_derivative_group(
        &mut self,
        entry: ir::FunctionId,
        group: ir::GroupShape,
        at: lockstep_syntax::Span,
    ) {
        let uses = self
            .reachable(entry)
            .into_iter()
            .filter_map(|id| self.module.functions.get(id.index()))
            .any(|f| takes_derivatives(&f.name) && self.opts.shader_model >= (6, 6));
        // Derivatives in a compute shader are SM 6.6's.
        if uses {
            self.require_shader_model((6, 6));
        }
        let ir::GroupShape::Threads([x, y, z]) = group else {
            return;
        };
        if (x % 2 == 0 && y % 2 == 0) || (x % 4 == 0 && y == 1 && z == 1) {
            return;
        }
        if uses {
            self.error(
                at,
                format!(
                    "this shader takes derivatives (ddx, ddy, fwidth or an implicit-LOD Sample), which need quads: numthreads({x}, {y}, {z}) makes none (X and Y must be even, or X a multiple of 4 with Y = Z = 1)"
                ),
            );
        }
    }

    /// No function is called `name`: the error lists the defined functions
    /// that could be meant, those with `[numthreads]` or `[numWaves]`
    /// first.
    fn missing_entry_point(&mut self, name: &str) {
        let mut marked = Vec::new();
        let mut others = Vec::new();
        // The functions of the file, not the library's.
        let library = self.library_file;
        for sym in self.fn_syms.iter().filter(|s| s.defined) {
            let decl = sym.decl;
            if library == Some(decl.span.file.0) {
                continue;
            }
            let launches = decl.attributes.iter().any(|a| {
                a.name.name.eq_ignore_ascii_case("numthreads")
                    || a.name.name.eq_ignore_ascii_case("numWaves")
            });
            let list = if launches { &mut marked } else { &mut others };
            if !list.contains(&decl.name.name) {
                list.push(decl.name.name.clone());
            }
        }
        let mut d = lockstep_syntax::Diagnostic::error(
            Span::default(),
            format!("missing entry point '{name}'"),
        );
        d = match (marked.as_slice(), others.as_slice()) {
            ([one], _) => d.with_note(format!(
                "'{one}' has [numthreads]: compile with -E {one}, or name it in the pipeline's Entry"
            )),
            ([], []) => d.with_note("the file defines no function"),
            ([], _) => d.with_note(format!(
                "no function has [numthreads]; the file defines {} (a vertex or pixel shader needs its profile, -T vs_6_0 or -T ps_6_0)",
                others.join(", ")
            )),
            _ => d.with_note(format!(
                "the functions with [numthreads] are {}: choose one with -E",
                marked.join(", ")
            )),
        };
        self.push(d);
    }

    /// `[numthreads(x, y, z)]` or `[numWaves(n)]`, exactly one of them.
    fn group_shape(&mut self, decl: &ast::FunctionDecl) -> Option<ir::GroupShape> {
        let find = |name: &str| {
            decl.attributes
                .iter()
                .find(|a| a.name.name.eq_ignore_ascii_case(name))
        };
        match (find("numthreads"), find("numWaves")) {
            (Some(_), Some(waves)) => {
                self.error(waves.span, "'numWaves' and 'numthreads' cannot both be specified: a group is launched either as threads or as waves");
                None
            }
            (None, Some(waves)) => self.num_waves_attribute(waves).map(ir::GroupShape::Waves),
            _ => self.numthreads(decl).map(ir::GroupShape::Threads),
        }
    }

    fn num_waves_attribute(&mut self, attr: &ast::Attribute) -> Option<u32> {
        if !self.check_shader_model("numWaves", (6, 10), attr.span) {
            return None;
        }
        let [arg] = attr.args.as_slice() else {
            self.error(
                attr.span,
                "the numWaves attribute requires exactly 1 argument",
            );
            return None;
        };
        let value = self.const_u32(arg, "numWaves argument")?;
        if value == 0 || u64::from(value) > MAX_GROUP_THREADS / 4 {
            self.error(
                arg.span,
                format!("numWaves value {value} is out of range: it must be an integer greater than zero, and at most {} (1024 threads at wave size 4)", MAX_GROUP_THREADS / 4),
            );
            return None;
        }
        Some(value)
    }

    /// Under `[numWaves]` the thread-based system values do not exist.
    fn check_num_waves_inputs(&mut self, inputs: &[(ir::EntryInput, ast::Ident)]) {
        for (input, semantic) in inputs {
            if input.value == SystemValue::GroupId {
                continue;
            }
            self.push(
                lockstep_syntax::Diagnostic::error(semantic.span, format!("'{}' cannot be used in a shader with the numWaves attribute", semantic.name))
                    .with_note("use SV_GroupID, GetGroupWaveIndex() and WaveGetLaneIndex() to locate the work instead"),
            );
        }
    }

    /// `[WaveSize(n)]` (SM 6.6) or `[WaveSize(min, max[, preferred])]`
    /// (SM 6.8). `Some(None)` when absent; `None` after an error.
    fn wave_size_attribute(
        &mut self,
        decl: &ast::FunctionDecl,
    ) -> Option<Option<ir::WaveSizeRange>> {
        let Some(attr) = decl
            .attributes
            .iter()
            .find(|a| a.name.name.eq_ignore_ascii_case("WaveSize"))
        else {
            return Some(None);
        };
        let sm = if attr.args.len() == 1 { (6, 6) } else { (6, 8) };
        let shown = if attr.args.len() == 1 {
            "WaveSize"
        } else {
            "WaveSize(min, max)"
        };
        if !self.check_shader_model(shown, sm, attr.span) {
            return None;
        }
        if !(1..=3).contains(&attr.args.len()) {
            self.error(
                attr.span,
                "the WaveSize attribute requires 1 to 3 arguments",
            );
            return None;
        }
        let mut values = Vec::new();
        for arg in &attr.args {
            let v = self.const_u32(arg, "WaveSize argument")?;
            if !(4..=128).contains(&v) || !v.is_power_of_two() {
                self.error(
                    arg.span,
                    format!(
                        "WaveSize value {v} is invalid: it must be a power of two from 4 to 128"
                    ),
                );
                return None;
            }
            values.push(v);
        }
        let range = match values[..] {
            [n] => ir::WaveSizeRange {
                min: n,
                max: n,
                preferred: None,
            },
            [min, max] => ir::WaveSizeRange {
                min,
                max,
                preferred: None,
            },
            [min, max, preferred] => ir::WaveSizeRange {
                min,
                max,
                preferred: Some(preferred),
            },
            _ => return None,
        };
        if values.len() > 1 && range.min >= range.max {
            self.error(
                attr.span,
                format!(
                    "minimum WaveSize value {} must be less than maximum WaveSize value {}",
                    range.min, range.max
                ),
            );
            return None;
        }
        if let Some(p) = range.preferred
            && !(range.min..=range.max).contains(&p)
        {
            self.error(
                attr.span,
                format!(
                    "WaveSize preferred value {p} is outside the range {} to {}",
                    range.min, range.max
                ),
            );
            return None;
        }
        Some(Some(range))
    }

    fn check_shader_attribute(&mut self, decl: &ast::FunctionDecl) {
        // The group's shape and wave size are given once: a second one
        // (conflicting or not) is an error, not silently dropped.
        let mut seen: Vec<(String, Span)> = Vec::new();
        for attr in &decl.attributes {
            let lower = attr.name.name.to_ascii_lowercase();
            if matches!(lower.as_str(), "numthreads" | "numwaves" | "wavesize") {
                if let Some((_, first)) = seen.iter().find(|(n, _)| *n == lower) {
                    let d = lockstep_syntax::Diagnostic::error(
                        attr.span,
                        format!("attribute '{}' is given more than once", attr.name.name),
                    )
                    .with_label(*first, "first given here");
                    self.push(d);
                } else {
                    seen.push((lower.clone(), attr.span));
                }
            }
        }
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
                "numthreads" | "numwaves" | "wavesize" => {}
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

    /// The system value of each parameter, or of each field of a struct
    /// parameter, with the semantic that names it.
    fn entry_inputs(
        &mut self,
        decl: &ast::FunctionDecl,
    ) -> Option<Vec<(ir::EntryInput, ast::Ident)>> {
        let fn_id = self
            .fn_syms
            .iter()
            .find(|s| s.decl.span == decl.span)
            .and_then(|s| s.id);
        let mut inputs = Vec::new();
        let mut ok = true;
        for (i, p) in decl.params.iter().enumerate() {
            ok &= self.entry_param(p, fn_id, i, &mut inputs).is_some();
        }
        ok.then_some(inputs)
    }

    /// The inputs of one entry parameter: itself, or the fields of its
    /// struct type, each with a system-value semantic.
    fn entry_param(
        &mut self,
        p: &ast::Param,
        fn_id: Option<ir::FunctionId>,
        index: usize,
        inputs: &mut Vec<(ir::EntryInput, ast::Ident)>,
    ) -> Option<()> {
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
        let param = index as u32;
        if let Some(semantic) = &p.semantic {
            let value = self.entry_value(semantic, ty, p.span)?;
            let components = self.module.types.component_count(ty);
            let input = ir::EntryInput {
                value,
                param,
                component: 0,
                components,
            };
            inputs.push((input, semantic.clone()));
            return Some(());
        }
        let Type::Struct { members, .. } = self.get(ty).clone() else {
            self.error(
                p.span,
                format!(
                    "entry point parameter '{}' must have a system-value semantic",
                    p.name.name
                ),
            );
            return None;
        };
        let semantics = self.member_semantics.get(&ty).cloned().unwrap_or_default();
        let mut component = 0;
        for (member, semantic) in members.iter().zip(semantics.iter()) {
            let components = self.module.types.component_count(member.ty);
            let Some(semantic) = semantic else {
                self.error(
                    p.span,
                    format!(
                        "field '{}' of entry point parameter '{}' must have a system-value semantic",
                        member.name, p.name.name
                    ),
                );
                return None;
            };
            let value = self.entry_value(semantic, member.ty, semantic.span)?;
            inputs.push((
                ir::EntryInput {
                    value,
                    param,
                    component,
                    components,
                },
                semantic.clone(),
            ));
            component += components;
        }
        Some(())
    }

    /// The system value `semantic` names, checked against the type that
    /// receives it.
    fn entry_value(
        &mut self,
        semantic: &ast::Ident,
        ty: ir::TypeId,
        span: Span,
    ) -> Option<SystemValue> {
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
                span,
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

/// Whether the library function `name` takes derivatives: `ddx` and its
/// kin, and the implicit-LOD samples.
pub(crate) fn takes_derivatives(name: &str) -> bool {
    matches!(
        name,
        "ddx" | "ddy" | "ddx_coarse" | "ddy_coarse" | "ddx_fine" | "ddy_fine" | "fwidth"
    ) || [
        "__lockstep_sample_2d",
        "__lockstep_sample_bias_",
        "__lockstep_calculate_lod",
    ]
    .iter()
    .any(|p| name.starts_with(p))
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

/// The `[numWaves(n)]` of the entry point `entry`, when written with a
/// literal: read before the rest of the file is checked, so that
/// `GetGroupWaveCount()` is a constant everywhere.
pub(crate) fn declared_num_waves(tu: &ast::TranslationUnit, entry: &str) -> Option<u32> {
    tu.items.iter().find_map(|item| match item {
        ast::Item::Function(f) if f.name.name == entry && f.body.is_some() => f
            .attributes
            .iter()
            .find(|a| a.name.name.eq_ignore_ascii_case("numWaves"))
            .and_then(|a| match a.args.as_slice() {
                [
                    ast::Expr {
                        kind: ast::ExprKind::IntLit { value, .. },
                        ..
                    },
                ] => u32::try_from(*value).ok().filter(|&n| n > 0),
                _ => None,
            }),
        _ => None,
    })
}
