//! Lowers the IR to wave bytecode: every function call is inlined, values
//! are split into scalar components, one register per component.

use lockstep_ir::layout::{array_stride, scalar_slots};
use lockstep_ir::{
    Access, Block, Builtin, CallArg, Expr, ExprKind, Function, FunctionId, LayoutRule, LocalId,
    Module, Place, PlaceRoot, ResourceKind, ScalarType, Span, Stmt, SystemValue, Type, TypeId,
    UnaryOp, WaveOp,
};

use crate::ExecError;
use crate::alu::{self, BuiltinFn};
use crate::bytecode::{Address, FrameDepth, Inst, Reg, Space};

/// A shader ready to run.
#[derive(Debug)]
pub struct Program {
    pub(crate) code: Vec<Inst>,
    pub(crate) reg_count: u32,
    /// The registers of each entry-point input, with their scalar type.
    pub(crate) inputs: Vec<(SystemValue, Vec<Reg>, ScalarType)>,
    pub group_size: [u32; 3],
    pub groupshared_bytes: u32,
    /// Bytes per element of each resource (its stride), by resource id.
    pub(crate) element_strides: Vec<u32>,
}

impl Program {
    /// Compiles the module's entry point.
    pub fn compile(module: &Module) -> Result<Program, ExecError> {
        let entry = module
            .entry
            .as_ref()
            .ok_or_else(|| ExecError::new("the module has no entry point", None))?;
        let mut c = Compiler::new(module);
        let groupshared_bytes = c.layout_groupshared()?;
        c.allocate_statics();
        let function = module.function(entry.function);
        let locals = c.allocate_locals(function);
        let inputs = entry
            .inputs
            .iter()
            .enumerate()
            .map(|(i, sv)| {
                let ty = module
                    .types
                    .scalar_of(function.locals[i].ty)
                    .unwrap_or(ScalarType::UInt32);
                (*sv, locals.get(i).cloned().unwrap_or_default(), ty)
            })
            .collect();
        c.frames.push(FrameKind::Call);
        c.emit(Inst::CallBegin);
        c.zero_statics();
        // Parameters hold the system values; the other locals start at 0.
        c.zero(&locals[function.params.len().min(locals.len())..]);
        c.calls.push(CallContext {
            locals,
            local_types: function.locals.iter().map(|l| l.ty).collect(),
            result: Vec::new(),
        });
        c.block(&module.static_init)?;
        c.block(&function.body)?;
        c.calls.pop();
        c.emit(Inst::CallEnd);
        c.frames.pop();
        c.emit(Inst::Exit);
        let element_strides = module
            .resources
            .iter()
            .map(|r| match r.kind {
                ResourceKind::ByteAddressBuffer | ResourceKind::RWByteAddressBuffer => 1,
                k => array_stride(&module.types, r.element, k.layout_rule()),
            })
            .collect();
        Ok(Program {
            code: c.code,
            reg_count: c.max_reg,
            inputs,
            group_size: entry.group_size,
            groupshared_bytes,
            element_strides,
        })
    }

    /// The number of bytecode instructions (for tests and `--stats`).
    pub fn code_len(&self) -> usize {
        self.code.len()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameKind {
    If,
    Loop,
    Switch,
    Call,
}

struct CallContext {
    locals: Vec<Vec<Reg>>,
    local_types: Vec<TypeId>,
    result: Vec<Reg>,
}

/// The type of a place while its path is applied: a vector type the
/// module's arena may not hold (a matrix row) is described directly.
#[derive(Clone, Copy, Debug)]
enum PlaceTy {
    Id(TypeId),
    Vector(ScalarType, u8),
}

fn scalar_of_shape(ty: &Type) -> ScalarType {
    match *ty {
        Type::Scalar(s) | Type::Vector(s, _) | Type::Matrix { scalar: s, .. } => s,
        _ => ScalarType::UInt32,
    }
}

/// Where a place's components live.
#[derive(Clone, Debug)]
enum LocKind {
    /// In registers; `end` is one past the root variable's last register.
    Regs {
        end: u32,
    },
    Mem {
        space: Space,
    },
}

/// A resolved place: component locations (register numbers or byte
/// offsets), plus a per-lane delta when an index is not constant.
#[derive(Clone, Debug)]
struct Loc {
    kind: LocKind,
    comps: Vec<(u32, ScalarType)>,
    dynamic: Option<Reg>,
}

const MAX_INLINE_DEPTH: usize = 64;

struct Compiler<'m> {
    module: &'m Module,
    code: Vec<Inst>,
    next_reg: u32,
    max_reg: u32,
    statics: Vec<Vec<Reg>>,
    groupshared: Vec<u32>,
    frames: Vec<FrameKind>,
    calls: Vec<CallContext>,
}

impl<'m> Compiler<'m> {
    fn new(module: &'m Module) -> Compiler<'m> {
        Compiler {
            module,
            code: Vec::new(),
            next_reg: 0,
            max_reg: 0,
            statics: Vec::new(),
            groupshared: Vec::new(),
            frames: Vec::new(),
            calls: Vec::new(),
        }
    }

    fn emit(&mut self, inst: Inst) -> usize {
        self.code.push(inst);
        self.code.len() - 1
    }

    fn alloc(&mut self, n: u32) -> Vec<Reg> {
        let regs = (self.next_reg..self.next_reg + n).map(Reg).collect();
        self.next_reg += n;
        self.max_reg = self.max_reg.max(self.next_reg);
        regs
    }

    fn temp(&mut self) -> Reg {
        self.alloc(1)[0]
    }

    fn flatten(&self, ty: TypeId) -> Vec<ScalarType> {
        let mut out = Vec::new();
        self.module.types.flatten(ty, &mut out);
        out
    }

    fn count(&self, ty: TypeId) -> u32 {
        self.module.types.component_count(ty)
    }

    fn layout_groupshared(&mut self) -> Result<u32, ExecError> {
        let mut offset = 0u32;
        for var in &self.module.groupshared {
            let sa =
                lockstep_ir::layout::size_align(&self.module.types, var.ty, LayoutRule::Packed);
            offset = offset.div_ceil(sa.align.max(4)) * sa.align.max(4);
            self.groupshared.push(offset);
            offset = offset
                .checked_add(sa.size)
                .filter(|&o| o <= 1 << 30)
                .ok_or_else(|| ExecError::new("groupshared memory is too large", None))?;
        }
        Ok(offset)
    }

    fn allocate_statics(&mut self) {
        for var in &self.module.statics {
            let n = self.count(var.ty);
            let regs = self.alloc(n);
            self.statics.push(regs);
        }
    }

    fn zero_statics(&mut self) {
        let regs: Vec<Reg> = self.statics.iter().flatten().copied().collect();
        for dst in regs {
            self.emit(Inst::Const { dst, bits: 0 });
        }
    }

    /// Registers for every local of a function, zeroed so that a read before
    /// any write is deterministic.
    fn allocate_locals(&mut self, f: &Function) -> Vec<Vec<Reg>> {
        f.locals
            .iter()
            .map(|l| self.alloc(self.module.types.component_count(l.ty)))
            .collect()
    }

    fn zero(&mut self, regs: &[Vec<Reg>]) {
        for &dst in regs.iter().flatten() {
            self.emit(Inst::Const { dst, bits: 0 });
        }
    }

    fn depth_of(&self, wanted: &[FrameKind]) -> Option<FrameDepth> {
        self.frames
            .iter()
            .rposition(|k| wanted.contains(k))
            .map(|d| d as FrameDepth)
    }

    // ----- statements -----

    fn block(&mut self, block: &Block) -> Result<(), ExecError> {
        for stmt in &block.stmts {
            let mark = self.next_reg;
            let ends = self.stmt(stmt)?;
            self.next_reg = mark;
            if ends {
                // Nothing after an unconditional jump can run.
                break;
            }
        }
        Ok(())
    }

    /// Compiles one statement; `true` when it always leaves the block.
    fn stmt(&mut self, stmt: &Stmt) -> Result<bool, ExecError> {
        match stmt {
            Stmt::Expr(e) => {
                self.expr(e)?;
            }
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                let c = self.expr(cond)?[0];
                self.if_else(c, |s| s.block(accept), |s| s.block(reject))?;
            }
            Stmt::Loop {
                body,
                continuing,
                span,
            } => self.lower_loop(body, continuing, *span)?,
            Stmt::Switch { selector, cases } => self.lower_switch(selector, cases)?,
            Stmt::Break => {
                let frame = self
                    .depth_of(&[FrameKind::Loop, FrameKind::Switch])
                    .ok_or_else(|| ExecError::new("'break' outside a loop or switch", None))?;
                self.emit(Inst::Break { frame });
                return Ok(true);
            }
            Stmt::Continue => {
                let frame = self
                    .depth_of(&[FrameKind::Loop])
                    .ok_or_else(|| ExecError::new("'continue' outside a loop", None))?;
                self.emit(Inst::Continue { frame });
                return Ok(true);
            }
            Stmt::Return(value) => {
                if let Some(value) = value {
                    let v = self.expr(value)?;
                    let result = self
                        .calls
                        .last()
                        .map(|c| c.result.clone())
                        .unwrap_or_default();
                    for (&dst, &src) in result.iter().zip(&v) {
                        self.emit(Inst::CopyMasked { dst, src });
                    }
                }
                let frame = self.depth_of(&[FrameKind::Call]).unwrap_or(0);
                self.emit(Inst::Return { frame });
                return Ok(true);
            }
            Stmt::Barrier(_) => {
                self.emit(Inst::Barrier);
            }
        }
        Ok(false)
    }

    fn if_else(
        &mut self,
        cond: Reg,
        accept: impl FnOnce(&mut Self) -> Result<(), ExecError>,
        reject: impl FnOnce(&mut Self) -> Result<(), ExecError>,
    ) -> Result<(), ExecError> {
        let begin = self.emit(Inst::IfBegin { cond, else_pc: 0 });
        self.frames.push(FrameKind::If);
        accept(self)?;
        let else_at = self.emit(Inst::Else { end_pc: 0 });
        reject(self)?;
        let end = self.emit(Inst::IfEnd);
        self.frames.pop();
        self.code[begin] = Inst::IfBegin {
            cond,
            else_pc: else_at as u32,
        };
        self.code[else_at] = Inst::Else { end_pc: end as u32 };
        Ok(())
    }

    fn lower_loop(
        &mut self,
        body: &Block,
        continuing: &Block,
        span: Span,
    ) -> Result<(), ExecError> {
        self.emit(Inst::LoopBegin);
        self.frames.push(FrameKind::Loop);
        let top = self.emit(Inst::LoopIter { exit_pc: 0, span });
        self.block(body)?;
        self.emit(Inst::LoopContinuing);
        self.block(continuing)?;
        self.emit(Inst::Jump { target: top as u32 });
        let exit = self.emit(Inst::LoopEnd);
        self.frames.pop();
        self.code[top] = Inst::LoopIter {
            exit_pc: exit as u32,
            span,
        };
        Ok(())
    }

    fn lower_switch(
        &mut self,
        selector: &Expr,
        cases: &[lockstep_ir::SwitchCase],
    ) -> Result<(), ExecError> {
        let selector_ty = self
            .module
            .types
            .scalar_of(selector.ty)
            .unwrap_or(ScalarType::Int32);
        let sel = self.expr(selector)?[0];
        let all: Box<[u64]> = cases
            .iter()
            .flat_map(|c| c.values.iter().copied())
            .collect();
        self.emit(Inst::SwitchBegin);
        self.frames.push(FrameKind::Switch);
        for case in cases {
            let mark = self.next_reg;
            self.emit(Inst::SwitchCase {
                selector: sel,
                selector_ty,
                values: case.values.clone().into_boxed_slice(),
                default_all: case.is_default.then(|| all.clone()),
            });
            self.block(&case.body)?;
            self.next_reg = mark;
        }
        self.emit(Inst::SwitchEnd);
        self.frames.pop();
        Ok(())
    }

    // ----- expressions -----

    fn expr(&mut self, e: &Expr) -> Result<Vec<Reg>, ExecError> {
        match &e.kind {
            ExprKind::Const(scalars) => Ok(scalars
                .iter()
                .map(|s| {
                    let dst = self.temp();
                    self.emit(Inst::Const { dst, bits: s.bits });
                    dst
                })
                .collect()),
            ExprKind::Load(place) => {
                let loc = self.place(place)?;
                Ok(self.load(&loc))
            }
            ExprKind::Construct(args) => {
                let mut out = Vec::new();
                for a in args {
                    out.extend(self.expr(a)?);
                }
                Ok(out)
            }
            ExprKind::Splat(a) => {
                let r = self.expr(a)?[0];
                Ok(vec![r; self.count(e.ty) as usize])
            }
            ExprKind::Swizzle(a, comps) => {
                let v = self.expr(a)?;
                Ok(comps
                    .iter()
                    .map(|&c| v.get(usize::from(c)).copied().unwrap_or(v[0]))
                    .collect())
            }
            ExprKind::Field(a, index) => {
                let v = self.expr(a)?;
                let range = self.field_range(a.ty, *index);
                Ok(v[range].to_vec())
            }
            ExprKind::Index(a, index) => self.index_value(a, index),
            ExprKind::Unary(op, a) => self.unary(*op, a),
            ExprKind::Binary(op, a, b) => self.binary(*op, a, b, e.span),
            ExprKind::LogicalAnd(a, b) => self.logical(a, b, true),
            ExprKind::LogicalOr(a, b) => self.logical(a, b, false),
            ExprKind::Conditional {
                cond,
                accept,
                reject,
            } => self.conditional(cond, accept, reject, e.ty),
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => self.select(cond, accept, reject),
            ExprKind::Convert(a) => self.convert(a, e.ty),
            ExprKind::Bitcast(a) => {
                let v = self.expr(a)?;
                let to = self.flatten(e.ty);
                Ok(v.iter()
                    .zip(to)
                    .map(|(&src, ty)| {
                        let dst = self.temp();
                        self.emit(Inst::Unary {
                            f: alu::bitcast(ty),
                            dst,
                            a: src,
                        });
                        dst
                    })
                    .collect())
            }
            ExprKind::Builtin(b, args) => self.builtin(*b, args, e),
            ExprKind::Wave(op, args) => self.wave(*op, args, e),
            ExprKind::Call { function, args } => self.call(*function, args),
            ExprKind::Assign {
                place,
                value,
                yield_old,
            } => {
                let v = self.expr(value)?;
                let loc = self.place(place)?;
                let old = if *yield_old {
                    let old = self.load(&loc);
                    old.iter()
                        .map(|&src| {
                            let dst = self.temp();
                            self.emit(Inst::Copy { dst, src });
                            dst
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                self.store(&loc, &v);
                Ok(if *yield_old { old } else { v })
            }
            ExprKind::Atomic { op, place, args } => {
                let loc = self.place(place)?;
                let mut vals = Vec::new();
                for a in args {
                    vals.push(self.expr(a)?[0]);
                }
                let LocKind::Mem { space } = loc.kind else {
                    return Err(ExecError::new(
                        "atomic operation on a value that is not in memory",
                        Some(e.span),
                    ));
                };
                let (offset, ty) = loc.comps[0];
                let dst = self.temp();
                let a = vals.first().copied().unwrap_or(dst);
                let b = vals.get(1).copied().unwrap_or(a);
                self.emit(Inst::Atomic {
                    op: *op,
                    ty,
                    addr: Address {
                        space,
                        dynamic: loc.dynamic,
                        offset,
                    },
                    dst,
                    a,
                    b,
                });
                Ok(vec![dst])
            }
            ExprKind::ResourceQuery { resource, query } => {
                let dst = self.temp();
                self.emit(Inst::Query {
                    dst,
                    resource: *resource,
                    query: *query,
                });
                Ok(vec![dst])
            }
            ExprKind::Sequence(a, b) => {
                self.expr(a)?;
                self.expr(b)
            }
        }
    }

    fn field_range(&self, struct_ty: TypeId, index: u32) -> std::ops::Range<usize> {
        let Type::Struct { members, .. } = self.module.types.get(struct_ty) else {
            return 0..0;
        };
        let start: u32 = members[..index as usize]
            .iter()
            .map(|m| self.count(m.ty))
            .sum();
        let len = self.count(members[index as usize].ty);
        start as usize..(start + len) as usize
    }

    /// The element type and component count of indexing into `ty`.
    fn element_of(&self, ty: TypeId) -> (u32, Option<TypeId>) {
        match *self.module.types.get(ty) {
            Type::Array { element, .. } => (self.count(element), Some(element)),
            Type::Matrix { cols, .. } => (u32::from(cols), None),
            _ => (1, None),
        }
    }

    fn const_index(index: &Expr) -> Option<u64> {
        match &index.kind {
            ExprKind::Const(s) if s.len() == 1 => Some(s[0].bits),
            _ => None,
        }
    }

    fn index_value(&mut self, a: &Expr, index: &Expr) -> Result<Vec<Reg>, ExecError> {
        let v = self.expr(a)?;
        let (n, _) = self.element_of(a.ty);
        let total = v.len() as u64;
        if let Some(k) = Self::const_index(index) {
            let start = k.saturating_mul(u64::from(n));
            if start + u64::from(n) <= total {
                return Ok(v[start as usize..(start + u64::from(n)) as usize].to_vec());
            }
        }
        // A dynamic index reads through a contiguous copy of the value.
        let base = self.alloc(v.len() as u32);
        for (&dst, &src) in base.iter().zip(&v) {
            self.emit(Inst::Copy { dst, src });
        }
        let idx = self.expr(index)?[0];
        let index_ty = self
            .module
            .types
            .scalar_of(index.ty)
            .unwrap_or(ScalarType::UInt32);
        let delta = self.temp();
        self.emit(Inst::IndexScale {
            dst: delta,
            index: idx,
            index_ty,
            scale: u64::from(n),
            base: None,
        });
        Ok((0..n as usize)
            .map(|c| {
                let dst = self.temp();
                let limit = (v.len() - c) as u32;
                self.emit(Inst::Gather {
                    dst,
                    base: base[c],
                    delta,
                    limit,
                });
                dst
            })
            .collect())
    }

    fn unary(&mut self, op: UnaryOp, a: &Expr) -> Result<Vec<Reg>, ExecError> {
        let v = self.expr(a)?;
        let tys = self.flatten(a.ty);
        v.iter()
            .zip(tys)
            .map(|(&src, ty)| {
                let f = alu::unary(op, ty)
                    .ok_or_else(|| ExecError::new(format!("no {op:?} for {}", ty.name()), None))?;
                let dst = self.temp();
                self.emit(Inst::Unary { f, dst, a: src });
                Ok(dst)
            })
            .collect()
    }

    fn binary(
        &mut self,
        op: lockstep_ir::BinaryOp,
        a: &Expr,
        b: &Expr,
        span: Span,
    ) -> Result<Vec<Reg>, ExecError> {
        let va = self.expr(a)?;
        let vb = self.expr(b)?;
        let tys = self.flatten(a.ty);
        self.binary_regs(op, &va, &vb, &tys, span)
    }

    fn binary_regs(
        &mut self,
        op: lockstep_ir::BinaryOp,
        va: &[Reg],
        vb: &[Reg],
        tys: &[ScalarType],
        span: Span,
    ) -> Result<Vec<Reg>, ExecError> {
        (0..va.len())
            .map(|i| {
                let ty = tys.get(i).copied().unwrap_or(ScalarType::Int32);
                let f = alu::binary(op, ty).ok_or_else(|| {
                    ExecError::new(
                        format!("operator {op:?} is not defined on {}", ty.name()),
                        Some(span),
                    )
                })?;
                let dst = self.temp();
                let b = vb.get(i).copied().unwrap_or(vb[0]);
                self.emit(Inst::Binary {
                    f,
                    dst,
                    a: va[i],
                    b,
                });
                Ok(dst)
            })
            .collect()
    }

    fn logical(&mut self, a: &Expr, b: &Expr, is_and: bool) -> Result<Vec<Reg>, ExecError> {
        let ra = self.expr(a)?[0];
        let result = self.temp();
        self.emit(Inst::Copy {
            dst: result,
            src: ra,
        });
        let cond = if is_and {
            ra
        } else {
            let not_a = self.temp();
            self.emit(Inst::Unary {
                f: alu::unary(UnaryOp::Not, ScalarType::Bool).expect("not"),
                dst: not_a,
                a: ra,
            });
            not_a
        };
        self.if_else(
            cond,
            |s| {
                let rb = s.expr(b)?[0];
                s.emit(Inst::CopyMasked {
                    dst: result,
                    src: rb,
                });
                Ok(())
            },
            |_| Ok(()),
        )?;
        Ok(vec![result])
    }

    fn conditional(
        &mut self,
        cond: &Expr,
        accept: &Expr,
        reject: &Expr,
        ty: TypeId,
    ) -> Result<Vec<Reg>, ExecError> {
        let c = self.expr(cond)?[0];
        let result = self.alloc(self.count(ty));
        let r2 = result.clone();
        self.if_else(
            c,
            |s| {
                let v = s.expr(accept)?;
                for (&dst, &src) in result.iter().zip(&v) {
                    s.emit(Inst::CopyMasked { dst, src });
                }
                Ok(())
            },
            |s| {
                let v = s.expr(reject)?;
                for (&dst, &src) in r2.iter().zip(&v) {
                    s.emit(Inst::CopyMasked { dst, src });
                }
                Ok(())
            },
        )?;
        Ok(result)
    }

    fn select(&mut self, cond: &Expr, accept: &Expr, reject: &Expr) -> Result<Vec<Reg>, ExecError> {
        let c = self.expr(cond)?;
        let a = self.expr(accept)?;
        let b = self.expr(reject)?;
        Ok((0..a.len())
            .map(|i| {
                let dst = self.temp();
                let cond = c.get(i).copied().unwrap_or(c[0]);
                self.emit(Inst::Select {
                    dst,
                    cond,
                    a: a[i],
                    b: b.get(i).copied().unwrap_or(b[0]),
                });
                dst
            })
            .collect())
    }

    fn convert(&mut self, a: &Expr, to: TypeId) -> Result<Vec<Reg>, ExecError> {
        let v = self.expr(a)?;
        let from = self.flatten(a.ty);
        let to = self.flatten(to);
        Ok(self.convert_regs(&v, &from, &to))
    }

    fn convert_regs(&mut self, v: &[Reg], from: &[ScalarType], to: &[ScalarType]) -> Vec<Reg> {
        to.iter()
            .enumerate()
            .map(|(i, &t)| {
                let src = v.get(i).copied().unwrap_or(v[0]);
                let f = from.get(i).copied().unwrap_or(from[0]);
                if f == t {
                    return src;
                }
                let dst = self.temp();
                self.emit(Inst::Unary {
                    f: alu::convert(f, t),
                    dst,
                    a: src,
                });
                dst
            })
            .collect()
    }

    fn call(&mut self, id: FunctionId, args: &[CallArg]) -> Result<Vec<Reg>, ExecError> {
        if self.calls.len() >= MAX_INLINE_DEPTH {
            return Err(ExecError::new("calls nest too deeply", None));
        }
        let module = self.module;
        let f = module.function(id);
        let mut inputs = Vec::new();
        let mut places = Vec::new();
        for arg in args {
            match arg {
                CallArg::In(e) => inputs.push(Some(self.expr(e)?)),
                CallArg::Out(p) => {
                    places.push((inputs.len(), self.place(p)?));
                    inputs.push(None);
                }
                CallArg::InOut(p) => {
                    let loc = self.place(p)?;
                    inputs.push(Some(self.load(&loc)));
                    places.push((inputs.len() - 1, loc));
                }
            }
        }
        let locals = self.allocate_locals(f);
        self.zero(&locals);
        let local_types = f.locals.iter().map(|l| l.ty).collect();
        for (param, value) in locals.iter().zip(&inputs) {
            for (&dst, &src) in param.iter().zip(value.iter().flatten()) {
                self.emit(Inst::Copy { dst, src });
            }
        }
        let result = f
            .result
            .map(|t| self.alloc(self.count(t)))
            .unwrap_or_default();
        self.calls.push(CallContext {
            locals: locals.clone(),
            local_types,
            result: result.clone(),
        });
        self.frames.push(FrameKind::Call);
        self.emit(Inst::CallBegin);
        self.block(&f.body)?;
        self.emit(Inst::CallEnd);
        self.frames.pop();
        self.calls.pop();
        for (param, loc) in places {
            self.store(&loc, &locals[param]);
        }
        Ok(result)
    }

    // ----- built-ins -----

    fn builtin(&mut self, b: Builtin, args: &[Expr], e: &Expr) -> Result<Vec<Reg>, ExecError> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        let arg_ty = args.first().map_or(ScalarType::Float32, |a| {
            self.flatten(a.ty)
                .first()
                .copied()
                .unwrap_or(ScalarType::Float32)
        });
        let unsupported = || {
            ExecError::new(
                format!("{b:?} is not defined on {}", arg_ty.name()),
                Some(e.span),
            )
        };
        match b {
            Builtin::Dot => self
                .dot(&vals[0], &vals[1], arg_ty, e.span)
                .map(|r| vec![r]),
            Builtin::Length => {
                let d = self.dot(&vals[0], &vals[0], arg_ty, e.span)?;
                self.map_builtin(Builtin::Sqrt, &[vec![d]], arg_ty)
                    .ok_or_else(unsupported)
            }
            Builtin::Distance => {
                let diff = self.binary_regs(
                    lockstep_ir::BinaryOp::Sub,
                    &vals[0],
                    &vals[1],
                    &vec![arg_ty; vals[0].len()],
                    e.span,
                )?;
                let d = self.dot(&diff, &diff, arg_ty, e.span)?;
                self.map_builtin(Builtin::Sqrt, &[vec![d]], arg_ty)
                    .ok_or_else(unsupported)
            }
            Builtin::Normalize => {
                let d = self.dot(&vals[0], &vals[0], arg_ty, e.span)?;
                let inv = self
                    .map_builtin(Builtin::Rsqrt, &[vec![d]], arg_ty)
                    .ok_or_else(unsupported)?;
                let tys = vec![arg_ty; vals[0].len()];
                self.binary_regs(lockstep_ir::BinaryOp::Mul, &vals[0], &inv, &tys, e.span)
            }
            Builtin::Cross => self.cross(&vals[0], &vals[1], arg_ty, e.span),
            Builtin::All | Builtin::Any => self
                .all_any(&vals[0], arg_ty, b == Builtin::All)
                .map(|r| vec![r]),
            Builtin::Mul => self.mul(args, &vals, e),
            Builtin::Transpose => {
                let Type::Matrix { rows, cols, .. } = *self.module.types.get(args[0].ty) else {
                    return Err(unsupported());
                };
                let (rows, cols) = (usize::from(rows), usize::from(cols));
                Ok((0..cols)
                    .flat_map(|c| (0..rows).map(move |r| (r, c)))
                    .map(|(r, c)| vals[0][r * cols + c])
                    .collect())
            }
            _ => self.map_builtin(b, &vals, arg_ty).ok_or_else(unsupported),
        }
    }

    /// A component-wise builtin over registers (scalar arguments splat).
    fn map_builtin(&mut self, b: Builtin, vals: &[Vec<Reg>], ty: ScalarType) -> Option<Vec<Reg>> {
        let f = alu::builtin(b, ty)?;
        let n = vals.iter().map(Vec::len).max().unwrap_or(0);
        let arg = |k: usize, i: usize| vals.get(k).map(|v| v.get(i).copied().unwrap_or(v[0]));
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let dst = self.temp();
            let a = arg(0, i)?;
            self.emit(match f {
                BuiltinFn::Unary(f) => Inst::Unary { f, dst, a },
                BuiltinFn::Binary(f) => Inst::Binary {
                    f,
                    dst,
                    a,
                    b: arg(1, i)?,
                },
                BuiltinFn::Ternary(f) => Inst::Ternary {
                    f,
                    dst,
                    a,
                    b: arg(1, i)?,
                    c: arg(2, i)?,
                },
            });
            out.push(dst);
        }
        Some(out)
    }

    /// `a · b`, summed left to right.
    fn dot(&mut self, a: &[Reg], b: &[Reg], ty: ScalarType, span: Span) -> Result<Reg, ExecError> {
        let products =
            self.binary_regs(lockstep_ir::BinaryOp::Mul, a, b, &vec![ty; a.len()], span)?;
        let mut acc = products[0];
        for &p in &products[1..] {
            acc = self.binary_regs(lockstep_ir::BinaryOp::Add, &[acc], &[p], &[ty], span)?[0];
        }
        Ok(acc)
    }

    fn cross(
        &mut self,
        a: &[Reg],
        b: &[Reg],
        ty: ScalarType,
        span: Span,
    ) -> Result<Vec<Reg>, ExecError> {
        use lockstep_ir::BinaryOp::{Mul, Sub};
        let mut out = Vec::new();
        for (i, j) in [(1, 2), (2, 0), (0, 1)] {
            let l = self.binary_regs(Mul, &[a[i]], &[b[j]], &[ty], span)?;
            let r = self.binary_regs(Mul, &[a[j]], &[b[i]], &[ty], span)?;
            out.extend(self.binary_regs(Sub, &l, &r, &[ty], span)?);
        }
        Ok(out)
    }

    fn all_any(&mut self, v: &[Reg], ty: ScalarType, all: bool) -> Result<Reg, ExecError> {
        let bools = self.convert_regs(v, &vec![ty; v.len()], &vec![ScalarType::Bool; v.len()]);
        let op = if all {
            lockstep_ir::BinaryOp::And
        } else {
            lockstep_ir::BinaryOp::Or
        };
        let mut acc = bools[0];
        for &x in &bools[1..] {
            acc = self.binary_regs(op, &[acc], &[x], &[ScalarType::Bool], Span::default())?[0];
        }
        Ok(acc)
    }

    /// `mul(a, b)` for scalars, vectors and matrices.
    fn mul(&mut self, args: &[Expr], vals: &[Vec<Reg>], e: &Expr) -> Result<Vec<Reg>, ExecError> {
        let types = &self.module.types;
        let shape = |ty: TypeId| match *types.get(ty) {
            Type::Matrix { rows, cols, .. } => Some((usize::from(rows), usize::from(cols))),
            _ => None,
        };
        let ty = self
            .flatten(e.ty)
            .first()
            .copied()
            .unwrap_or(ScalarType::Float32);
        let (a, b) = (&vals[0], &vals[1]);
        let tys = vec![ty; a.len().max(b.len())];
        let (sa, sb) = (shape(args[0].ty), shape(args[1].ty));
        if a.len() == 1 || b.len() == 1 {
            return self.binary_regs(
                lockstep_ir::BinaryOp::Mul,
                if a.len() == 1 { b } else { a },
                if a.len() == 1 { a } else { b },
                &tys,
                e.span,
            );
        }
        let (ra, ca) = sa.unwrap_or((1, a.len()));
        let (rb, cb) = sb.unwrap_or((b.len(), 1));
        if ca != rb {
            return Err(ExecError::new(
                "mul: operand shapes do not match",
                Some(e.span),
            ));
        }
        let mut out = Vec::new();
        for i in 0..ra {
            for j in 0..cb {
                let row: Vec<Reg> = (0..ca).map(|k| a[i * ca + k]).collect();
                let col: Vec<Reg> = (0..ca).map(|k| b[k * cb + j]).collect();
                out.push(self.dot(&row, &col, ty, e.span)?);
            }
        }
        Ok(out)
    }

    // ----- wave intrinsics -----

    fn wave(&mut self, op: WaveOp, args: &[Expr], e: &Expr) -> Result<Vec<Reg>, ExecError> {
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.expr(a)?);
        }
        let tys = args.first().map(|a| self.flatten(a.ty)).unwrap_or_default();
        let none = self.temp();
        match op {
            WaveOp::IsFirstLane | WaveOp::GetLaneCount | WaveOp::GetLaneIndex => {
                let dst = self.temp();
                self.emit(Inst::Wave {
                    op,
                    ty: ScalarType::Bool,
                    dst,
                    a: none,
                    b: none,
                });
                Ok(vec![dst])
            }
            WaveOp::Ballot => {
                let dst = self.alloc4();
                self.emit(Inst::Wave4 {
                    op,
                    ty: ScalarType::Bool,
                    dst,
                    a: vals[0][0],
                });
                Ok(dst.to_vec())
            }
            WaveOp::Match => {
                // Lanes match when every component matches.
                let mut acc: Option<[Reg; 4]> = None;
                for (i, &a) in vals[0].iter().enumerate() {
                    let dst = self.alloc4();
                    self.emit(Inst::Wave4 {
                        op,
                        ty: tys[i],
                        dst,
                        a,
                    });
                    acc = Some(match acc {
                        None => dst,
                        Some(prev) => {
                            let and = self.binary_regs(
                                lockstep_ir::BinaryOp::BitAnd,
                                &prev,
                                &dst,
                                &[ScalarType::UInt32; 4],
                                e.span,
                            )?;
                            [and[0], and[1], and[2], and[3]]
                        }
                    });
                }
                Ok(acc.map(|a| a.to_vec()).unwrap_or_default())
            }
            WaveOp::MultiPrefixSum
            | WaveOp::MultiPrefixProduct
            | WaveOp::MultiPrefixCountBits
            | WaveOp::MultiPrefixBitAnd
            | WaveOp::MultiPrefixBitOr
            | WaveOp::MultiPrefixBitXor => {
                let m = &vals[1];
                let mask = [m[0], m[1], m[2], m[3]];
                Ok(vals[0]
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| {
                        let dst = self.temp();
                        self.emit(Inst::MultiPrefix {
                            op,
                            ty: tys[i],
                            dst,
                            a,
                            mask,
                        });
                        dst
                    })
                    .collect())
            }
            _ => {
                let b = vals.get(1).map_or(none, |v| v[0]);
                Ok(vals[0]
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| {
                        let dst = self.temp();
                        self.emit(Inst::Wave {
                            op,
                            ty: tys[i],
                            dst,
                            a,
                            b,
                        });
                        dst
                    })
                    .collect())
            }
        }
    }

    fn alloc4(&mut self) -> [Reg; 4] {
        let r = self.alloc(4);
        [r[0], r[1], r[2], r[3]]
    }

    // ----- places -----

    fn place(&mut self, place: &Place) -> Result<Loc, ExecError> {
        let types = &self.module.types;
        let (mut loc, ty, rule) = match &place.root {
            PlaceRoot::Local(id) => {
                let (regs, root_ty) = self.local(*id)?;
                (self.reg_loc(&regs), root_ty, LayoutRule::Packed)
            }
            PlaceRoot::Static(id) => {
                let regs = self.statics[id.index()].clone();
                let root_ty = self.module.statics[id.index()].ty;
                (self.reg_loc(&regs), root_ty, LayoutRule::Packed)
            }
            PlaceRoot::Groupshared(id) => {
                let var = &self.module.groupshared[id.index()];
                let base = self.groupshared[id.index()];
                (
                    self.mem_loc(Space::Groupshared, var.ty, LayoutRule::Packed, base, None),
                    var.ty,
                    LayoutRule::Packed,
                )
            }
            PlaceRoot::BufferElement { resource, index } => {
                let r = self.module.resource(*resource);
                let rule = r.kind.layout_rule();
                let stride = array_stride(types, r.element, rule);
                let idx = self.expr(index)?[0];
                let index_ty = types.scalar_of(index.ty).unwrap_or(ScalarType::UInt32);
                let addr = self.temp();
                self.emit(Inst::IndexScale {
                    dst: addr,
                    index: idx,
                    index_ty,
                    scale: u64::from(stride),
                    base: None,
                });
                (
                    self.mem_loc(Space::Resource(*resource), r.element, rule, 0, Some(addr)),
                    r.element,
                    rule,
                )
            }
            PlaceRoot::ByteAddress { resource, address } => {
                let a = self.expr(address)?[0];
                let index_ty = types.scalar_of(address.ty).unwrap_or(ScalarType::UInt32);
                let addr = self.temp();
                self.emit(Inst::IndexScale {
                    dst: addr,
                    index: a,
                    index_ty,
                    scale: 1,
                    base: None,
                });
                // The place's own type is what the access reads or writes.
                if !place.path.is_empty() {
                    return Err(ExecError::new(
                        "a byte-address access cannot have a path",
                        None,
                    ));
                }
                let root_ty = place.ty;
                (
                    self.mem_loc(
                        Space::Resource(*resource),
                        root_ty,
                        LayoutRule::Packed,
                        0,
                        Some(addr),
                    ),
                    root_ty,
                    LayoutRule::Packed,
                )
            }
            PlaceRoot::ConstantBuffer { resource } => {
                let r = self.module.resource(*resource);
                (
                    self.mem_loc(
                        Space::Resource(*resource),
                        r.element,
                        LayoutRule::CBuffer,
                        0,
                        None,
                    ),
                    r.element,
                    LayoutRule::CBuffer,
                )
            }
        };
        let mut ty = PlaceTy::Id(ty);
        for access in &place.path {
            ty = self.project(&mut loc, ty, access, rule)?;
        }
        Ok(loc)
    }

    fn local(&self, id: LocalId) -> Result<(Vec<Reg>, TypeId), ExecError> {
        self.calls
            .last()
            .and_then(|c| {
                Some((
                    c.locals.get(id.index())?.clone(),
                    *c.local_types.get(id.index())?,
                ))
            })
            .ok_or_else(|| ExecError::new("reference to an unknown local variable", None))
    }

    fn reg_loc(&self, regs: &[Reg]) -> Loc {
        let end = regs.last().map_or(0, |r| r.0 + 1);
        Loc {
            kind: LocKind::Regs { end },
            comps: regs.iter().map(|r| (r.0, ScalarType::UInt32)).collect(),
            dynamic: None,
        }
    }

    fn mem_loc(
        &self,
        space: Space,
        ty: TypeId,
        rule: LayoutRule,
        base: u32,
        dynamic: Option<Reg>,
    ) -> Loc {
        let comps = scalar_slots(&self.module.types, ty, rule)
            .into_iter()
            .map(|s| (base.saturating_add(s.offset), s.ty))
            .collect();
        Loc {
            kind: LocKind::Mem { space },
            comps,
            dynamic,
        }
    }

    /// Applies one access to a location; returns the type it now has.
    fn project(
        &mut self,
        loc: &mut Loc,
        ty: PlaceTy,
        access: &Access,
        rule: LayoutRule,
    ) -> Result<PlaceTy, ExecError> {
        let types = &self.module.types;
        let shape = match ty {
            PlaceTy::Id(id) => types.get(id).clone(),
            PlaceTy::Vector(s, n) => Type::Vector(s, n),
        };
        match access {
            Access::Field(i) => {
                let (Type::Struct { members, .. }, PlaceTy::Id(id)) = (&shape, ty) else {
                    return Err(ExecError::new(
                        "field access on a value that is not a struct",
                        None,
                    ));
                };
                let member = members
                    .get(*i as usize)
                    .ok_or_else(|| ExecError::new("field index out of range", None))?;
                let member_ty = member.ty;
                loc.comps = loc.comps[self.field_range(id, *i)].to_vec();
                Ok(PlaceTy::Id(member_ty))
            }
            Access::Components(list) => {
                let picked: Option<Vec<_>> = list
                    .iter()
                    .map(|&c| loc.comps.get(usize::from(c)).copied())
                    .collect();
                loc.comps =
                    picked.ok_or_else(|| ExecError::new("component index out of range", None))?;
                let scalar = scalar_of_shape(&shape);
                Ok(PlaceTy::Vector(scalar, list.len() as u8))
            }
            Access::Index(index) => {
                let (n, elem_ty) = match shape {
                    Type::Array { element, .. } => (self.count(element), PlaceTy::Id(element)),
                    Type::Matrix { scalar, cols, .. } => {
                        (u32::from(cols), PlaceTy::Vector(scalar, cols))
                    }
                    ref other => (1, PlaceTy::Vector(scalar_of_shape(other), 1)),
                };
                let scale = match (&loc.kind, &shape) {
                    (LocKind::Regs { .. }, _) => u64::from(n),
                    (LocKind::Mem { .. }, Type::Array { element, .. }) => {
                        u64::from(array_stride(types, *element, rule))
                    }
                    // Vector components and matrix rows: the distance from
                    // the first element to the second.
                    (LocKind::Mem { .. }, _) => loc
                        .comps
                        .get(n as usize)
                        .map_or(0, |next| u64::from(next.0.wrapping_sub(loc.comps[0].0))),
                };
                if let Some(k) = Self::const_index(index) {
                    let start = k.saturating_mul(u64::from(n));
                    if start + u64::from(n) <= loc.comps.len() as u64 {
                        let start = start as usize;
                        loc.comps = loc.comps[start..start + n as usize].to_vec();
                        return Ok(elem_ty);
                    }
                }
                let idx = self.expr(index)?[0];
                let index_ty = self
                    .module
                    .types
                    .scalar_of(index.ty)
                    .unwrap_or(ScalarType::UInt32);
                let delta = self.temp();
                self.emit(Inst::IndexScale {
                    dst: delta,
                    index: idx,
                    index_ty,
                    scale,
                    base: loc.dynamic,
                });
                loc.dynamic = Some(delta);
                loc.comps.truncate(n as usize);
                Ok(elem_ty)
            }
        }
    }

    fn load(&mut self, loc: &Loc) -> Vec<Reg> {
        match loc.kind {
            LocKind::Regs { end } => match loc.dynamic {
                None => loc.comps.iter().map(|&(r, _)| Reg(r)).collect(),
                Some(delta) => loc
                    .comps
                    .iter()
                    .map(|&(r, _)| {
                        let dst = self.temp();
                        self.emit(Inst::Gather {
                            dst,
                            base: Reg(r),
                            delta,
                            limit: end - r,
                        });
                        dst
                    })
                    .collect(),
            },
            LocKind::Mem { space } => loc
                .comps
                .iter()
                .map(|&(offset, ty)| {
                    let dst = self.temp();
                    self.emit(Inst::Load {
                        dst,
                        addr: Address {
                            space,
                            dynamic: loc.dynamic,
                            offset,
                        },
                        ty,
                    });
                    dst
                })
                .collect(),
        }
    }

    fn store(&mut self, loc: &Loc, values: &[Reg]) {
        // A value read straight from the registers being written (`v.yx =
        // v`) is copied first, so no component is overwritten before it is
        // read.
        let copied;
        let values = if matches!(loc.kind, LocKind::Regs { .. })
            && values.iter().any(|v| loc.comps.iter().any(|c| c.0 == v.0))
        {
            copied = values
                .iter()
                .map(|&src| {
                    let dst = self.temp();
                    self.emit(Inst::Copy { dst, src });
                    dst
                })
                .collect::<Vec<_>>();
            &copied[..]
        } else {
            values
        };
        for (i, &(at, ty)) in loc.comps.iter().enumerate() {
            let Some(&src) = values.get(i) else { break };
            match (&loc.kind, loc.dynamic) {
                (LocKind::Regs { .. }, None) => {
                    self.emit(Inst::CopyMasked { dst: Reg(at), src });
                }
                (LocKind::Regs { end }, Some(delta)) => {
                    self.emit(Inst::Scatter {
                        base: Reg(at),
                        delta,
                        limit: end - at,
                        src,
                    });
                }
                (LocKind::Mem { space }, dynamic) => {
                    self.emit(Inst::Store {
                        addr: Address {
                            space: *space,
                            dynamic,
                            offset: at,
                        },
                        ty,
                        src,
                    });
                }
            }
        }
    }
}
