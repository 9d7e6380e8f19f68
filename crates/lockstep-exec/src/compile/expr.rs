//! Expressions: each evaluates to one register per scalar component.

use super::place::LocKind;
use super::*;
use crate::bytecode::Address;

impl Compiler<'_> {
    /// Compiles an expression; its instructions carry its span.
    pub(super) fn expr(&mut self, e: &Expr) -> Result<Vec<Reg>, ExecError> {
        let outer = std::mem::replace(&mut self.span, self.call_span.unwrap_or(e.span));
        let result = self.expr_kind(e);
        self.span = outer;
        result
    }

    fn expr_kind(&mut self, e: &Expr) -> Result<Vec<Reg>, ExecError> {
        match &e.kind {
            ExprKind::Const(scalars) => Ok(scalars.iter().map(|s| self.constant(s.bits)).collect()),
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
                let from = self.flatten(a.ty);
                let to = self.flatten(e.ty);
                // `int`, `uint` and `float` lanes all hold their 32 bits
                // zero-extended: between them the lane is the result.
                let word = |ty| {
                    matches!(
                        ty,
                        ScalarType::Int32 | ScalarType::UInt32 | ScalarType::Float32
                    )
                };
                Ok(v.iter()
                    .zip(to)
                    .enumerate()
                    .map(|(i, (&src, ty))| {
                        if word(from.get(i).copied().unwrap_or(from[0])) && word(ty) {
                            return src;
                        }
                        let dst = self.temp();
                        let from = from.get(i).copied().unwrap_or(from[0]);
                        self.emit(Inst::Unary {
                            f: alu::bitcast(ty),
                            dst,
                            a: src,
                            masked: false,
                            op32: None,
                            math: None,
                            form: Some(OpForm::Bitcast(from, ty)),
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
                init,
            } => {
                // The value first, then the place, as DXC evaluates them;
                // the value is kept apart from a variable the place's
                // indices change (`o[k++] = k` stores the old `k`).
                let v = self.expr(value)?;
                let v = if lockstep_ir::walk::place_has_effects(place) {
                    self.copy_to_temps(&v)
                } else {
                    v
                };
                let loc = self.place(place)?;
                let old = if *yield_old {
                    let old = self.load(&loc);
                    self.copy_to_temps(&old)
                } else {
                    Vec::new()
                };
                let start = self.code.len();
                self.store(&loc, &v)?;
                // A declaration's initializer writes every lane of the
                // variable: a lane that skips it reads the variable only
                // after running it itself. Not straight in a `switch`,
                // whose case labels can jump past a declaration; checked
                // programs track each lane as it is written.
                if *init && !self.checked && self.frames.last() != Some(&FrameKind::Switch) {
                    for inst in &mut self.code[start..] {
                        if let Inst::CopyMasked { dst, src } = *inst {
                            *inst = Inst::Copy { dst, src };
                        }
                    }
                }
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
                let atomic = Inst::Atomic {
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
                    deferrable: false,
                };
                if matches!(space, crate::bytecode::Space::Resource(_)) {
                    self.unless_helper(|s| {
                        s.emit(atomic);
                        Ok(())
                    })?;
                } else {
                    self.emit(atomic);
                }
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

    pub(super) fn field_range(&self, struct_ty: TypeId, index: u32) -> std::ops::Range<usize> {
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
    pub(super) fn element_of(&self, ty: TypeId) -> (u32, Option<TypeId>) {
        match *self.module.types.get(ty) {
            Type::Array { element, .. } => (self.count(element), Some(element)),
            Type::Matrix { cols, .. } => (u32::from(cols), None),
            _ => (1, None),
        }
    }

    pub(super) fn const_index(index: &Expr) -> Option<u64> {
        match &index.kind {
            ExprKind::Const(s) if s.len() == 1 => Some(s[0].bits),
            _ => None,
        }
    }

    pub(super) fn index_value(&mut self, a: &Expr, index: &Expr) -> Result<Vec<Reg>, ExecError> {
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
        let base = self.copy_to_temps(&v);
        let delta = self.scaled_index(index, u64::from(n), None)?;
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

    pub(super) fn unary(&mut self, op: UnaryOp, a: &Expr) -> Result<Vec<Reg>, ExecError> {
        let v = self.expr(a)?;
        let tys = self.flatten(a.ty);
        v.iter()
            .zip(tys)
            .map(|(&src, ty)| {
                // `!b` is `b == 0` (any nonzero word is true): a 32-bit
                // operation that joins blocks.
                if (op, ty) == (UnaryOp::Not, ScalarType::Bool)
                    && let Some(r) = self.compare_zero(src, ScalarType::UInt32, false)
                {
                    return Ok(r);
                }
                let f = alu::unary(op, ty)
                    .ok_or_else(|| ExecError::new(format!("no {op:?} for {}", ty.name()), None))?;
                let dst = self.temp();
                self.emit(Inst::Unary {
                    f,
                    dst,
                    a: src,
                    masked: false,
                    op32: alu::unary_op32(op, ty),
                    math: None,
                    form: Some(OpForm::Unary(op, ty)),
                });
                Ok(dst)
            })
            .collect()
    }

    pub(super) fn binary(
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

    pub(super) fn binary_regs(
        &mut self,
        op: lockstep_ir::BinaryOp,
        va: &[Reg],
        vb: &[Reg],
        tys: &[ScalarType],
        span: Span,
    ) -> Result<Vec<Reg>, ExecError> {
        use lockstep_ir::BinaryOp as B;
        (0..va.len())
            .map(|i| {
                let ty = tys.get(i).copied().unwrap_or(ScalarType::Int32);
                let on_words = match op {
                    B::BitAnd | B::And => Some(B::BitAnd),
                    B::BitOr | B::Or => Some(B::BitOr),
                    B::BitXor | B::Eq | B::Ne => Some(op),
                    _ => None,
                };
                if let Some(word_op) = on_words.filter(|_| ty == ScalarType::Bool) {
                    // On `bool`s (any nonzero word true): the operands as
                    // 1 or 0, then the 32-bit operation, which joins blocks.
                    let b = vb.get(i).copied().unwrap_or(vb[0]);
                    let [a, b] = [va[i], b].map(|r| self.one_or_zero(r));
                    let tys = [ScalarType::UInt32];
                    return Ok(self.binary_regs(word_op, &[a], &[b], &tys, span)?[0]);
                }
                let f = alu::binary(op, ty).ok_or_else(|| {
                    ExecError::new(
                        format!("operator {op:?} is not defined on {}", ty.name()),
                        Some(span),
                    )
                })?;
                let dst = self.temp();
                let b = vb.get(i).copied().unwrap_or(vb[0]);
                let divides = matches!(op, lockstep_ir::BinaryOp::Div | lockstep_ir::BinaryOp::Rem);
                if self.checked && divides && ty.is_integer() {
                    self.emit(Inst::CheckDivisor { divisor: b });
                }
                let a = va[i];
                // A constant operand as an immediate, where the operation
                // has a loop for it (commutative ones take it either side,
                // but for a `float` NaN: which NaN a sum or product of two
                // NaNs gives depends on their order).
                let commutes = matches!(
                    op,
                    B::Add | B::Mul | B::BitAnd | B::BitOr | B::BitXor | B::Eq | B::Ne
                );
                let nan =
                    |bits: u64| ty == ScalarType::Float32 && f32::from_bits(bits as u32).is_nan();
                let imm = match (self.constant_bits(a), self.constant_bits(b)) {
                    (_, Some(bits)) => Some((a, bits)),
                    (Some(bits), None) if commutes && !nan(bits) => Some((b, bits)),
                    _ => None,
                };
                let op32 = alu::op32(op, ty);
                match imm.zip(alu::binary_imm(op, ty)) {
                    Some(((a, imm), f)) => self.emit(Inst::BinaryImm {
                        f,
                        dst,
                        a,
                        imm,
                        masked: false,
                        op32,
                        form: Some(OpForm::Binary(op, ty)),
                    }),
                    None => self.emit(Inst::Binary {
                        f,
                        dst,
                        a,
                        b,
                        masked: false,
                        op32,
                        math: None,
                        form: Some(OpForm::Binary(op, ty)),
                    }),
                };
                Ok(dst)
            })
            .collect()
    }

    pub(super) fn logical(
        &mut self,
        a: &Expr,
        b: &Expr,
        is_and: bool,
    ) -> Result<Vec<Reg>, ExecError> {
        let ra = self.expr(a)?[0];
        // A cheap right side with no effects runs on every lane (as a
        // `?:`'s arms, see `conditional`): `a ? b : a` for `&&`, `a ? a :
        // b` for `||`, the bits the branch leaves.
        let cost = speculation_cost(&self.module.types, b);
        if !self.checked && cost.is_some_and(|n| n <= MAX_SPECULATED) {
            let rb = self.expr(b)?[0];
            let (yes, no) = if is_and { (rb, ra) } else { (ra, rb) };
            return Ok(vec![self.pick(ra, yes, no, true)]);
        }
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
                masked: false,
                op32: None,
                math: None,
                form: Some(OpForm::Unary(UnaryOp::Not, ScalarType::Bool)),
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

    pub(super) fn conditional(
        &mut self,
        cond: &Expr,
        accept: &Expr,
        reject: &Expr,
        ty: TypeId,
    ) -> Result<Vec<Reg>, ExecError> {
        let c = self.expr(cond)?[0];
        // Two cheap arms with no effects run on every lane, and each lane
        // picks its value: no lane can tell (checked programs branch, so
        // that they see what each lane runs).
        let cost = |e| speculation_cost(&self.module.types, e);
        let both = cost(accept).zip(cost(reject)).map(|(a, b)| a + b);
        if !self.checked && both.is_some_and(|n| n <= MAX_SPECULATED) {
            let a = self.expr(accept)?;
            let b = self.expr(reject)?;
            let word = self.words(cond.ty) && self.words(ty);
            return Ok(a
                .iter()
                .zip(&b)
                .map(|(&a, &b)| self.pick(c, a, b, word))
                .collect());
        }
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

    pub(super) fn select(
        &mut self,
        cond: &Expr,
        accept: &Expr,
        reject: &Expr,
    ) -> Result<Vec<Reg>, ExecError> {
        let c = self.expr(cond)?;
        let a = self.expr(accept)?;
        let b = self.expr(reject)?;
        let word = self.words(cond.ty) && self.words(accept.ty) && self.words(reject.ty);
        Ok((0..a.len())
            .map(|i| {
                let cond = c.get(i).copied().unwrap_or(c[0]);
                self.pick(cond, a[i], b.get(i).copied().unwrap_or(b[0]), word)
            })
            .collect())
    }

    /// `if (cond) … else …` (or `if (!cond)`, `negate`) whose branches only
    /// assign cheap values without effects to locals, compiled without a
    /// branch: each assignment picks, per lane, the new value where the
    /// lane takes its branch and the variable's own elsewhere. No lane can
    /// tell (as for `conditional`): a lane reads what its branch would
    /// have left. `false`, having emitted nothing, for any other `if` and
    /// in checked programs.
    pub(super) fn if_converted(
        &mut self,
        cond: &Expr,
        negate: bool,
        branches: [&lockstep_ir::Block; 2],
    ) -> Result<bool, ExecError> {
        if self.checked {
            return Ok(false);
        }
        let types = &self.module.types;
        let mut assignments = [Vec::new(), Vec::new()];
        let mut cost = 0;
        for (block, list) in branches.iter().zip(&mut assignments) {
            for stmt in &block.stmts {
                let lockstep_ir::Stmt::Expr(Expr {
                    kind: ExprKind::Assign { place, value, .. },
                    ..
                }) = stmt
                else {
                    return Ok(false);
                };
                let Some(n) = speculation_cost(types, value).filter(|_| local_place(place)) else {
                    return Ok(false);
                };
                // The value, and one pick per component.
                cost += n + types.component_count(place.ty);
                list.push((place, &**value));
            }
        }
        if cost > MAX_SPECULATED || assignments.iter().all(Vec::is_empty) {
            return Ok(false);
        }
        let c = self.expr(cond)?[0];
        for (list, taken) in assignments.iter().zip([!negate, negate]) {
            for &(place, value) in list {
                let v = self.expr(value)?;
                let loc = self.place(place)?;
                let old = self.load(&loc);
                let word = self.words(cond.ty) && self.words(place.ty);
                let picked: Vec<Reg> = v
                    .iter()
                    .zip(&old)
                    .map(|(&new, &old)| {
                        let (a, b) = if taken { (new, old) } else { (old, new) };
                        self.pick(c, a, b, word)
                    })
                    .collect();
                self.store(&loc, &picked)?;
            }
        }
        Ok(true)
    }

    /// A new register holding `cond ? a : b` on every lane (`word`: all
    /// three are 32-bit values or `bool`s).
    fn pick(&mut self, cond: Reg, a: Reg, b: Reg, word: bool) -> Reg {
        let dst = self.temp();
        self.emit(Inst::Select {
            dst,
            cond,
            a,
            b,
            word,
            masked: false,
        });
        dst
    }

    /// Whether every component of `ty` is a 32-bit value or a `bool` (a
    /// [`Block32`](crate::bytecode::Block32) can hold it).
    fn words(&self, ty: TypeId) -> bool {
        use ScalarType as S;
        self.flatten(ty)
            .iter()
            .all(|t| matches!(t, S::Bool | S::Int32 | S::UInt32 | S::Float32))
    }

    pub(super) fn convert(&mut self, a: &Expr, to: TypeId) -> Result<Vec<Reg>, ExecError> {
        let v = self.expr(a)?;
        let from = self.flatten(a.ty);
        let to = self.flatten(to);
        Ok(self.convert_regs(&v, &from, &to))
    }

    pub(super) fn convert_regs(
        &mut self,
        v: &[Reg],
        from: &[ScalarType],
        to: &[ScalarType],
    ) -> Vec<Reg> {
        to.iter()
            .enumerate()
            .map(|(i, &t)| {
                let src = v.get(i).copied().unwrap_or(v[0]);
                let f = from.get(i).copied().unwrap_or(from[0]);
                // Widening keeps a lane's bits, but the machine code holds
                // 64-bit values apart from 32-bit ones.
                if f == t || (crate::value::same_lane_bits(f, t) && f.size() == t.size()) {
                    return src;
                }
                if let Some(r) = self.bool_conversion(src, f, t) {
                    return r;
                }
                let dst = self.temp();
                self.emit(Inst::Unary {
                    f: alu::convert(f, t),
                    dst,
                    a: src,
                    masked: false,
                    op32: alu::convert_op32(f, t),
                    math: None,
                    form: Some(OpForm::Convert(f, t)),
                });
                dst
            })
            .collect()
    }

    /// A conversion between `bool` and `int`, `uint` or `float` as 32-bit
    /// operations that join blocks, as `lockstep_wave`'s casts: to `bool`,
    /// `x != 0` (a `float` NaN is true, -0 false); from `bool` (any
    /// nonzero word true), `b != 0`, which gives 1 or 0, times the bits of
    /// 1.0 for `float`. `None` for the other conversions.
    fn bool_conversion(&mut self, src: Reg, from: ScalarType, to: ScalarType) -> Option<Reg> {
        use ScalarType as S;
        let word = |t| matches!(t, S::Int32 | S::UInt32 | S::Float32);
        if to == S::Bool && word(from) {
            let ty = if from == S::Float32 {
                S::Float32
            } else {
                S::UInt32
            };
            return self.compare_zero(src, ty, true);
        }
        if from != S::Bool || !word(to) {
            return None;
        }
        let nonzero = self.compare_zero(src, S::UInt32, true)?;
        if to != S::Float32 {
            return Some(nonzero);
        }
        let one = self.constant(u64::from(1f32.to_bits()));
        let tys = [S::UInt32];
        let span = Span::default();
        let product = self.binary_regs(lockstep_ir::BinaryOp::Mul, &[nonzero], &[one], &tys, span);
        product.ok().map(|r| r[0])
    }

    /// A `bool` register as 1 or 0: itself when it is a constant (which
    /// is 1 or 0 already), else `r != 0`.
    fn one_or_zero(&mut self, r: Reg) -> Reg {
        if self.constant_bits(r).is_some() {
            return r;
        }
        self.compare_zero(r, ScalarType::UInt32, true).unwrap_or(r)
    }

    /// `src != 0` (`ne`) or `src == 0` on `ty`, 1 or 0.
    pub(super) fn compare_zero(&mut self, src: Reg, ty: ScalarType, ne: bool) -> Option<Reg> {
        use lockstep_ir::BinaryOp as B;
        let zero = self.constant(0);
        let op = if ne { B::Ne } else { B::Eq };
        let r = self.binary_regs(op, &[src], &[zero], &[ty], Span::default());
        r.ok().map(|r| r[0])
    }

    pub(super) fn call(&mut self, id: FunctionId, args: &[CallArg]) -> Result<Vec<Reg>, ExecError> {
        if self.calls.len() >= MAX_INLINE_DEPTH {
            return Err(ExecError::new("calls nest too deeply", None));
        }
        let module = self.module;
        let f = module.function(id);
        // Every call is inlined: a function that calls another twice, and
        // so on down, doubles the code at each level.
        if self.code.len() > super::MAX_INSTRUCTIONS {
            return Err(ExecError::new(
                format!(
                    "the shader inlines to more than {} instructions (each call is a copy of the function): call '{}' from fewer places",
                    super::MAX_INSTRUCTIONS,
                    f.name
                ),
                Some(self.span),
            ));
        }
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
        self.check_registers(f.span)?;
        let first_pc = self.code.len() as u32;
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
        let flat = returns_only_at_end(&f.body);
        self.calls.push(CallContext {
            locals: locals.clone(),
            local_types,
            result: result.clone(),
            flat,
        });
        if !flat {
            self.frames.push(FrameKind::Call);
            self.emit(Inst::CallBegin);
        }
        // A library function's findings belong to its call.
        let outer_call = self.call_span;
        if f.library && outer_call.is_none() {
            self.call_span = Some(self.span);
        }
        // A function the entry point calls (past the wrapper of a vertex
        // or pixel shader): its findings name the call.
        let outer_chain = self.user_chain;
        let entry_depth = usize::from(self.module.entry.as_ref().is_some_and(|e| e.io.is_some()));
        let user = self.checked && !f.library && self.calls.len() > entry_depth;
        if user {
            self.user_calls.push(self.span);
            self.user_chain = self.debug.chains.len() as u32;
            self.debug
                .chains
                .push(self.user_calls.iter().rev().copied().collect());
        }
        let body = self.block(&f.body);
        self.call_span = outer_call;
        if user {
            self.user_calls.pop();
            self.user_chain = outer_chain;
        }
        body?;
        if !flat {
            self.emit(Inst::CallEnd);
            self.frames.pop();
        }
        self.calls.pop();
        if self.checked && !f.library && self.call_span.is_none() {
            self.name_locals(f, &locals, first_pc..self.code.len() as u32);
            // The caller's statement goes on in a step of its own.
            self.step_pending = self.stmt != crate::trace::NO_STATEMENT;
        }
        for (param, loc) in places {
            self.store(&loc, &locals[param])?;
        }
        Ok(result)
    }
}

/// Whether `body` returns only as its last statement, if at all: then
/// every lane that enters it is still active at its end, and its call
/// needs no construct to gather the lanes that return.
fn returns_only_at_end(body: &Block) -> bool {
    match body.stmts.split_last() {
        None => true,
        Some((last, rest)) => {
            !rest.iter().any(returns) && (matches!(last, Stmt::Return(_)) || !returns(last))
        }
    }
}

/// Whether `stmt` is or holds a `return`.
fn returns(stmt: &Stmt) -> bool {
    let any = |b: &Block| b.stmts.iter().any(returns);
    match stmt {
        Stmt::Return(_) => true,
        Stmt::If { accept, reject, .. } => any(accept) || any(reject),
        Stmt::Loop {
            body, continuing, ..
        } => any(body) || any(continuing),
        Stmt::Switch { cases, .. } => cases.iter().any(|c| any(&c.body)),
        Stmt::Expr(_) | Stmt::Break | Stmt::Continue | Stmt::Barrier(_) => false,
    }
}

/// Whether `place` is a local (or `static`) variable, or a part of one
/// that no dynamic index picks: registers, not memory.
fn local_place(place: &Place) -> bool {
    matches!(place.root, PlaceRoot::Local(_) | PlaceRoot::Static(_))
        && place.path.iter().all(|a| match a {
            Access::Index(i) => matches!(i.kind, ExprKind::Const(_)),
            Access::Field(_) | Access::Components(_) => true,
        })
}

/// The most operations the two arms of a `?:` (or the assignments of an
/// `if`) may take together to run on every lane (see [`speculation_cost`]).
const MAX_SPECULATED: u32 = 8;

/// The operations `e` takes on each lane, counting one per component of
/// each arithmetic step, when running it where the source does not (a
/// `?:` arm its lane did not pick) cannot be told apart from not running
/// it: locals, constants, arithmetic and the cheap math builtins, with no
/// memory access, wave operation, call or assignment. `None` otherwise.
/// (An integer division by zero gives a value in normal runs; checked
/// runs, which report it, do not run arms on lanes that did not pick
/// them.)
fn speculation_cost(types: &lockstep_ir::TypeArena, e: &Expr) -> Option<u32> {
    let n = types.component_count(e.ty);
    let sum = |es: &[&Expr]| {
        es.iter()
            .try_fold(0u32, |acc, e| Some(acc + speculation_cost(types, e)?))
    };
    let constant = |e: &Expr| matches!(e.kind, ExprKind::Const(_));
    Some(match &e.kind {
        ExprKind::Const(_) => 0,
        ExprKind::Load(place) if local_place(place) => 0,
        ExprKind::Construct(args) => sum(&args.iter().collect::<Vec<_>>())?,
        ExprKind::Splat(a) | ExprKind::Swizzle(a, _) | ExprKind::Field(a, _) => {
            speculation_cost(types, a)?
        }
        ExprKind::Index(a, i) if constant(i) => speculation_cost(types, a)?,
        ExprKind::Unary(_, a) | ExprKind::Convert(a) | ExprKind::Bitcast(a) => {
            n + speculation_cost(types, a)?
        }
        // A division takes several steps per lane (a constant divisor's
        // too).
        ExprKind::Binary(lockstep_ir::BinaryOp::Div | lockstep_ir::BinaryOp::Rem, a, b) => {
            4 * n + sum(&[a, b])?
        }
        ExprKind::Binary(_, a, b) => n + sum(&[a, b])?,
        ExprKind::LogicalAnd(a, b) | ExprKind::LogicalOr(a, b) => 2 + sum(&[a, b])?,
        ExprKind::Conditional {
            cond,
            accept,
            reject,
        }
        | ExprKind::Select {
            cond,
            accept,
            reject,
        } => n + sum(&[cond, accept, reject])?,
        ExprKind::Builtin(b, args) => {
            use lockstep_ir::Builtin as B;
            let steps = match b {
                B::Abs | B::Min | B::Max | B::Saturate | B::Floor | B::Ceil | B::Round => 1,
                B::Trunc | B::Sqrt | B::Rcp | B::Rsqrt | B::IsNan => 1,
                B::CountBits | B::FirstBitHigh | B::FirstBitLow | B::ReverseBits => 1,
                B::Clamp | B::Mad | B::Fma | B::Frac | B::Step | B::IsInf | B::IsFinite => 2,
                B::Lerp | B::Sign => 3,
                _ => return None,
            };
            steps * n + sum(&args.iter().collect::<Vec<_>>())?
        }
        _ => return None,
    })
}
