//! The emitter's state: types, constants, global variables, functions and
//! the entry point that calls the shader's entry function.

use std::collections::{BTreeSet, HashMap, HashSet};

use lockstep_ir::{self as ir, ParamDirection, ScalarType, Type, TypeId};
use rspirv::binary::Assemble;
use rspirv::dr::{self, Builder, InsertPoint, Operand};
use rspirv::spirv::{
    self, AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, MemoryModel, Op, StorageClass, Word,
};

use crate::control::Breakable;
use crate::{Error, Options, ResourceBinding, Spirv};

/// A resource as the module declares it.
pub(crate) struct ResourceVar {
    /// The variable: a block holding `uint data[]` (storage buffers) or
    /// `uint4 data[N]` (constant buffers).
    pub var: Word,
    /// Whether it is a constant buffer (`Uniform` storage).
    pub uniform: bool,
}

/// What the function being emitted keeps.
#[derive(Default)]
pub(crate) struct FnState {
    /// The IR function, `None` in the entry wrapper.
    pub function: Option<ir::FunctionId>,
    /// A pointer to each local variable.
    pub locals: Vec<Word>,
    /// The loops and switches around the current statement.
    pub breakables: Vec<Breakable>,
    /// The label of the block being written.
    pub label: Word,
    /// Whether a block is open; after a terminator, statements are dead.
    pub open: bool,
    /// `OpVariable`s that go at the start of the first block.
    pub vars: Vec<dr::Instruction>,
}

pub(crate) struct Emitter<'m> {
    pub m: &'m ir::Module,
    pub b: Builder,
    pub opts: &'m Options,
    caps: BTreeSet<Capability>,
    exts: BTreeSet<&'static str>,
    pub glsl: Word,
    scalars: HashMap<ScalarType, Word>,
    values: HashMap<TypeId, Word>,
    consts: HashMap<(ScalarType, u64), Word>,
    pub resources: Vec<Option<ResourceVar>>,
    statics: Vec<Word>,
    groupshared: Vec<Word>,
    inputs: HashMap<BuiltIn, Word>,
    interface: Vec<Word>,
    function_ids: Vec<Word>,
    wanted: Vec<ir::FunctionId>,
    decorated: HashSet<Word>,
    pub f: FnState,
    pub partitioned: bool,
    /// The textures, in resource order: their sizes' place in the dims
    /// buffer.
    textures: Vec<ir::ResourceId>,
    dims: Option<Word>,
    /// Each resource's binding.
    binding_of: Vec<crate::VulkanBinding>,
    /// The `uint64_t` views of buffers with 64-bit atomics.
    wide: HashMap<usize, Word>,
    /// With a step budget: the invocation's iteration count (a private
    /// `uint`) and the status buffer.
    pub guard: Option<(Word, Word)>,
    /// The spans of the loops guarded, in order.
    pub loops: Vec<ir::Span>,
    /// A vertex or pixel shader's records.
    pub records: Option<crate::stage::Records>,
    /// The pixel shader writes `SV_Depth`.
    pub writes_depth: bool,
}

/// Instruction operands from ids.
pub(crate) fn ids(list: &[Word]) -> Vec<Operand> {
    list.iter().map(|&w| Operand::IdRef(w)).collect()
}

impl<'m> Emitter<'m> {
    pub fn run(m: &'m ir::Module, opts: &'m Options) -> Result<Spirv, Error> {
        let Some(entry) = m.entry.as_ref() else {
            return Err(Error::new("the module has no entry point", None));
        };
        if entry.stage != ir::Stage::Compute && entry.io.is_none() {
            return Err(Error::new(
                format!("'{}' has no stage inputs and outputs", entry.name),
                Some(m.function(entry.function).span),
            ));
        }
        let mut b = Builder::new();
        b.set_version(1, 5);
        let glsl = b.ext_inst_import("GLSL.std.450");
        b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
        let mut e = Emitter {
            m,
            b,
            opts,
            caps: BTreeSet::from([Capability::Shader]),
            exts: BTreeSet::new(),
            glsl,
            scalars: HashMap::new(),
            values: HashMap::new(),
            consts: HashMap::new(),
            resources: Vec::new(),
            statics: Vec::new(),
            groupshared: Vec::new(),
            inputs: HashMap::new(),
            interface: Vec::new(),
            function_ids: Vec::new(),
            wanted: Vec::new(),
            decorated: HashSet::new(),
            f: FnState::default(),
            partitioned: false,
            textures: Vec::new(),
            dims: None,
            binding_of: Vec::new(),
            wide: HashMap::new(),
            guard: None,
            loops: Vec::new(),
            records: None,
            writes_depth: false,
        };
        let bindings = crate::bindings(m, &opts.bindings)?;
        e.binding_of = bindings.clone();
        if let Some(io) = &entry.io {
            e.declare_records(io);
        }
        e.declare_globals(&bindings)?;
        let dims = e.declare_dims(&bindings);
        let status_binding = e.declare_status(&bindings, dims.as_ref());
        e.function_ids = (0..m.functions.len()).map(|_| e.b.id()).collect();
        let main = e.entry_wrapper(entry)?;
        let mut done = HashSet::new();
        while let Some(f) = e.wanted.pop() {
            if done.insert(f) {
                e.function(f)?;
            }
        }
        let (model, workgroup_size) = match entry.stage {
            ir::Stage::Compute => (ExecutionModel::GLCompute, e.execution_modes(main, entry)),
            ir::Stage::Vertex => (ExecutionModel::Vertex, None),
            ir::Stage::Pixel => {
                e.b.execution_mode(main, ExecutionMode::OriginUpperLeft, []);
                if e.writes_depth {
                    e.b.execution_mode(main, ExecutionMode::DepthReplacing, []);
                }
                if e.opts.maximal_reconvergence {
                    e.extension("SPV_KHR_maximal_reconvergence");
                    e.b.execution_mode(main, ExecutionMode::MaximallyReconvergesKHR, []);
                }
                (ExecutionModel::Fragment, None)
            }
        };
        let interface = e.interface.clone();
        e.b.entry_point(model, main, entry.name.clone(), interface);
        for &c in &e.caps {
            e.b.capability(c);
        }
        for &x in &e.exts {
            e.b.extension(x);
        }
        let partitioned = e.partitioned;
        let derivative_quads = e.caps.contains(&Capability::ComputeDerivativeGroupQuadsKHR);
        let loops = std::mem::take(&mut e.loops);
        let records: Vec<ir::ResourceId> = e
            .records
            .as_ref()
            .map(|r| vec![r.input, r.output])
            .unwrap_or_default();
        let words = e.b.module().assemble();
        let bindings = m
            .resources
            .iter()
            .enumerate()
            .filter(|&(i, _)| !records.contains(&ir::ResourceId(i as u32)))
            .map(|(i, r)| ResourceBinding {
                resource: ir::ResourceId(i as u32),
                name: r.name.clone(),
                binding: bindings[i],
                uniform: matches!(
                    r.kind,
                    ir::ResourceKind::ConstantBuffer | ir::ResourceKind::SamplerState
                ),
            })
            .collect();
        let status = status_binding.map(|binding| crate::StatusBinding { binding, loops });
        Ok(Spirv {
            words,
            bindings,
            partitioned,
            derivative_quads,
            workgroup_size,
            dims,
            status,
        })
    }

    /// A global variable of pointer type `ptr`, declared among the types
    /// and constants even while a function is being written.
    pub fn global_variable(&mut self, ptr: Word, class: StorageClass) -> Word {
        let var = self.b.id();
        self.b
            .module_mut()
            .types_global_values
            .push(dr::Instruction::new(
                Op::Variable,
                Some(ptr),
                Some(var),
                vec![Operand::StorageClass(class)],
            ));
        var
    }

    /// Lists a global variable in the entry point's interface.
    pub fn add_interface(&mut self, var: Word) {
        self.interface.push(var);
    }

    pub fn capability(&mut self, c: Capability) {
        self.caps.insert(c);
    }

    pub fn extension(&mut self, x: &'static str) {
        self.exts.insert(x);
    }

    fn execution_modes(&mut self, main: Word, entry: &ir::EntryPoint) -> Option<[u32; 3]> {
        if self.opts.maximal_reconvergence {
            self.extension("SPV_KHR_maximal_reconvergence");
            self.b
                .execution_mode(main, ExecutionMode::MaximallyReconvergesKHR, []);
        }
        if entry.quads == ir::QuadLayout::Blocks
            && self.caps.contains(&Capability::GroupNonUniformQuad)
        {
            self.extension("SPV_NV_compute_shader_derivatives");
            self.capability(Capability::ComputeDerivativeGroupQuadsKHR);
            self.b
                .execution_mode(main, ExecutionMode::DerivativeGroupQuadsKHR, []);
        }
        let size = match (entry.group, self.opts.wave_size) {
            (ir::GroupShape::Threads(size), _) => Some(size),
            (ir::GroupShape::Waves(n), Some(w)) => Some([n.saturating_mul(w), 1, 1]),
            (ir::GroupShape::Waves(_), None) => None,
        };
        match (size, entry.group) {
            (Some(size), _) => {
                self.b.execution_mode(main, ExecutionMode::LocalSize, size);
            }
            (None, ir::GroupShape::Waves(n)) => {
                let u32_ty = self.scalar(ScalarType::UInt32);
                let dims: Vec<Word> = [n.saturating_mul(32), 1, 1]
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| {
                        let id = self.b.spec_constant_bit32(u32_ty, v);
                        self.b
                            .decorate(id, Decoration::SpecId, [Operand::LiteralBit32(i as u32)]);
                        id
                    })
                    .collect();
                let v3 = self.b.type_vector(u32_ty, 3);
                let size = self.b.spec_constant_composite(v3, dims);
                self.b.decorate(
                    size,
                    Decoration::BuiltIn,
                    [Operand::BuiltIn(BuiltIn::WorkgroupSize)],
                );
            }
            (None, _) => {}
        }
        size
    }

    // ----- types and constants -----

    pub fn scalar(&mut self, s: ScalarType) -> Word {
        if let Some(&t) = self.scalars.get(&s) {
            return t;
        }
        let t = match s {
            ScalarType::Bool => self.b.type_bool(),
            ScalarType::Int16 | ScalarType::UInt16 => {
                self.capability(Capability::Int16);
                self.b.type_int(16, 0)
            }
            ScalarType::Int32 | ScalarType::UInt32 => self.b.type_int(32, 0),
            ScalarType::Int64 | ScalarType::UInt64 => {
                self.capability(Capability::Int64);
                self.b.type_int(64, 0)
            }
            ScalarType::Float16 => {
                self.capability(Capability::Float16);
                self.b.type_float(16, None)
            }
            ScalarType::Float32 => self.b.type_float(32, None),
            ScalarType::Float64 => {
                self.capability(Capability::Float64);
                self.b.type_float(64, None)
            }
        };
        self.scalars.insert(s, t);
        t
    }

    /// The type of a vector of `n` scalars `s` (the scalar itself for 1).
    pub fn vector(&mut self, s: ScalarType, n: u32) -> Word {
        let t = self.scalar(s);
        if n == 1 { t } else { self.b.type_vector(t, n) }
    }

    /// The SPIR-V type of a value of `ty`, as variables hold it: a matrix is
    /// an array of its rows.
    pub fn value_type(&mut self, ty: TypeId) -> Word {
        if let Some(&t) = self.values.get(&ty) {
            return t;
        }
        let t = match self.m.types.get(ty).clone() {
            Type::Void => self.b.type_void(),
            Type::Scalar(s) => self.scalar(s),
            Type::Vector(s, n) => self.vector(s, u32::from(n)),
            Type::Matrix {
                scalar, rows, cols, ..
            } => {
                let row = self.vector(scalar, u32::from(cols));
                let len = self.u32c(u32::from(rows));
                self.b.type_array(row, len)
            }
            Type::Array { element, len } => {
                let el = self.value_type(element);
                let len = self.u32c(len.max(1));
                self.b.type_array(el, len)
            }
            Type::Struct { members, .. } => {
                let mut tys: Vec<Word> = members.iter().map(|mb| self.value_type(mb.ty)).collect();
                // A struct of methods only: some drivers (lavapipe) refuse an
                // empty struct, so it holds one unused word.
                if tys.is_empty() {
                    tys.push(self.scalar(ScalarType::UInt32));
                }
                self.b.type_struct(tys)
            }
        };
        self.values.insert(ty, t);
        t
    }

    pub fn pointer(&mut self, class: StorageClass, ty: Word) -> Word {
        self.b.type_pointer(None, class, ty)
    }

    pub fn konst(&mut self, s: ScalarType, bits: u64) -> Word {
        let bits = match s.bits() {
            16 => bits & 0xFFFF,
            32 => bits & 0xFFFF_FFFF,
            _ => bits,
        };
        let key = (
            s,
            if s == ScalarType::Bool {
                u64::from(bits != 0)
            } else {
                bits
            },
        );
        if let Some(&c) = self.consts.get(&key) {
            return c;
        }
        let ty = self.scalar(s);
        let c = match s {
            ScalarType::Bool if bits != 0 => self.b.constant_true(ty),
            ScalarType::Bool => self.b.constant_false(ty),
            _ if s.bits() == 64 => self.b.constant_bit64(ty, bits),
            _ => self.b.constant_bit32(ty, bits as u32),
        };
        self.consts.insert(key, c);
        c
    }

    pub fn u32c(&mut self, v: u32) -> Word {
        self.konst(ScalarType::UInt32, u64::from(v))
    }

    pub fn boolc(&mut self, v: bool) -> Word {
        self.konst(ScalarType::Bool, u64::from(v))
    }

    /// Zero (or `false`) of scalar type `s`.
    pub fn zero(&mut self, s: ScalarType) -> Word {
        self.konst(s, 0)
    }

    /// One of scalar type `s`, in its own encoding.
    pub fn one(&mut self, s: ScalarType) -> Word {
        let bits = match s {
            ScalarType::Float16 => 0x3C00,
            ScalarType::Float32 => u64::from(1f32.to_bits()),
            ScalarType::Float64 => 1f64.to_bits(),
            _ => 1,
        };
        self.konst(s, bits)
    }

    /// A float constant of type `s` with the value `v`.
    pub fn floatc(&mut self, s: ScalarType, v: f64) -> Word {
        let bits = match s {
            ScalarType::Float16 => u64::from(half::f16::from_f64(v).to_bits()),
            ScalarType::Float32 => u64::from((v as f32).to_bits()),
            _ => v.to_bits(),
        };
        self.konst(s, bits)
    }

    // ----- instructions and blocks -----

    /// An instruction with a result. Float arithmetic is `NoContraction`:
    /// the driver neither fuses it nor rewrites it (`x - x` to 0), as the
    /// engine computes each operation on its own, in IEEE arithmetic.
    pub fn op(&mut self, op: Op, ty: Word, operands: Vec<Operand>) -> Word {
        let id = self.b.id();
        let exact = matches!(
            op,
            Op::FAdd | Op::FSub | Op::FMul | Op::FDiv | Op::FRem | Op::FMod | Op::FNegate
        );
        if exact && self.f.open {
            self.b
                .decorate(id, rspirv::spirv::Decoration::NoContraction, []);
        }
        self.push(dr::Instruction::new(op, Some(ty), Some(id), operands));
        id
    }

    pub fn op_void(&mut self, op: Op, operands: Vec<Operand>) {
        self.push(dr::Instruction::new(op, None, None, operands));
    }

    fn push(&mut self, inst: dr::Instruction) {
        // Instructions are emitted only into open blocks; statements after
        // a terminator are skipped before they get here.
        if self.f.open {
            let _ = self.b.insert_into_block(InsertPoint::End, inst);
        }
    }

    /// An instruction of GLSL.std.450.
    pub fn glsl(&mut self, inst: spirv::GlslStd450Op, ty: Word, args: &[Word]) -> Word {
        let mut operands = vec![
            Operand::IdRef(self.glsl),
            Operand::LiteralExtInstInteger(inst as u32),
        ];
        operands.extend(ids(args));
        self.op(Op::ExtInst, ty, operands)
    }

    pub fn label(&mut self) -> Word {
        self.b.id()
    }

    pub fn start(&mut self, label: Word) {
        let _ = self.b.begin_block(Some(label));
        self.f.label = label;
        self.f.open = true;
    }

    pub fn branch(&mut self, target: Word) {
        if self.f.open {
            let _ = self.b.branch(target);
            self.f.open = false;
        }
    }

    pub fn branch_if(&mut self, cond: Word, yes: Word, no: Word) {
        if self.f.open {
            let _ = self.b.branch_conditional(cond, yes, no, []);
            self.f.open = false;
        }
    }

    pub fn unreachable(&mut self) {
        if self.f.open {
            let _ = self.b.unreachable();
            self.f.open = false;
        }
    }

    pub fn ret(&mut self, value: Option<Word>) {
        if self.f.open {
            let _ = match value {
                Some(v) => self.b.ret_value(v),
                None => self.b.ret(),
            };
            self.f.open = false;
        }
    }

    /// A `Function` variable of SPIR-V type `ty`, zero-initialized.
    pub fn temp_var(&mut self, ty: Word) -> Word {
        let ptr = self.pointer(StorageClass::Function, ty);
        let null = self.b.constant_null(ty);
        let id = self.b.id();
        self.f.vars.push(dr::Instruction::new(
            Op::Variable,
            Some(ptr),
            Some(id),
            vec![
                Operand::StorageClass(StorageClass::Function),
                Operand::IdRef(null),
            ],
        ));
        id
    }

    /// The input variable of a built-in, declared on first use.
    pub fn input(&mut self, builtin: BuiltIn) -> Word {
        if let Some(&v) = self.inputs.get(&builtin) {
            return v;
        }
        let u32_ty = self.scalar(ScalarType::UInt32);
        let ty = match builtin {
            BuiltIn::GlobalInvocationId | BuiltIn::WorkgroupId | BuiltIn::LocalInvocationId => {
                self.b.type_vector(u32_ty, 3)
            }
            _ => u32_ty,
        };
        let ptr = self.pointer(StorageClass::Input, ty);
        let var = self.global_variable(ptr, StorageClass::Input);
        self.b
            .decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(builtin)]);
        if self
            .m
            .entry
            .as_ref()
            .is_some_and(|e| e.stage == ir::Stage::Pixel)
        {
            // Integer inputs of a fragment shader are not interpolated.
            self.b.decorate(var, Decoration::Flat, []);
        }
        self.inputs.insert(builtin, var);
        self.interface.push(var);
        var
    }

    /// The value of a scalar built-in (`SubgroupSize`, …).
    pub fn load_input(&mut self, builtin: BuiltIn) -> Word {
        let var = self.input(builtin);
        let ty = self.scalar(ScalarType::UInt32);
        self.op(Op::Load, ty, ids(&[var]))
    }

    // ----- values as scalar components -----

    /// The scalar components of `v`, a value of `ty`, in flattening order.
    pub fn decompose(&mut self, ty: TypeId, v: Word) -> Vec<Word> {
        let mut out = Vec::new();
        self.decompose_into(ty, v, &mut out);
        out
    }

    fn decompose_into(&mut self, ty: TypeId, v: Word, out: &mut Vec<Word>) {
        match self.m.types.get(ty).clone() {
            Type::Void => {}
            Type::Scalar(_) | Type::Vector(_, 1) => out.push(v),
            Type::Vector(s, n) => {
                let t = self.scalar(s);
                for i in 0..u32::from(n) {
                    let c = self.op(
                        Op::CompositeExtract,
                        t,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(i)],
                    );
                    out.push(c);
                }
            }
            Type::Matrix {
                scalar, rows, cols, ..
            } => {
                let row_ty = self.vector(scalar, u32::from(cols));
                let t = self.scalar(scalar);
                for r in 0..u32::from(rows) {
                    let row = self.op(
                        Op::CompositeExtract,
                        row_ty,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(r)],
                    );
                    if cols == 1 {
                        out.push(row);
                        continue;
                    }
                    for c in 0..u32::from(cols) {
                        let x = self.op(
                            Op::CompositeExtract,
                            t,
                            vec![Operand::IdRef(row), Operand::LiteralBit32(c)],
                        );
                        out.push(x);
                    }
                }
            }
            Type::Array { element, len } => {
                let el = self.value_type(element);
                for i in 0..len {
                    let x = self.op(
                        Op::CompositeExtract,
                        el,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(i)],
                    );
                    self.decompose_into(element, x, out);
                }
            }
            Type::Struct { members, .. } => {
                for (i, mb) in members.iter().enumerate() {
                    let t = self.value_type(mb.ty);
                    let x = self.op(
                        Op::CompositeExtract,
                        t,
                        vec![Operand::IdRef(v), Operand::LiteralBit32(i as u32)],
                    );
                    self.decompose_into(mb.ty, x, out);
                }
            }
        }
    }

    /// A value of `ty` built from its scalar components.
    pub fn compose(&mut self, ty: TypeId, comps: &[Word]) -> Word {
        let mut at = 0;
        self.compose_from(ty, comps, &mut at)
    }

    fn compose_from(&mut self, ty: TypeId, comps: &[Word], at: &mut usize) -> Word {
        let t = self.value_type(ty);
        let take = |at: &mut usize| {
            let c = comps.get(*at).copied().unwrap_or(0);
            *at += 1;
            c
        };
        match self.m.types.get(ty).clone() {
            Type::Void => t,
            Type::Scalar(_) | Type::Vector(_, 1) => take(at),
            Type::Vector(_, n) => {
                let parts: Vec<Word> = (0..n).map(|_| take(at)).collect();
                self.op(Op::CompositeConstruct, t, ids(&parts))
            }
            Type::Matrix {
                scalar, rows, cols, ..
            } => {
                let row_ty = self.vector(scalar, u32::from(cols));
                let mut rows_v = Vec::new();
                for _ in 0..rows {
                    let parts: Vec<Word> = (0..cols).map(|_| take(at)).collect();
                    rows_v.push(if cols == 1 {
                        parts[0]
                    } else {
                        self.op(Op::CompositeConstruct, row_ty, ids(&parts))
                    });
                }
                self.op(Op::CompositeConstruct, t, ids(&rows_v))
            }
            Type::Array { element, len } => {
                let parts: Vec<Word> = (0..len)
                    .map(|_| self.compose_from(element, comps, at))
                    .collect();
                self.op(Op::CompositeConstruct, t, ids(&parts))
            }
            Type::Struct { members, .. } => {
                let mut parts: Vec<Word> = members
                    .iter()
                    .map(|mb| self.compose_from(mb.ty, comps, at))
                    .collect();
                // The unused word of a struct of methods only.
                if parts.is_empty() {
                    parts.push(self.u32c(0));
                }
                self.op(Op::CompositeConstruct, t, ids(&parts))
            }
        }
    }

    /// The scalar types of `ty`'s components, in flattening order.
    pub fn flat(&self, ty: TypeId) -> Vec<ScalarType> {
        let mut out = Vec::new();
        self.m.types.flatten(ty, &mut out);
        out
    }

    // ----- globals -----

    fn declare_globals(&mut self, bindings: &[crate::VulkanBinding]) -> Result<(), Error> {
        use ir::ResourceKind as K;
        let m = self.m;
        for (i, r) in m.resources.iter().enumerate() {
            if self.record_var(ir::ResourceId(i as u32)).is_some() {
                self.resources.push(None);
                continue;
            }
            let declared = match r.kind {
                K::ConstantBuffer | K::SamplerState => {
                    let size =
                        ir::layout::size_align(&m.types, r.element, ir::LayoutRule::CBuffer).size;
                    let u32_ty = self.scalar(ScalarType::UInt32);
                    let v4 = self.b.type_vector(u32_ty, 4);
                    let len = self.u32c(size.div_ceil(16).max(1));
                    let arr = self.b.type_array(v4, len);
                    self.decorate_once(arr, Decoration::ArrayStride, 16);
                    let block = self.b.type_struct([arr]);
                    self.block(block);
                    let ptr = self.pointer(StorageClass::Uniform, block);
                    let var = self.b.variable(ptr, None, StorageClass::Uniform, None);
                    Some(ResourceVar { var, uniform: true })
                }
                K::StructuredBuffer
                | K::RWStructuredBuffer
                | K::AppendStructuredBuffer
                | K::ConsumeStructuredBuffer
                | K::Buffer
                | K::RWBuffer
                | K::ByteAddressBuffer
                | K::RWByteAddressBuffer => Some(self.storage_buffer(!r.kind.is_writable())),
                // Textures are their texels in row-major order, as in the
                // engine, with their sizes in the module's dims buffer.
                k if k.is_texture() => {
                    self.textures.push(ir::ResourceId(i as u32));
                    Some(self.storage_buffer(!r.kind.is_writable()))
                }
                _ => None,
            };
            if let Some(rv) = &declared {
                let b = bindings[i];
                self.bind(rv.var, b.set, b.binding);
                self.b.name(rv.var, r.name.clone());
                self.interface.push(rv.var);
            }
            self.resources.push(declared);
        }
        for v in &m.statics {
            let ty = self.value_type(v.ty);
            let ptr = self.pointer(StorageClass::Private, ty);
            let null = self.b.constant_null(ty);
            let var = self
                .b
                .variable(ptr, None, StorageClass::Private, Some(null));
            self.b.name(var, v.name.clone());
            self.interface.push(var);
            self.statics.push(var);
        }
        for v in &m.groupshared {
            let ty = self.value_type(v.ty);
            let ptr = self.pointer(StorageClass::Workgroup, ty);
            let var = self.b.variable(ptr, None, StorageClass::Workgroup, None);
            self.b.name(var, v.name.clone());
            self.interface.push(var);
            self.groupshared.push(var);
        }
        Ok(())
    }

    /// A storage buffer of `uint` words, not yet bound.
    fn storage_buffer(&mut self, read_only: bool) -> ResourceVar {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let arr = self.b.type_runtime_array(u32_ty);
        self.decorate_once(arr, Decoration::ArrayStride, 4);
        let block = self.b.type_struct([arr]);
        self.block(block);
        let ptr = self.pointer(StorageClass::StorageBuffer, block);
        let var = self
            .b
            .variable(ptr, None, StorageClass::StorageBuffer, None);
        if read_only {
            self.b.decorate(var, Decoration::NonWritable, []);
        }
        ResourceVar {
            var,
            uniform: false,
        }
    }

    /// The `uint64_t` view of storage buffer `resource`, declared on first
    /// use at the resource's own binding.
    pub fn wide_view(&mut self, resource: usize) -> Word {
        if let Some(&v) = self.wide.get(&resource) {
            return v;
        }
        let u64_ty = self.scalar(ScalarType::UInt64);
        let arr = self.b.type_runtime_array(u64_ty);
        self.decorate_once(arr, Decoration::ArrayStride, 8);
        let block = self.b.type_struct([arr]);
        self.block(block);
        let ptr = self.pointer(StorageClass::StorageBuffer, block);
        let var = self.global_variable(ptr, StorageClass::StorageBuffer);
        let b = self.binding_of[resource];
        self.bind(var, b.set, b.binding);
        self.interface.push(var);
        self.wide.insert(resource, var);
        var
    }

    /// The texture sizes every texture access reads: a storage buffer of
    /// (width, height, depth or slices, 0) per texture, in resource order,
    /// at the lowest binding of set 0 the resources leave free.
    fn declare_dims(&mut self, bindings: &[crate::VulkanBinding]) -> Option<crate::DimsBinding> {
        if self.textures.is_empty() {
            return None;
        }
        let binding = match self.opts.dims_binding {
            Some(b) if b.set == 0 => b.binding,
            _ => (0..)
                .find(|&n| !bindings.iter().any(|b| b.set == 0 && b.binding == n))
                .unwrap_or(0),
        };
        let rv = self.storage_buffer(true);
        self.bind(rv.var, 0, binding);
        self.b.name(rv.var, "lockstep.dims");
        self.interface.push(rv.var);
        self.dims = Some(rv.var);
        Some(crate::DimsBinding {
            binding: crate::VulkanBinding { set: 0, binding },
            textures: self.textures.clone(),
        })
    }

    /// With a step budget, the status buffer at the lowest binding of set 0
    /// that the resources and the dims buffer leave free, and the private
    /// iteration count.
    fn declare_status(
        &mut self,
        bindings: &[crate::VulkanBinding],
        dims: Option<&crate::DimsBinding>,
    ) -> Option<crate::VulkanBinding> {
        self.opts.step_budget?;
        let taken = |n: u32| {
            bindings.iter().any(|b| b.set == 0 && b.binding == n)
                || dims.is_some_and(|d| d.binding.binding == n && d.binding.set == 0)
        };
        let binding = match self.opts.status_binding {
            Some(b) if b.set == 0 => b.binding,
            _ => (0..).find(|&n| !taken(n)).unwrap_or(0),
        };
        let rv = self.storage_buffer(false);
        self.bind(rv.var, 0, binding);
        self.b.name(rv.var, "lockstep.status");
        self.interface.push(rv.var);
        let u32_ty = self.scalar(ScalarType::UInt32);
        let ptr = self.pointer(StorageClass::Private, u32_ty);
        let zero = self.u32c(0);
        let steps = self
            .b
            .variable(ptr, None, StorageClass::Private, Some(zero));
        self.b.name(steps, "lockstep.steps");
        self.interface.push(steps);
        self.guard = Some((steps, rv.var));
        Some(crate::VulkanBinding { set: 0, binding })
    }

    /// Texture `resource`'s size in dimension `axis` (0 width, 1 height,
    /// 2 depth or slices), a `uint`.
    pub fn texture_size(&mut self, resource: ir::ResourceId, axis: u32) -> Word {
        let k = self
            .textures
            .iter()
            .position(|&t| t == resource)
            .unwrap_or(0) as u32;
        let var = self.dims.unwrap_or(0);
        let u32_ty = self.scalar(ScalarType::UInt32);
        let ptr = self.pointer(StorageClass::StorageBuffer, u32_ty);
        let zero = self.u32c(0);
        let at = self.u32c(4 * k + axis);
        let p = self.op(Op::AccessChain, ptr, ids(&[var, zero, at]));
        self.op(Op::Load, u32_ty, ids(&[p]))
    }

    /// Decorates `var` with its descriptor set and binding.
    fn bind(&mut self, var: Word, set: u32, binding: u32) {
        self.b
            .decorate(var, Decoration::DescriptorSet, [Operand::LiteralBit32(set)]);
        self.b
            .decorate(var, Decoration::Binding, [Operand::LiteralBit32(binding)]);
    }

    fn decorate_once(&mut self, ty: Word, d: Decoration, v: u32) {
        if self.decorated.insert(ty) {
            self.b.decorate(ty, d, [Operand::LiteralBit32(v)]);
        }
    }

    fn block(&mut self, block: Word) {
        if self.decorated.insert(block) {
            self.b.decorate(block, Decoration::Block, []);
            self.b
                .member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
        }
    }

    pub fn static_var(&self, id: ir::StaticId) -> Word {
        self.statics[id.index()]
    }

    pub fn groupshared_var(&self, id: ir::GroupsharedId) -> Word {
        self.groupshared[id.index()]
    }

    // ----- functions -----

    /// The id of an IR function; emitting a call asks for its body.
    pub fn function_id(&mut self, f: ir::FunctionId) -> Word {
        self.wanted.push(f);
        self.function_ids[f.index()]
    }

    fn param_type(&mut self, f: &ir::Function, i: usize) -> Word {
        let ty = self.value_type(f.locals[i].ty);
        match f.params[i] {
            ParamDirection::In => ty,
            ParamDirection::Out | ParamDirection::InOut => self.pointer(StorageClass::Function, ty),
        }
    }

    fn function(&mut self, id: ir::FunctionId) -> Result<(), Error> {
        let f = self.m.function(id);
        let result = match f.result {
            Some(t) => self.value_type(t),
            None => self.b.type_void(),
        };
        let params: Vec<Word> = (0..f.params.len()).map(|i| self.param_type(f, i)).collect();
        let fn_ty = self.b.type_function(result, params.clone());
        let fid = self.function_ids[id.index()];
        let _ = self
            .b
            .begin_function(result, Some(fid), FunctionControl::NONE, fn_ty);
        self.b.name(fid, f.name.clone());
        let param_ids: Vec<Word> = params
            .iter()
            .map(|&t| self.b.function_parameter(t).unwrap_or(0))
            .collect();
        self.f = FnState {
            function: Some(id),
            ..FnState::default()
        };
        let first = self.label();
        self.start(first);
        for (i, local) in f.locals.iter().enumerate() {
            let ptr = match f.params.get(i) {
                Some(ParamDirection::Out | ParamDirection::InOut) => param_ids[i],
                Some(ParamDirection::In) => {
                    let ty = self.value_type(local.ty);
                    let var = self.temp_var(ty);
                    self.op_void(Op::Store, ids(&[var, param_ids[i]]));
                    var
                }
                None => {
                    let ty = self.value_type(local.ty);
                    self.temp_var(ty)
                }
            };
            self.f.locals.push(ptr);
        }
        self.block_stmts(&f.body)?;
        if self.f.open {
            match f.result {
                Some(t) => {
                    let ty = self.value_type(t);
                    let null = self.b.constant_null(ty);
                    self.ret(Some(null));
                }
                None => self.ret(None),
            }
        }
        self.finish_function();
        Ok(())
    }

    fn finish_function(&mut self) {
        let vars = std::mem::take(&mut self.f.vars);
        if self.b.select_block(Some(0)).is_ok() {
            for v in vars {
                let _ = self.b.insert_into_block(InsertPoint::Begin, v);
            }
        }
        let _ = self.b.select_block(None);
        let _ = self.b.end_function();
    }

    /// The SPIR-V entry point: runs the statics' initializers, reads the
    /// system values and calls the shader's entry function.
    fn entry_wrapper(&mut self, entry: &ir::EntryPoint) -> Result<Word, Error> {
        let void = self.b.type_void();
        let fn_ty = self.b.type_function(void, []);
        let main = self.b.id();
        let _ = self
            .b
            .begin_function(void, Some(main), FunctionControl::NONE, fn_ty);
        self.f = FnState::default();
        let first = self.label();
        self.start(first);
        self.block_stmts(&self.m.static_init)?;
        if let Some(io) = &entry.io {
            self.fill_inputs(entry.stage, io)?;
        }
        let f = self.m.function(entry.function);
        let mut args = Vec::new();
        for (p, dir) in f.params.iter().enumerate() {
            let ty = f.locals[p].ty;
            let flat = self.flat(ty);
            let mut comps: Vec<Word> = flat.iter().map(|&s| self.zero(s)).collect();
            // A vertex or pixel lane's record is record 0 of its own.
            let compute = entry.stage == ir::Stage::Compute;
            for input in entry
                .inputs
                .iter()
                .filter(|i| compute && i.param as usize == p)
            {
                let values = self.system_value(input.value);
                for k in 0..input.components as usize {
                    let at = input.component as usize + k;
                    if let (Some(slot), Some(&v)) = (comps.get_mut(at), values.get(k)) {
                        let want = flat[at];
                        *slot = self.convert_scalar(v, ScalarType::UInt32, want);
                    }
                }
            }
            let value = self.compose(ty, &comps);
            if *dir == ParamDirection::In {
                args.push(value);
            } else {
                let t = self.value_type(ty);
                let var = self.temp_var(t);
                self.op_void(Op::Store, ids(&[var, value]));
                args.push(var);
            }
        }
        let result = match f.result {
            Some(t) => self.value_type(t),
            None => void,
        };
        let callee = self.function_id(entry.function);
        let mut operands = vec![Operand::IdRef(callee)];
        operands.extend(ids(&args));
        self.op(Op::FunctionCall, result, operands);
        if let Some(io) = &entry.io {
            self.write_outputs(entry.stage, io)?;
        }
        self.ret(None);
        self.finish_function();
        Ok(main)
    }

    fn system_value(&mut self, value: ir::SystemValue) -> Vec<Word> {
        let builtin = match value {
            ir::SystemValue::DispatchThreadId => BuiltIn::GlobalInvocationId,
            ir::SystemValue::GroupId => BuiltIn::WorkgroupId,
            ir::SystemValue::GroupThreadId => BuiltIn::LocalInvocationId,
            ir::SystemValue::GroupIndex => {
                return vec![self.load_input(BuiltIn::LocalInvocationIndex)];
            }
        };
        let var = self.input(builtin);
        let u32_ty = self.scalar(ScalarType::UInt32);
        let v3 = self.b.type_vector(u32_ty, 3);
        let v = self.op(Op::Load, v3, ids(&[var]));
        (0..3)
            .map(|i| {
                self.op(
                    Op::CompositeExtract,
                    u32_ty,
                    vec![Operand::IdRef(v), Operand::LiteralBit32(i)],
                )
            })
            .collect()
    }
}
