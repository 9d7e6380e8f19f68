//! Vertex and pixel entry points: their semantics and interpolation
//! modifiers, `discard` and `IsHelperLane`, and the entry function that
//! moves each lane's values between the stage's records and the shader's
//! parameters (`ir::StageIo`).

use lockstep_ir::{
    self as ir, Access, CallArg, Expr, ExprKind, Interpolation, Place, PlaceRoot, Scalar,
    ScalarType, Stage, Stmt, Type, TypeId, Varying, VaryingKind,
};
use lockstep_syntax::{Span, ast};

use crate::context::{Sema, TExpr, ir_span};

/// One scalar or vector the entry point reads or writes, inside a
/// parameter or the result.
struct Leaf {
    /// Field indices from the parameter's (or result's) type.
    path: Vec<u32>,
    scalar: ScalarType,
    components: u32,
    semantic: ast::Ident,
    modifiers: Vec<String>,
}

fn interpolation(modifiers: &[String], scalar: ScalarType) -> Interpolation {
    let has = |m: &str| modifiers.iter().any(|x| x.eq_ignore_ascii_case(m));
    if has("nointerpolation") || !scalar.is_float() {
        Interpolation::NoInterpolation
    } else if has("noperspective") {
        Interpolation::NoPerspective
    } else if has("centroid") {
        Interpolation::Centroid
    } else {
        Interpolation::Linear
    }
}

impl Sema<'_> {
    /// A pixel shader's helper flag, a `static bool` every lane of the
    /// entry function sets first.
    pub fn declare_helper(&mut self) {
        let ty = self.scalar(ScalarType::Bool);
        for (name, slot) in [
            ("IsHelperLane", &mut self.helper),
            ("discarded", &mut self.discarded),
        ] {
            let id = ir::StaticId(self.module.statics.len() as u32);
            self.module.statics.push(ir::Variable {
                name: name.to_string(),
                ty,
                span: ir::Span::default(),
            });
            *slot = Some(id);
        }
    }

    fn helper_place(&mut self, id: ir::StaticId) -> Place {
        Place {
            root: PlaceRoot::Static(id),
            path: Vec::new(),
            ty: self.scalar(ScalarType::Bool),
        }
    }

    /// `discard;`: the lane becomes a helper lane (it goes on running for
    /// its quad's derivatives, and writes nothing).
    pub fn lower_discard(&mut self, span: Span, out: &mut Vec<Stmt>) {
        let Some(id) = self.helper else {
            // Reported if the entry point reaches it: a file may hold the
            // shaders of several stages.
            match &self.fcx {
                Some(f) => self.discards.push((f.id, span)),
                None => self.error(span, "'discard' outside a function"),
            }
            return;
        };
        for flag in [Some(id), self.discarded].into_iter().flatten() {
            let place = self.helper_place(flag);
            let value = self.bool_const(true, span);
            out.push(self.assign(place, value, span));
        }
    }

    /// The functions `root` calls, directly or not, itself included.
    pub(crate) fn reachable(
        &self,
        root: ir::FunctionId,
    ) -> std::collections::HashSet<ir::FunctionId> {
        let mut seen = std::collections::HashSet::from([root]);
        let mut stack = vec![root];
        while let Some(f) = stack.pop() {
            for &(callee, _) in self.call_graph.get(&f).map(Vec::as_slice).unwrap_or(&[]) {
                if seen.insert(callee) {
                    stack.push(callee);
                }
            }
        }
        seen
    }

    /// What the entry point's stage lacks, where the entry point reaches
    /// it: `discard` outside pixel shaders, derivatives in vertex shaders.
    pub(crate) fn check_stage_features(&mut self, root: ir::FunctionId) {
        let stage = self.opts.stage;
        let reached = self.reachable(root);
        let library = |s: &Self, f: ir::FunctionId| {
            s.library_file == Some(s.module.functions[f.index()].span.file)
        };
        let discards: Vec<Span> = self
            .discards
            .iter()
            .filter(|&&(f, _)| reached.contains(&f) && !library(self, f))
            .map(|&(_, span)| span)
            .collect();
        for span in discards {
            self.error(
                span,
                format!(
                    "'discard' is only allowed in pixel shaders, and this is a {} shader",
                    stage.name()
                ),
            );
        }
        if stage == Stage::Pixel {
            return;
        }
        // Library functions the shader calls, at their calls.
        let mut calls = Vec::new();
        for &caller in &reached {
            if library(self, caller) {
                continue;
            }
            for &(callee, span) in self
                .call_graph
                .get(&caller)
                .map(Vec::as_slice)
                .unwrap_or(&[])
            {
                let name = &self.module.functions[callee.index()].name;
                let derivative = stage == Stage::Vertex && crate::entry::takes_derivatives(name);
                let pixels_only = name.starts_with("EvaluateAttribute")
                    || name.starts_with("GetRenderTargetSample");
                if derivative || name == "clip" || pixels_only {
                    calls.push((span, name.clone()));
                }
            }
        }
        calls.sort_by_key(|(span, _)| (span.file, span.start));
        for (span, name) in calls {
            let message = match name.as_str() {
                "clip" => format!(
                    "'clip' discards the pixel, and only pixel shaders have pixels; this is a {} shader",
                    stage.name()
                ),
                n if n.starts_with("EvaluateAttribute") || n.starts_with("GetRenderTargetSample") => format!(
                    "'{n}' reads the samples of a pixel, and only pixel shaders have pixels; this is a {} shader",
                    stage.name()
                ),
                n if n.starts_with("__lockstep_sample") => "an implicit-LOD Sample takes derivatives, which vertex shaders do not have (use SampleLevel, or move it to the pixel shader)".to_string(),
                n if n.starts_with("__lockstep_calculate_lod") => "'CalculateLevelOfDetail' takes derivatives, which vertex shaders do not have (move it to the pixel shader)".to_string(),
                n => format!("'{n}' takes derivatives, which vertex shaders do not have (use SampleLevel, or move it to the pixel shader)"),
            };
            self.error(span, message);
        }
    }

    /// `IsHelperLane()` in a pixel shader.
    pub fn is_helper_lane(&mut self, span: Span) -> Option<TExpr> {
        let id = self.helper?;
        let place = self.helper_place(id);
        let ty = place.ty;
        Some(TExpr::new(ExprKind::Load(place), ty, span))
    }

    fn bool_const(&mut self, value: bool, span: Span) -> Expr {
        let ty = self.scalar(ScalarType::Bool);
        self.wrap(
            ExprKind::Const(vec![Scalar {
                ty: ScalarType::Bool,
                bits: u64::from(value),
            }]),
            ty,
            span,
        )
    }

    /// The entry point of a vertex or pixel shader: checks its semantics
    /// and writes the entry function that runs it over records.
    pub(crate) fn lower_graphics_entry(&mut self, idx: usize) {
        let stage = self.opts.stage;
        let decl = self.fn_syms[idx].decl;
        for attr in &decl.attributes {
            let name = attr.name.name.to_ascii_lowercase();
            let pixel_only = matches!(
                name.as_str(),
                "earlydepthstencil" | "waveopsincludehelperlanes"
            );
            if pixel_only && stage != Stage::Pixel {
                self.error(
                    attr.span,
                    format!(
                        "'{}' applies to pixel shaders, and this is a {} shader",
                        attr.name.name,
                        stage.name()
                    ),
                );
                return;
            }
            if matches!(name.as_str(), "numthreads" | "numwaves" | "wavesize") {
                self.error(
                    attr.span,
                    format!(
                        "'{}' applies to compute shaders, and this is a {} shader",
                        attr.name.name,
                        stage.name()
                    ),
                );
                return;
            }
            if name == "waveopsincludehelperlanes"
                && !self.check_shader_model(&attr.name.name, (6, 7), attr.span)
            {
                return;
            }
            if !matches!(
                name.as_str(),
                "earlydepthstencil" | "shader" | "waveopsincludehelperlanes"
            ) {
                self.warning(
                    attr.name.span,
                    format!("attribute '{}' is ignored", attr.name.name),
                );
            }
        }
        let user = self.function_id(idx);
        let params: Vec<(TypeId, ir::ParamDirection)> = self.fn_syms[idx]
            .params
            .iter()
            .map(|p| (p.ty, p.dir))
            .collect();
        let result = self.fn_syms[idx].result;
        let mut inputs: Vec<(usize, Leaf)> = Vec::new();
        let mut outputs: Vec<(Option<usize>, Leaf)> = Vec::new();
        let mut ok = true;
        for (i, (p, &(ty, dir))) in decl.params.iter().zip(&params).enumerate() {
            let modifiers: Vec<String> = p.modifiers.iter().map(|m| m.name.clone()).collect();
            let mut leaves = Vec::new();
            ok &= self.leaves(
                ty,
                p.semantic.as_ref(),
                &modifiers,
                &mut Vec::new(),
                p.span,
                &p.name.name,
                &mut leaves,
            );
            match dir {
                ir::ParamDirection::In => inputs.extend(leaves.into_iter().map(|l| (i, l))),
                ir::ParamDirection::Out => {
                    outputs.extend(leaves.into_iter().map(|l| (Some(i), l)));
                }
                ir::ParamDirection::InOut => {
                    self.error(
                        p.span,
                        format!(
                            "entry point parameter '{}' cannot be 'inout': write 'in' and 'out' parameters",
                            p.name.name
                        ),
                    );
                    ok = false;
                }
            }
        }
        if !self.is_void(result) {
            let mut leaves = Vec::new();
            ok &= self.leaves(
                result,
                decl.semantic.as_ref(),
                &[],
                &mut Vec::new(),
                decl.return_type.span,
                "the result",
                &mut leaves,
            );
            outputs.extend(leaves.into_iter().map(|l| (None, l)));
        }
        if !ok {
            return;
        }
        let Some(in_vars) = self.varyings(stage, true, inputs.iter().map(|(_, l)| l)) else {
            return;
        };
        let Some(out_vars) = self.varyings(stage, false, outputs.iter().map(|(_, l)| l)) else {
            return;
        };
        if stage == Stage::Vertex && !out_vars.iter().any(|v| v.semantic == "SV_POSITION") {
            self.error(
                decl.name.span,
                "a vertex shader must write SV_Position: the rasterizer needs each vertex's clip-space position",
            );
            return;
        }
        if stage == Stage::Pixel && out_vars.is_empty() {
            self.warning(
                decl.name.span,
                "this pixel shader writes no SV_Target: the render target stays cleared",
            );
        }
        let words = |vars: &[Varying]| 1 + vars.iter().map(|v| v.components).sum::<u32>();
        let (input_words, output_words) = (words(&in_vars), words(&out_vars));
        let io = ir::StageIo {
            input: self.stage_buffer(
                "$StageIn",
                ir::ResourceKind::StructuredBuffer,
                input_words,
                decl.span,
            ),
            output: self.stage_buffer(
                "$StageOut",
                ir::ResourceKind::RWStructuredBuffer,
                output_words,
                decl.span,
            ),
            input_words,
            output_words,
            inputs: in_vars,
            outputs: out_vars,
            helper: self.helper,
            discarded: self.discarded,
            early_depth: stage == Stage::Pixel
                && decl
                    .attributes
                    .iter()
                    .any(|a| a.name.name.eq_ignore_ascii_case("earlydepthstencil")),
            wave_ops_include_helpers: stage == Stage::Pixel
                && decl.attributes.iter().any(|a| {
                    a.name
                        .name
                        .eq_ignore_ascii_case("WaveOpsIncludeHelperLanes")
                }),
        };
        let function = self.entry_function(user, &params, result, &inputs, &outputs, &io, decl);
        self.module.entry = Some(ir::EntryPoint {
            function,
            name: self.opts.entry.clone(),
            group: ir::GroupShape::Waves(1),
            wave_size: None,
            wave_size_span: None,
            inputs: vec![ir::EntryInput {
                value: ir::SystemValue::DispatchThreadId,
                param: 0,
                component: 0,
                components: 3,
            }],
            quads: ir::QuadLayout::Linear,
            stage,
            io: Some(io),
        });
    }

    /// The scalars and vectors of `ty` with their semantics; false after
    /// reporting one without a semantic, or of a type no stage passes.
    #[allow(clippy::too_many_arguments)]
    fn leaves(
        &mut self,
        ty: TypeId,
        semantic: Option<&ast::Ident>,
        modifiers: &[String],
        path: &mut Vec<u32>,
        span: Span,
        what: &str,
        out: &mut Vec<Leaf>,
    ) -> bool {
        match self.get(ty).clone() {
            Type::Struct { members, .. } => {
                let semantics = self.member_semantics.get(&ty).cloned().unwrap_or_default();
                let mods = self.member_modifiers.get(&ty).cloned().unwrap_or_default();
                let mut ok = true;
                for (k, member) in members.iter().enumerate() {
                    path.push(k as u32);
                    let sem = semantics.get(k).cloned().flatten();
                    let mut m = modifiers.to_vec();
                    m.extend(mods.get(k).cloned().unwrap_or_default());
                    let name = format!("{what}.{}", member.name);
                    let at = sem.as_ref().map_or(span, |s| s.span);
                    ok &= self.leaves(member.ty, sem.as_ref(), &m, path, at, &name, out);
                    path.pop();
                }
                ok
            }
            Type::Scalar(s) | Type::Vector(s, _) => {
                let components = self.module.types.component_count(ty);
                let Some(semantic) = semantic else {
                    self.error(
                        span,
                        format!("entry point value '{what}' must have a semantic"),
                    );
                    return false;
                };
                if s == ScalarType::Float64 || s.bits() == 64 {
                    self.error(
                        span,
                        format!(
                            "not supported: a 64-bit value ('{}') passed between stages",
                            self.show(ty)
                        ),
                    );
                    return false;
                }
                out.push(Leaf {
                    path: path.clone(),
                    scalar: s,
                    components,
                    semantic: semantic.clone(),
                    modifiers: modifiers.to_vec(),
                });
                true
            }
            _ => {
                let shown = self.show(ty);
                self.error(
                    span,
                    format!(
                        "not supported: '{what}' of type '{shown}' passed between stages (scalars, vectors and structs of them are)"
                    ),
                );
                false
            }
        }
    }

    /// The record layout of `leaves`, after checking each semantic for the
    /// stage and direction.
    fn varyings<'l>(
        &mut self,
        stage: Stage,
        input: bool,
        leaves: impl Iterator<Item = &'l Leaf>,
    ) -> Option<Vec<Varying>> {
        let mut vars: Vec<Varying> = Vec::new();
        let mut word = 1;
        let mut ok = true;
        for leaf in leaves {
            let (semantic, index) = lockstep_ir::split_semantic(&leaf.semantic.name);
            let allowed: &[(&str, &str)] = match (stage, input) {
                (Stage::Vertex, true) => &[("SV_VERTEXID", "uint"), ("SV_INSTANCEID", "uint")],
                (Stage::Vertex, false) => &[("SV_POSITION", "float4")],
                (Stage::Pixel, true) => &[
                    ("SV_POSITION", "float4"),
                    ("SV_ISFRONTFACE", "bool"),
                    ("SV_PRIMITIVEID", "uint"),
                ],
                _ => &[("SV_TARGET", ""), ("SV_DEPTH", "float")],
            };
            let direction = if input { "input" } else { "output" };
            let known = allowed.iter().find(|(name, _)| *name == semantic);
            if semantic.starts_with("SV_") && known.is_none() {
                self.error(
                    leaf.semantic.span,
                    format!(
                        "'{}' is not a {} shader {direction} Lockstep supports (it knows {})",
                        leaf.semantic.name,
                        stage.name(),
                        allowed
                            .iter()
                            .map(|(n, _)| *n)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                ok = false;
                continue;
            }
            if stage == Stage::Pixel && !input && known.is_none() {
                self.error(
                    leaf.semantic.span,
                    format!(
                        "a pixel shader output needs SV_Target or SV_Depth, not '{}'",
                        leaf.semantic.name
                    ),
                );
                ok = false;
                continue;
            }
            if let Some((name, shape)) = known {
                let fits = match *shape {
                    "uint" => leaf.components == 1 && leaf.scalar.is_integer(),
                    "bool" => leaf.components == 1 && !leaf.scalar.is_float(),
                    "float" => leaf.components == 1 && leaf.scalar.is_float(),
                    "float4" => leaf.scalar.is_float(),
                    _ => true,
                };
                if !fits {
                    self.error(
                        leaf.semantic.span,
                        format!("'{}' must be {shape}", leaf.semantic.name),
                    );
                    ok = false;
                    continue;
                }
                if *name == "SV_TARGET" && index > 7 {
                    self.error(leaf.semantic.span, "SV_Target indices run from 0 to 7");
                    ok = false;
                    continue;
                }
                if *name == "SV_TARGET" && index > 0 {
                    self.warning(
                        leaf.semantic.span,
                        format!(
                            "'{}' goes nowhere: a draw binds one render target, SV_Target0 (writes to a render target that is not bound are dropped)",
                            leaf.semantic.name
                        ),
                    );
                }
            }
            if vars
                .iter()
                .any(|v| v.semantic == semantic && v.index == index)
            {
                self.error(
                    leaf.semantic.span,
                    format!(
                        "semantic '{}' is used twice in the {direction}s",
                        leaf.semantic.name
                    ),
                );
                ok = false;
                continue;
            }
            let kind = if leaf.scalar.is_float() {
                VaryingKind::Float
            } else if leaf.scalar.is_signed() {
                VaryingKind::Int
            } else {
                VaryingKind::UInt
            };
            vars.push(Varying {
                semantic,
                index,
                kind,
                components: leaf.components,
                word,
                interpolation: interpolation(&leaf.modifiers, leaf.scalar),
                span: ir_span(leaf.semantic.span),
            });
            word += leaf.components;
        }
        ok.then_some(vars)
    }

    /// A buffer of records, each an array of `words` words: a lane's
    /// access is the record's index scaled by the stride, at a constant
    /// offset, which the engine reads as an array of structures.
    fn stage_buffer(
        &mut self,
        name: &str,
        kind: ir::ResourceKind,
        words: u32,
        span: Span,
    ) -> ir::ResourceId {
        let uint = self.scalar(ScalarType::UInt32);
        let element = self.intern(Type::Array {
            element: uint,
            len: words,
        });
        let id = ir::ResourceId(self.module.resources.len() as u32);
        self.module.resources.push(ir::Resource {
            name: name.to_string(),
            kind,
            element,
            register: u32::MAX,
            space: u32::MAX,
            explicit_binding: true,
            vk_binding: None,
            counter_of: None,
            span: ir_span(span),
        });
        id
    }

    /// `void entry(uint3 id : SV_DispatchThreadID)`: reads record `id.x`,
    /// calls the shader's function and writes its outputs.
    #[allow(clippy::too_many_arguments)]
    fn entry_function(
        &mut self,
        user: ir::FunctionId,
        params: &[(TypeId, ir::ParamDirection)],
        result: TypeId,
        inputs: &[(usize, Leaf)],
        outputs: &[(Option<usize>, Leaf)],
        io: &ir::StageIo,
        decl: &ast::FunctionDecl,
    ) -> ir::FunctionId {
        let span = decl.span;
        let uint = self.scalar(ScalarType::UInt32);
        let uint3 = self.module.types.vector(ScalarType::UInt32, 3);
        let mut locals = vec![
            ir::Variable {
                name: "id".into(),
                ty: uint3,
                span: ir_span(span),
            },
            ir::Variable {
                name: "record".into(),
                ty: uint,
                span: ir_span(span),
            },
        ];
        let param_local = locals.len();
        for (k, &(ty, _)) in params.iter().enumerate() {
            locals.push(ir::Variable {
                name: decl.params[k].name.name.clone(),
                ty,
                span: ir_span(decl.params[k].span),
            });
        }
        let result_local = locals.len();
        if !self.is_void(result) {
            locals.push(ir::Variable {
                name: "result".into(),
                ty: result,
                span: ir_span(span),
            });
        }
        let local = |i: usize, path: Vec<Access>, ty: TypeId| Place {
            root: PlaceRoot::Local(ir::LocalId(i as u32)),
            path,
            ty,
        };
        let mut body = Vec::new();
        // record = id.x
        let id_x = self.wrap(
            ExprKind::Load(local(0, vec![Access::Components(vec![0])], uint)),
            uint,
            span,
        );
        body.push(self.assign(local(1, Vec::new(), uint), id_x, span));
        // The state word: 0 no lane, 2 a helper lane.
        let state = self.record_word(io.input, 0, span);
        let zero = self.u32_const(0, span);
        let absent = self.compare(ir::BinaryOp::Eq, state.clone(), zero, span);
        body.push(Stmt::If {
            cond: absent,
            accept: ir::Block::new(vec![Stmt::Return(None)]),
            reject: ir::Block::default(),
        });
        if let Some(helper) = io.helper {
            let two = self.u32_const(2, span);
            let is_helper = self.compare(ir::BinaryOp::Eq, state, two, span);
            let place = self.helper_place(helper);
            body.push(self.assign(place, is_helper, span));
        }
        for (var, (param, leaf)) in io.inputs.iter().zip(inputs) {
            let ty = self.leaf_type(leaf);
            let comps: Vec<Expr> = (0..leaf.components)
                .map(|k| {
                    let word = self.record_word(io.input, var.word + k, span);
                    self.word_as(word, leaf.scalar, span)
                })
                .collect();
            let value = if leaf.components == 1 {
                comps
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| self.u32_const(0, span))
            } else {
                self.wrap(ExprKind::Construct(comps), ty, span)
            };
            let path = leaf.path.iter().map(|&f| Access::Field(f)).collect();
            body.push(self.assign(local(param_local + param, path, ty), value, span));
        }
        let args = params
            .iter()
            .enumerate()
            .map(|(k, &(ty, dir))| {
                let place = local(param_local + k, Vec::new(), ty);
                match dir {
                    ir::ParamDirection::In => {
                        CallArg::In(self.wrap(ExprKind::Load(place), ty, span))
                    }
                    _ => CallArg::Out(place),
                }
            })
            .collect();
        let void = self.void();
        let call_ty = if self.is_void(result) { void } else { result };
        let call = self.wrap(
            ExprKind::Call {
                function: user,
                args,
            },
            call_ty,
            span,
        );
        if self.is_void(result) {
            body.push(Stmt::Expr(call));
        } else {
            body.push(self.assign(local(result_local, Vec::new(), result), call, span));
        }
        let one = self.u32_const(1, span);
        body.push(self.store_word(io.output, 0, one, span));
        for (var, (param, leaf)) in io.outputs.iter().zip(outputs) {
            let root = param.map_or(result_local, |p| param_local + p);
            for k in 0..leaf.components {
                let mut path: Vec<Access> = leaf.path.iter().map(|&f| Access::Field(f)).collect();
                if leaf.components > 1 {
                    path.push(Access::Components(vec![k as u8]));
                }
                // A finding about the value written points at its semantic.
                let span = leaf.semantic.span;
                let scalar_ty = self.scalar(leaf.scalar);
                let value = self.wrap(
                    ExprKind::Load(local(root, path, scalar_ty)),
                    scalar_ty,
                    span,
                );
                let word = self.as_word(value, leaf.scalar, span);
                body.push(self.store_word(io.output, var.word + k, word, span));
            }
        }
        let id = ir::FunctionId(self.module.functions.len() as u32);
        self.module.functions.push(ir::Function {
            name: format!("{}.stage", self.opts.entry),
            params: vec![ir::ParamDirection::In],
            locals,
            result: None,
            body: ir::Block::new(body),
            span: ir_span(span),
            library: false,
        });
        self.called.entry(user).or_insert(span);
        id
    }

    fn leaf_type(&mut self, leaf: &Leaf) -> TypeId {
        if leaf.components == 1 {
            self.scalar(leaf.scalar)
        } else {
            self.module.types.vector(leaf.scalar, leaf.components as u8)
        }
    }

    fn assign(&mut self, place: Place, value: Expr, span: Span) -> Stmt {
        let ty = place.ty;
        let kind = ExprKind::Assign {
            place,
            value: Box::new(value),
            yield_old: false,
            init: false,
        };
        Stmt::Expr(self.wrap(kind, ty, span))
    }

    fn compare(&mut self, op: ir::BinaryOp, a: Expr, b: Expr, span: Span) -> Expr {
        let ty = self.scalar(ScalarType::Bool);
        self.wrap(ExprKind::Binary(op, Box::new(a), Box::new(b)), ty, span)
    }

    /// Word `word` of this lane's record: element `record * words + word`.
    /// Word `word` of this lane's record (local 1) in `resource`.
    fn record_place(&mut self, resource: ir::ResourceId, word: u32, span: Span) -> Place {
        let uint = self.scalar(ScalarType::UInt32);
        let record = self.wrap(
            ExprKind::Load(Place {
                root: PlaceRoot::Local(ir::LocalId(1)),
                path: Vec::new(),
                ty: uint,
            }),
            uint,
            span,
        );
        let at = self.u32_const(word, span);
        Place {
            root: PlaceRoot::BufferElement {
                resource,
                index: Box::new(record),
            },
            path: vec![Access::Index(Box::new(at))],
            ty: uint,
        }
    }

    fn record_word(&mut self, resource: ir::ResourceId, word: u32, span: Span) -> Expr {
        let place = self.record_place(resource, word, span);
        let ty = place.ty;
        self.wrap(ExprKind::Load(place), ty, span)
    }

    fn store_word(&mut self, resource: ir::ResourceId, word: u32, value: Expr, span: Span) -> Stmt {
        let place = self.record_place(resource, word, span);
        self.assign(place, value, span)
    }

    /// A record word as a value of `scalar`.
    fn word_as(&mut self, word: Expr, scalar: ScalarType, span: Span) -> Expr {
        let to = self.scalar(scalar);
        match scalar {
            ScalarType::UInt32 => word,
            ScalarType::Bool => {
                let zero = self.u32_const(0, span);
                self.compare(ir::BinaryOp::Ne, word, zero, span)
            }
            ScalarType::Float32 | ScalarType::Int32 => {
                self.wrap(ExprKind::Bitcast(Box::new(word)), to, span)
            }
            s if s.is_float() => {
                let f = self.scalar(ScalarType::Float32);
                let bits = self.wrap(ExprKind::Bitcast(Box::new(word)), f, span);
                self.wrap(ExprKind::Convert(Box::new(bits)), to, span)
            }
            s if s.is_signed() => {
                let i = self.scalar(ScalarType::Int32);
                let bits = self.wrap(ExprKind::Bitcast(Box::new(word)), i, span);
                self.wrap(ExprKind::Convert(Box::new(bits)), to, span)
            }
            _ => self.wrap(ExprKind::Convert(Box::new(word)), to, span),
        }
    }

    /// A value of `scalar` as a record word.
    fn as_word(&mut self, value: Expr, scalar: ScalarType, span: Span) -> Expr {
        let uint = self.scalar(ScalarType::UInt32);
        let wide = match scalar {
            ScalarType::UInt32 | ScalarType::Float32 | ScalarType::Int32 => value,
            s if s.is_float() => {
                let f = self.scalar(ScalarType::Float32);
                self.wrap(ExprKind::Convert(Box::new(value)), f, span)
            }
            s if s.is_signed() => {
                let i = self.scalar(ScalarType::Int32);
                self.wrap(ExprKind::Convert(Box::new(value)), i, span)
            }
            _ => return self.wrap(ExprKind::Convert(Box::new(value)), uint, span),
        };
        if self.get(wide.ty) == &Type::Scalar(ScalarType::UInt32) {
            return wide;
        }
        self.wrap(ExprKind::Bitcast(Box::new(wide)), uint, span)
    }
}
