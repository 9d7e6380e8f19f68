//! Vertex and pixel shaders: the stage's records (`ir::StageIo`) become
//! private word arrays that the entry point fills from its inputs (vertex
//! attributes, interpolated values, `FragCoord`, `HelperInvocation`)
//! before the shader's entry function runs, and writes to its outputs
//! after (`Position`, colour attachments, `FragDepth`; a pixel whose
//! record says it wrote nothing is discarded).

use lockstep_ir::{self as ir, Interpolation, ScalarType, Stage, StageIo, Varying, VaryingKind};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Decoration, Op, StorageClass, Word};

use crate::Error;
use crate::module::{Emitter, ids};

/// The stage's two records.
pub(crate) struct Records {
    pub input: ir::ResourceId,
    pub output: ir::ResourceId,
    /// Private `uint[input_words]` and `uint[output_words]`.
    pub input_var: Word,
    pub output_var: Word,
}

fn label(v: &Varying) -> String {
    if v.index == 0 {
        v.semantic.clone()
    } else {
        format!("{}{}", v.semantic, v.index)
    }
}

impl Emitter<'_> {
    /// Declares the records of a vertex or pixel shader.
    pub fn declare_records(&mut self, io: &StageIo) {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let array = |e: &mut Self, words: u32, name: &str| {
            let len = e.u32c(words.max(1));
            let ty = e.b.type_array(u32_ty, len);
            let ptr = e.pointer(StorageClass::Private, ty);
            let null = e.b.constant_null(ty);
            let var = e.b.variable(ptr, None, StorageClass::Private, Some(null));
            e.b.name(var, name);
            e.add_interface(var);
            var
        };
        let input_var = array(self, io.input_words, "lockstep.record_in");
        let output_var = array(self, io.output_words, "lockstep.record_out");
        self.records = Some(Records {
            input: io.input,
            output: io.output,
            input_var,
            output_var,
        });
    }

    /// The private array standing for a record resource, if `resource` is
    /// one.
    pub fn record_var(&self, resource: ir::ResourceId) -> Option<Word> {
        let r = self.records.as_ref()?;
        if resource == r.input {
            Some(r.input_var)
        } else if resource == r.output {
            Some(r.output_var)
        } else {
            None
        }
    }

    /// A global `Input` or `Output` variable of `ty`.
    fn interface_var(&mut self, class: StorageClass, ty: Word, name: &str) -> Word {
        let ptr = self.pointer(class, ty);
        let var = self.global_variable(ptr, class);
        self.b.name(var, name);
        self.add_interface(var);
        var
    }

    fn record_pointer(&mut self, var: Word, word: u32) -> Word {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let ptr = self.pointer(StorageClass::Private, u32_ty);
        let at = self.u32c(word);
        self.op(Op::AccessChain, ptr, ids(&[var, at]))
    }

    fn kind_scalar(kind: VaryingKind) -> ScalarType {
        match kind {
            VaryingKind::Float => ScalarType::Float32,
            VaryingKind::Int => ScalarType::Int32,
            VaryingKind::UInt => ScalarType::UInt32,
        }
    }

    /// The location of a value passed between the stages: its place in
    /// `Options::varyings`, else its place among the stage's own.
    fn location(&self, v: &Varying, own: &[&Varying]) -> Result<u32, Error> {
        if !self.opts.varyings.is_empty() {
            return self
                .opts
                .varyings
                .iter()
                .position(|(s, i)| *s == v.semantic && *i == v.index)
                .map(|p| p as u32)
                .ok_or_else(|| {
                    Error::new(
                        format!(
                            "the pixel shader reads '{}', which the vertex shader does not write",
                            label(v)
                        ),
                        Some(v.span),
                    )
                });
        }
        Ok(own.iter().position(|o| std::ptr::eq(*o, v)).unwrap_or(0) as u32)
    }

    /// Fills the input record from the stage's inputs.
    pub fn fill_inputs(&mut self, stage: Stage, io: &StageIo) -> Result<(), Error> {
        let Some(rec) = self.records.as_ref().map(|r| r.input_var) else {
            return Ok(());
        };
        let u32_ty = self.scalar(ScalarType::UInt32);
        let f32_ty = self.scalar(ScalarType::Float32);
        let bool_ty = self.scalar(ScalarType::Bool);
        // Word 0: a lane (1) or, in a pixel shader, a helper lane (2).
        let state = if stage == Stage::Pixel {
            let helper = self.interface_var(StorageClass::Input, bool_ty, "helper");
            self.b.decorate(
                helper,
                Decoration::BuiltIn,
                [Operand::BuiltIn(BuiltIn::HelperInvocation)],
            );
            let h = self.op(Op::Load, bool_ty, ids(&[helper]));
            let (two, one) = (self.u32c(2), self.u32c(1));
            self.op(Op::Select, u32_ty, ids(&[h, two, one]))
        } else {
            self.u32c(1)
        };
        let p = self.record_pointer(rec, 0);
        self.op_void(Op::Store, ids(&[p, state]));
        let own: Vec<&Varying> = io
            .inputs
            .iter()
            .filter(|v| !v.semantic.starts_with("SV_"))
            .collect();
        for v in &io.inputs {
            let words: Vec<Word> = match (stage, v.semantic.as_str()) {
                (Stage::Vertex, "SV_VERTEXID") => {
                    vec![self.builtin_u32(BuiltIn::VertexIndex, "vertex_index")]
                }
                (Stage::Vertex, "SV_INSTANCEID") => {
                    vec![self.builtin_u32(BuiltIn::InstanceIndex, "instance_index")]
                }
                (Stage::Pixel, "SV_POSITION") => {
                    let v4 = self.b.type_vector(f32_ty, 4);
                    let var = self.interface_var(StorageClass::Input, v4, "frag_coord");
                    self.b.decorate(
                        var,
                        Decoration::BuiltIn,
                        [Operand::BuiltIn(BuiltIn::FragCoord)],
                    );
                    let c = self.op(Op::Load, v4, ids(&[var]));
                    let mut out = Vec::new();
                    for i in 0..v.components.min(4) {
                        let mut x = self.op(
                            Op::CompositeExtract,
                            f32_ty,
                            vec![Operand::IdRef(c), Operand::LiteralBit32(i)],
                        );
                        // D3D's w is the clip-space w; Vulkan gives 1/w.
                        if i == 3 {
                            let one = self.one(ScalarType::Float32);
                            x = self.op(Op::FDiv, f32_ty, ids(&[one, x]));
                        }
                        out.push(self.op(Op::Bitcast, u32_ty, ids(&[x])));
                    }
                    out
                }
                (Stage::Pixel, "SV_ISFRONTFACE") => {
                    let var = self.interface_var(StorageClass::Input, bool_ty, "front_facing");
                    self.b.decorate(
                        var,
                        Decoration::BuiltIn,
                        [Operand::BuiltIn(BuiltIn::FrontFacing)],
                    );
                    let b = self.op(Op::Load, bool_ty, ids(&[var]));
                    let (one, zero) = (self.u32c(1), self.u32c(0));
                    vec![self.op(Op::Select, u32_ty, ids(&[b, one, zero]))]
                }
                (_, s) if s.starts_with("SV_") => {
                    return Err(Error::new(
                        format!(
                            "the SPIR-V back end does not give a {} shader '{}' yet",
                            stage.name(),
                            label(v)
                        ),
                        Some(v.span),
                    ));
                }
                _ => {
                    let location = if stage == Stage::Vertex {
                        self.attribute_location(v, &own)?
                    } else {
                        self.location(v, &own)?
                    };
                    let scalar = Self::kind_scalar(v.kind);
                    let ty = self.vector(scalar, v.components);
                    let var = self.interface_var(StorageClass::Input, ty, &label(v));
                    self.b
                        .decorate(var, Decoration::Location, [Operand::LiteralBit32(location)]);
                    if stage == Stage::Pixel {
                        let decoration = match (v.kind, v.interpolation) {
                            (VaryingKind::Int | VaryingKind::UInt, _)
                            | (_, Interpolation::NoInterpolation) => Some(Decoration::Flat),
                            (_, Interpolation::NoPerspective) => Some(Decoration::NoPerspective),
                            (_, Interpolation::Centroid) => Some(Decoration::Centroid),
                            (_, Interpolation::Linear) => None,
                        };
                        if let Some(d) = decoration {
                            self.b.decorate(var, d, []);
                        }
                    }
                    let value = self.op(Op::Load, ty, ids(&[var]));
                    let comps = if v.components == 1 {
                        vec![value]
                    } else {
                        let t = self.scalar(scalar);
                        (0..v.components)
                            .map(|i| {
                                self.op(
                                    Op::CompositeExtract,
                                    t,
                                    vec![Operand::IdRef(value), Operand::LiteralBit32(i)],
                                )
                            })
                            .collect()
                    };
                    comps
                        .into_iter()
                        .map(|c| self.bitcast(c, scalar, ScalarType::UInt32))
                        .collect()
                }
            };
            for (i, w) in words.into_iter().enumerate() {
                let p = self.record_pointer(rec, v.word + i as u32);
                self.op_void(Op::Store, ids(&[p, w]));
            }
        }
        Ok(())
    }

    /// A vertex attribute's location: its place in `Options::attributes`,
    /// else among the shader's own inputs.
    fn attribute_location(&self, v: &Varying, own: &[&Varying]) -> Result<u32, Error> {
        if self.opts.attributes.is_empty() {
            return Ok(own.iter().position(|o| std::ptr::eq(*o, v)).unwrap_or(0) as u32);
        }
        let name = label(v);
        self.opts
            .attributes
            .iter()
            .position(|a| a.eq_ignore_ascii_case(&name) || a.eq_ignore_ascii_case(&v.semantic))
            .map(|p| p as u32)
            .ok_or_else(|| {
                Error::new(
                    format!("the vertex shader reads '{name}', which no vertex attribute provides"),
                    Some(v.span),
                )
            })
    }

    fn builtin_u32(&mut self, builtin: BuiltIn, name: &str) -> Word {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let var = self.interface_var(StorageClass::Input, u32_ty, name);
        self.b
            .decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
        self.op(Op::Load, u32_ty, ids(&[var]))
    }

    /// Writes the stage's outputs from the output record; a pixel whose
    /// record's word 0 is 0 (a helper lane, or `discard`) is discarded.
    pub fn write_outputs(&mut self, stage: Stage, io: &StageIo) -> Result<(), Error> {
        let Some(rec) = self.records.as_ref().map(|r| r.output_var) else {
            return Ok(());
        };
        let u32_ty = self.scalar(ScalarType::UInt32);
        let f32_ty = self.scalar(ScalarType::Float32);
        let bool_ty = self.scalar(ScalarType::Bool);
        if stage == Stage::Pixel {
            let p = self.record_pointer(rec, 0);
            let written = self.op(Op::Load, u32_ty, ids(&[p]));
            let zero = self.u32c(0);
            let none = self.op(Op::IEqual, bool_ty, ids(&[written, zero]));
            let (kill, go) = (self.label(), self.label());
            self.selection_merge(go);
            self.branch_if(none, kill, go);
            self.start(kill);
            let _ = self.b.kill();
            self.f.open = false;
            self.start(go);
        }
        let own: Vec<&Varying> = io
            .outputs
            .iter()
            .filter(|v| !v.semantic.starts_with("SV_"))
            .collect();
        for v in &io.outputs {
            let words: Vec<Word> = (0..v.components)
                .map(|i| {
                    let p = self.record_pointer(rec, v.word + i);
                    self.op(Op::Load, u32_ty, ids(&[p]))
                })
                .collect();
            match (stage, v.semantic.as_str()) {
                (Stage::Vertex, "SV_POSITION") => {
                    let v4 = self.b.type_vector(f32_ty, 4);
                    let var = self.interface_var(StorageClass::Output, v4, "position");
                    self.b.decorate(
                        var,
                        Decoration::BuiltIn,
                        [Operand::BuiltIn(BuiltIn::Position)],
                    );
                    let mut comps: Vec<Word> = words
                        .iter()
                        .map(|&w| self.op(Op::Bitcast, f32_ty, ids(&[w])))
                        .collect();
                    while comps.len() < 4 {
                        comps.push(self.one(ScalarType::Float32));
                    }
                    let value = self.op(Op::CompositeConstruct, v4, ids(&comps));
                    self.op_void(Op::Store, ids(&[var, value]));
                }
                (Stage::Pixel, "SV_DEPTH") => {
                    let var = self.interface_var(StorageClass::Output, f32_ty, "frag_depth");
                    self.b.decorate(
                        var,
                        Decoration::BuiltIn,
                        [Operand::BuiltIn(BuiltIn::FragDepth)],
                    );
                    self.writes_depth = true;
                    let d = self.op(Op::Bitcast, f32_ty, ids(&[words[0]]));
                    self.op_void(Op::Store, ids(&[var, d]));
                }
                (_, s) if s.starts_with("SV_") && s != "SV_TARGET" => {
                    return Err(Error::new(
                        format!(
                            "the SPIR-V back end does not write a {} shader's '{}' yet",
                            stage.name(),
                            label(v)
                        ),
                        Some(v.span),
                    ));
                }
                _ => {
                    let location = match (stage, v.semantic.as_str()) {
                        (Stage::Pixel, "SV_TARGET") => v.index,
                        _ => self.location(v, &own)?,
                    };
                    let scalar = Self::kind_scalar(v.kind);
                    // A colour target gets all four components, zero past
                    // the shader's.
                    let target = v.semantic == "SV_TARGET";
                    let n = if target { 4 } else { v.components };
                    let ty = self.vector(scalar, n);
                    let var = self.interface_var(StorageClass::Output, ty, &label(v));
                    self.b
                        .decorate(var, Decoration::Location, [Operand::LiteralBit32(location)]);
                    let mut comps: Vec<Word> = words
                        .iter()
                        .map(|&w| self.bitcast(w, ScalarType::UInt32, scalar))
                        .collect();
                    while comps.len() < n as usize {
                        comps.push(self.zero(scalar));
                    }
                    let value = if comps.len() == 1 {
                        comps[0]
                    } else {
                        self.op(Op::CompositeConstruct, ty, ids(&comps))
                    };
                    self.op_void(Op::Store, ids(&[var, value]));
                }
            }
        }
        Ok(())
    }
}
