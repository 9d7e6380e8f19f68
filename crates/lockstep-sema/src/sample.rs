//! Texture sampling through a `SamplerState`: `Sample`, `SampleLevel`,
//! `SampleBias` and `SampleGrad` on every texture that is not written (1D,
//! 2D, 3D, cubes, and arrays of them), and `Gather` on 2D ones and cubes, become
//! calls of the sampling functions the prelude writes in HLSL
//! ([`crate::prelude`]), which read the sampler's state from the sampler
//! resource itself (a struct the runtime fills from the pipeline).

use lockstep_ir::{Member, ResourceKind, ScalarType, Type, TypeId};
use lockstep_syntax::{Span, ast};

use crate::context::{ResourceInfo, Sema, TExpr};

/// The prefix of the sampler state's members: not a name a shader uses.
pub(crate) const STATE_PREFIX: &str = "__lockstep_";

/// The members of a sampler's state, in order: the border color, the
/// address mode of u, v and w (1 wrap, 2 mirror, 3 clamp, 4 border, 5
/// mirror once), the minification, magnification and mip filters (0
/// point, 1 linear), the LOD bias, the LOD range and the comparison (0 never, 1
/// less, 2 equal, 3 less-equal, 4 greater, 5 not-equal, 6 greater-equal, 7
/// always).
pub const SAMPLER_STATE: &[(&str, SamplerField)] = &[
    ("__lockstep_border", SamplerField::Float4),
    ("__lockstep_address", SamplerField::UInt3),
    ("__lockstep_min_filter", SamplerField::UInt),
    ("__lockstep_mag_filter", SamplerField::UInt),
    ("__lockstep_lod_bias", SamplerField::Float),
    ("__lockstep_min_lod", SamplerField::Float),
    ("__lockstep_max_lod", SamplerField::Float),
    ("__lockstep_compare", SamplerField::UInt),
    ("__lockstep_mip_filter", SamplerField::UInt),
];

/// The type of one member of the sampler state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplerField {
    /// `float4`.
    Float4,
    /// `uint3`.
    UInt3,
    /// `uint`.
    UInt,
    /// `float`.
    Float,
}

/// Whether `name` is a sampling method Lockstep implements.
pub(crate) fn is_sample_method(name: &str) -> bool {
    matches!(
        name,
        "Sample"
            | "SampleLevel"
            | "SampleBias"
            | "SampleGrad"
            | "Gather"
            | "GatherRed"
            | "GatherGreen"
            | "GatherBlue"
            | "GatherAlpha"
            | "CalculateLevelOfDetail"
            | "CalculateLevelOfDetailUnclamped"
            | "SampleCmp"
            | "SampleCmpLevelZero"
            | "SampleCmpLevel"
            | "GatherCmp"
            | "GatherCmpRed"
    )
}

impl Sema<'_> {
    /// The struct a sampler resource holds (see [`SAMPLER_STATE`]).
    pub(crate) fn sampler_struct(&mut self) -> TypeId {
        let members = SAMPLER_STATE
            .iter()
            .map(|&(name, field)| {
                let ty = match field {
                    SamplerField::Float4 => Type::Vector(ScalarType::Float32, 4),
                    SamplerField::UInt3 => Type::Vector(ScalarType::UInt32, 3),
                    SamplerField::UInt => Type::Scalar(ScalarType::UInt32),
                    SamplerField::Float => Type::Scalar(ScalarType::Float32),
                };
                Member {
                    name: name.to_string(),
                    ty: self.intern(ty),
                }
            })
            .collect();
        self.intern(Type::Struct {
            name: "SamplerState".to_string(),
            members,
        })
    }

    /// `tex.SampleLevel(s, uv, lod[, offset])` and its kin: a call of the
    /// prelude's function for the texture's kind and texel type.
    pub(crate) fn texture_sample(
        &mut self,
        info: ResourceInfo,
        receiver: &ast::Expr,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let shape = match info.kind {
            ResourceKind::Texture1D => "1d",
            ResourceKind::Texture1DArray => "1darray",
            ResourceKind::Texture2D => "2d",
            ResourceKind::Texture2DArray => "2darray",
            ResourceKind::Texture3D => "3d",
            ResourceKind::TextureCube => "cube",
            ResourceKind::TextureCubeArray => "cubearray",
            _ => {
                let shown = self.resource_display(info);
                self.error(span, format!("no member named '{name}' in '{shown}'"));
                return None;
            }
        };
        if name.starts_with("SampleCmp") && shape == "3d" {
            let shown = self.resource_display(info);
            self.error(span, format!("no member named '{name}' in '{shown}'"));
            return None;
        }
        let gathers = matches!(shape, "2d" | "2darray" | "cube" | "cubearray");
        if name.starts_with("Gather") && !gathers {
            let shown = self.resource_display(info);
            self.error(
                span,
                format!("no member named '{name}' in '{shown}' (2D textures, 2D arrays and cubes are gathered)"),
            );
            return None;
        }
        let (texel, components) = match self.get(info.element) {
            Type::Scalar(ScalarType::Float32) => ("float".to_string(), 1),
            Type::Vector(ScalarType::Float32, n) => (format!("float{n}"), *n),
            _ => {
                let shown = self.resource_display(info);
                self.error(
                    span,
                    format!(
                        "'{name}' on a texture of integer texels ('{shown}') is not supported by Lockstep yet: Load the texels"
                    ),
                );
                return None;
            }
        };
        let derivatives =
            self.opts.stage != lockstep_ir::Stage::Compute || self.opts.shader_model >= (6, 6);
        if matches!(name, "Sample" | "SampleBias" | "SampleCmp") && !derivatives {
            self.error(
                span,
                format!("'{name}' takes derivatives: it needs a pixel shader, or a compute shader of shader model 6.6 or later (SampleLevel and SampleGrad do not)"),
            );
            return None;
        }
        // The sampler, the location, then the method's own arguments.
        let (method, fixed) = match name {
            "Sample" => ("sample", 2),
            "SampleLevel" => ("sample_level", 3),
            "SampleBias" => ("sample_bias", 3),
            "SampleGrad" => ("sample_grad", 4),
            "CalculateLevelOfDetail" | "CalculateLevelOfDetailUnclamped" => {
                if !derivatives {
                    self.error(
                        span,
                        format!("'{name}' takes derivatives: it needs a pixel shader, or a compute shader of shader model 6.6 or later"),
                    );
                    return None;
                }
                if args.len() != 2 {
                    self.error(
                        span,
                        format!(
                            "'{name}' takes 2 arguments (a sampler and a location), not {}",
                            args.len()
                        ),
                    );
                    return None;
                }
                let method = if name.ends_with("Unclamped") {
                    "calculate_lod_unclamped"
                } else {
                    "calculate_lod"
                };
                (method, 2)
            }
            "SampleCmp" => ("sample_cmp", 3),
            "SampleCmpLevelZero" => ("sample_cmp_level_zero", 3),
            "SampleCmpLevel" => ("sample_cmp_level", 4),
            "GatherCmp" | "GatherCmpRed" => ("gather_cmp", 3),
            "Gather" | "GatherRed" => ("gather_x", 2),
            "GatherGreen" => ("gather_y", 2),
            "GatherBlue" => ("gather_z", 2),
            _ => ("gather_w", 2),
        };
        let channel = match method {
            "gather_y" => 2,
            "gather_z" => 3,
            "gather_w" => 4,
            _ => 1,
        };
        if channel > components {
            let shown = self.resource_display(info);
            self.error(
                span,
                format!("'{name}' reads a component that the texels of '{shown}' do not have"),
            );
            return None;
        }
        // Cubes take no offset.
        let offsets = usize::from(!info.kind.is_cube());
        // `Gather*` with an offset for each of the four texels: each
        // component from the gather at its own offset.
        if name.starts_with("Gather") && offsets == 1 && args.len() == fixed + 4 {
            let parts: Vec<ast::Expr> = ["x", "y", "z", "w"]
                .iter()
                .zip(&args[fixed..])
                .map(|(c, offset)| {
                    let mut one = args[..fixed].to_vec();
                    one.push(offset.clone());
                    let gather = ast::Expr {
                        kind: ast::ExprKind::MethodCall {
                            receiver: Box::new(receiver.clone()),
                            method: ast::Ident {
                                name: name.to_string(),
                                span,
                            },
                            template_args: Vec::new(),
                            args: one,
                        },
                        span,
                    };
                    ast::Expr {
                        kind: ast::ExprKind::Member {
                            base: Box::new(gather),
                            member: ast::Ident {
                                name: c.to_string(),
                                span,
                            },
                        },
                        span,
                    }
                })
                .collect();
            let float4 = ast::TypeExpr {
                name: ast::Ident {
                    name: "float4".to_string(),
                    span,
                },
                args: Vec::new(),
                modifiers: Vec::new(),
                span,
            };
            return self.lower_constructor(&float4, &parts, span);
        }
        if args.len() != fixed && args.len() != fixed + offsets {
            let message = if args.len() > fixed + 1 {
                format!("not supported: the clamp and status arguments of '{name}'")
            } else if offsets == 0 {
                format!(
                    "'{name}' on a cube takes {fixed} arguments (cubes take no offset), not {}",
                    args.len()
                )
            } else {
                format!(
                    "'{name}' takes {fixed} arguments, or {} with an offset, not {}",
                    fixed + 1,
                    args.len()
                )
            };
            self.error(span, message);
            return None;
        }
        if name == "SampleCmpLevel" && !self.check_shader_model(name, (6, 7), span) {
            return None;
        }
        // An immediate offset of the sampling methods lies in -8..=7.
        if !name.starts_with("Gather")
            && args.len() == fixed + 1
            && literal_vector(&args[fixed])
            && let Some(o) = self.lower_value(&args[fixed])
        {
            self.check_offset_range(&o.e, args[fixed].span)?;
        }
        let chosen_per_lane =
            |id: lockstep_ir::ResourceId| id.0 >= crate::context::DYNAMIC_RESOURCE_BASE;
        if chosen_per_lane(info.id) {
            return self.sample_each_element(info, receiver, None, name, args, span);
        }
        match self.resource_of(&args[0]) {
            Some(s) if chosen_per_lane(s.id) => {
                return self.sample_each_element(info, receiver, Some(s), name, args, span);
            }
            Some(s) if s.kind == ResourceKind::SamplerState => {}
            _ => {
                self.error(
                    args[0].span,
                    format!("the first argument of '{name}' must be a SamplerState"),
                );
                return None;
            }
        }
        let function = format!("__lockstep_{method}_{shape}_{texel}");
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(receiver.clone());
        all.extend(args.iter().cloned());
        self.call_with_resources(&function, &all, span)
    }

    /// `tex.Sample…(s, …)` where `tex`, or the sampler `s` (`sampler`), is
    /// an element of a resource array chosen by a non-constant index
    /// (uniform or per lane): the index and the value operands evaluated
    /// once, then the method called with each element of the array, each
    /// lane taking its own element's result (an index past the end takes
    /// the last element, as other uses of such an element do). Every
    /// element is sampled with every lane, so derivatives see whole quads.
    fn sample_each_element(
        &mut self,
        info: ResourceInfo,
        receiver: &ast::Expr,
        sampler: Option<ResourceInfo>,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<TExpr> {
        let base = crate::context::DYNAMIC_RESOURCE_BASE;
        let chosen = sampler.unwrap_or(info);
        let dynamic = self.dynamic_resources[(chosen.id.0 - base) as usize].clone();
        let mut setup = Vec::new();
        let index = self.temporary(dynamic.index.clone(), &mut setup);
        self.push_scope();
        let elements = Elements {
            of: chosen,
            dynamic: &dynamic,
            index,
            sampler: sampler.is_some(),
        };
        let chain = self.sample_elements(info, receiver, &elements, name, args, span, &mut setup);
        self.pop_scope();
        let (chain, ty) = chain?;
        let e = setup
            .into_iter()
            .rev()
            .fold(chain, |rest, first| lockstep_ir::Expr {
                ty: rest.ty,
                span: rest.span,
                kind: lockstep_ir::ExprKind::Sequence(Box::new(first), Box::new(rest)),
            });
        let mut t = TExpr::of(e);
        t.e.ty = ty;
        Some(t)
    }

    /// [`Sema::sample_each_element`]'s choice among the elements, its
    /// operands' evaluations added to `setup`.
    #[allow(clippy::too_many_arguments)]
    fn sample_elements(
        &mut self,
        info: ResourceInfo,
        receiver: &ast::Expr,
        elements: &Elements,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        setup: &mut Vec<lockstep_ir::Expr>,
    ) -> Option<(lockstep_ir::Expr, TypeId)> {
        use lockstep_ir::{BinaryOp, Expr, ExprKind, ResourceId};
        // The value operands (all but the sampler), each in a local of its
        // own unless a literal or a name.
        let mut operands = Vec::with_capacity(args.len());
        for (i, a) in args.iter().enumerate() {
            let plain = matches!(
                a.kind,
                ast::ExprKind::Ident(_)
                    | ast::ExprKind::IntLit { .. }
                    | ast::ExprKind::FloatLit { .. }
            );
            if i == 0 || plain {
                operands.push(a.clone());
                continue;
            }
            let value = self.lower_value(a)?;
            let ty = value.e.ty;
            let ident = ast::Ident {
                name: format!("__lockstep_operand{i}"),
                span: a.span,
            };
            let id = self.declare_local(&ident, ty, true)?;
            setup.push(crate::dynamic::assign_local(id, value.e, true));
            operands.push(ast::Expr {
                kind: ast::ExprKind::Ident(ident),
                span: a.span,
            });
        }
        // A name for the element, one for textures and one for samplers:
        // a call with both chosen expands the one inside the other.
        let alias = if elements.sampler {
            "__lockstep_sampler_element"
        } else {
            "__lockstep_texture_element"
        };
        let element = ast::Expr {
            kind: ast::ExprKind::Ident(ast::Ident {
                name: alias.to_string(),
                span,
            }),
            span,
        };
        let (texture, operands) = if elements.sampler {
            operands[0] = element;
            (receiver.clone(), operands)
        } else {
            (element, operands)
        };
        let bool_ty = self.scalar(ScalarType::Bool);
        let uint = self.scalar(ScalarType::UInt32);
        let dynamic = elements.dynamic;
        let mut chain: Option<(Expr, TypeId)> = None;
        for k in (0..dynamic.count).rev() {
            let chosen = ResourceInfo {
                id: ResourceId(dynamic.first.0 + k),
                ..elements.of
            };
            self.push_scope();
            if let Some(fcx) = self.fcx.as_mut()
                && let Some(scope) = fcx.resource_scopes.last_mut()
            {
                scope.insert(alias.to_string(), chosen);
            }
            let info = if elements.sampler { info } else { chosen };
            let arm = self.texture_sample(info, &texture, name, &operands, span);
            self.pop_scope();
            let arm = arm?.e;
            chain = Some(match chain {
                None => {
                    let ty = arm.ty;
                    (arm, ty)
                }
                Some((rest, ty)) => {
                    let k = Expr {
                        kind: ExprKind::Const(vec![lockstep_ir::Scalar {
                            ty: ScalarType::UInt32,
                            bits: u64::from(k),
                        }]),
                        ty: uint,
                        span: arm.span,
                    };
                    let cond = Expr {
                        kind: ExprKind::Binary(
                            BinaryOp::Eq,
                            Box::new(elements.index.clone()),
                            Box::new(k),
                        ),
                        ty: bool_ty,
                        span: arm.span,
                    };
                    let span = arm.span;
                    (
                        Expr {
                            kind: ExprKind::Select {
                                cond: Box::new(cond),
                                accept: Box::new(arm),
                                reject: Box::new(rest),
                            },
                            ty,
                            span,
                        },
                        ty,
                    )
                }
            });
        }
        chain
    }
}

/// The elements of a resource array one sampling call chooses among.
struct Elements<'d> {
    /// The chosen element (a placeholder), for its kind and element type.
    of: ResourceInfo,
    dynamic: &'d crate::context::DynamicResource,
    /// The element index, evaluated once.
    index: lockstep_ir::Expr,
    /// Whether the sampler is chosen, rather than the texture.
    sampler: bool,
}

/// An integer literal, or a constructor (`int2(-1, 9)`) of such: an
/// offset that is lowered twice (checked, then passed on) without a
/// second diagnostic.
fn literal_vector(e: &ast::Expr) -> bool {
    use ast::ExprKind as K;
    match &e.kind {
        K::IntLit { .. } => true,
        K::Unary { operand, .. } => literal_vector(operand),
        K::Call {
            callee: ast::Callee::Type(_),
            args,
        } => args.iter().all(literal_vector),
        _ => false,
    }
}
