//! Expressions, as lists of scalar components: operators, conversions,
//! short-circuit logic, calls and assignments.

use lockstep_ir::{self as ir, BinaryOp, CallArg, Expr, ExprKind, ScalarType, Type, UnaryOp};
use rspirv::dr::Operand;
use rspirv::spirv::{Op, Word};

use crate::Error;
use crate::module::{Emitter, ids};

impl Emitter<'_> {
    /// The value of a scalar expression (a condition, an index).
    pub fn scalar_expr(&mut self, e: &Expr) -> Result<Word, Error> {
        let comps = self.expr(e)?;
        comps
            .first()
            .copied()
            .ok_or_else(|| Error::new("expected a scalar value", Some(e.span)))
    }

    /// The scalar type of every component of `e`'s value.
    pub fn flat_of(&self, e: &Expr) -> Vec<ScalarType> {
        self.flat(e.ty)
    }

    pub fn expr(&mut self, e: &Expr) -> Result<Vec<Word>, Error> {
        let span = Some(e.span);
        Ok(match &e.kind {
            ExprKind::Const(scalars) => scalars.iter().map(|s| self.konst(s.ty, s.bits)).collect(),
            ExprKind::Load(place) => self.load_place(place, e.span)?,
            ExprKind::Construct(args) => {
                let mut out = Vec::new();
                for a in args {
                    out.extend(self.expr(a)?);
                }
                out
            }
            ExprKind::Splat(x) => {
                let v = self.scalar_expr(x)?;
                vec![v; self.m.types.component_count(e.ty) as usize]
            }
            ExprKind::Swizzle(x, picks) => {
                let v = self.expr(x)?;
                picks
                    .iter()
                    .map(|&i| v.get(usize::from(i)).copied())
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| Error::new("swizzle out of range", span))?
            }
            ExprKind::Field(x, i) => {
                let v = self.expr(x)?;
                let range = self.field_range(x.ty, *i);
                v.get(range)
                    .ok_or_else(|| Error::new("field out of range", span))?
                    .to_vec()
            }
            ExprKind::Index(x, i) => self.index_value(x, i)?,
            ExprKind::Unary(op, x) => {
                let v = self.expr(x)?;
                let flat = self.flat_of(x);
                v.iter()
                    .zip(flat)
                    .map(|(&a, s)| self.unary(*op, s, a))
                    .collect()
            }
            ExprKind::Binary(op, a, b) => {
                let va = self.expr(a)?;
                let vb = self.expr(b)?;
                let flat = self.flat_of(a);
                va.iter()
                    .zip(vb)
                    .zip(flat)
                    .map(|((&x, y), s)| self.binary(*op, s, x, y))
                    .collect()
            }
            ExprKind::LogicalAnd(a, b) => vec![self.short_circuit(a, b, true)?],
            ExprKind::LogicalOr(a, b) => vec![self.short_circuit(a, b, false)?],
            ExprKind::Conditional {
                cond,
                accept,
                reject,
            } => self.conditional(cond, accept, reject, e.ty)?,
            ExprKind::Select {
                cond,
                accept,
                reject,
            } => {
                let c = self.expr(cond)?;
                let a = self.expr(accept)?;
                let r = self.expr(reject)?;
                let flat = self.flat(e.ty);
                (0..a.len())
                    .map(|i| {
                        let ty = self.scalar(flat[i]);
                        let ci = c.get(i).or(c.first()).copied().unwrap_or(0);
                        self.op(Op::Select, ty, ids(&[ci, a[i], r[i]]))
                    })
                    .collect()
            }
            ExprKind::Convert(x) => {
                let v = self.expr(x)?;
                let from = self.flat_of(x);
                let to = self.flat(e.ty);
                v.iter()
                    .zip(from.iter().zip(to))
                    .map(|(&c, (&f, t))| self.convert_scalar(c, f, t))
                    .collect()
            }
            ExprKind::Bitcast(x) => {
                let v = self.expr(x)?;
                let from = self.flat_of(x);
                let to = self.flat(e.ty);
                v.iter()
                    .zip(from.iter().zip(to))
                    .map(|(&c, (&f, t))| self.bitcast(c, f, t))
                    .collect()
            }
            ExprKind::Builtin(b, args) => self.builtin(*b, args, e)?,
            ExprKind::Wave(op, args) => self.wave(*op, args, e)?,
            ExprKind::Call { function, args } => self.call(*function, args, e)?,
            ExprKind::Assign {
                place,
                value,
                yield_old,
                ..
            } => {
                let v = self.expr(value)?;
                let p = self.place(place)?;
                let old = if *yield_old {
                    Some(self.load(&p))
                } else {
                    None
                };
                self.store(&p, &v);
                old.unwrap_or(v)
            }
            ExprKind::Atomic { op, place, args } => self.atomic(*op, place, args, e)?,
            ExprKind::ResourceQuery { resource, query } => {
                vec![self.resource_query(*resource, *query, e.span)?]
            }
            ExprKind::Sequence(a, b) => {
                self.expr(a)?;
                self.expr(b)?
            }
        })
    }

    /// The components of member `i` of struct type `ty`, among its
    /// flattened components.
    pub fn field_range(&self, ty: ir::TypeId, i: u32) -> std::ops::Range<usize> {
        let Type::Struct { members, .. } = self.m.types.get(ty) else {
            return 0..0;
        };
        let start: u32 = members
            .iter()
            .take(i as usize)
            .map(|m| self.m.types.component_count(m.ty))
            .sum();
        let len = members
            .get(i as usize)
            .map_or(0, |m| self.m.types.component_count(m.ty));
        start as usize..(start + len) as usize
    }

    /// Components per element of an array, per row of a matrix, or 1 for a
    /// vector; and the number of elements.
    pub fn element_shape(&self, ty: ir::TypeId) -> (u32, u32) {
        match *self.m.types.get(ty) {
            Type::Array { element, len } => (self.m.types.component_count(element), len),
            Type::Matrix { rows, cols, .. } => (u32::from(cols), u32::from(rows)),
            Type::Vector(_, n) => (1, u32::from(n)),
            _ => (1, 1),
        }
    }

    fn index_value(&mut self, x: &Expr, index: &Expr) -> Result<Vec<Word>, Error> {
        let v = self.expr(x)?;
        let (per, count) = self.element_shape(x.ty);
        if let ExprKind::Const(k) = &index.kind
            && let Some(k) = k.first()
        {
            let start = (k.bits as usize).saturating_mul(per as usize);
            if k.bits < u64::from(count) {
                return Ok(v[start..start + per as usize].to_vec());
            }
        }
        // Lanes index the value each with their own index: out of range
        // reads 0, as in the engine.
        let i = self.index_u32(index)?;
        let flat = self.flat(x.ty);
        let in_range = {
            let n = self.u32c(count);
            let b = self.scalar(ScalarType::Bool);
            self.op(Op::ULessThan, b, ids(&[i, n]))
        };
        let mut out = Vec::new();
        for c in 0..per as usize {
            let s = flat[c];
            let ty = self.scalar(s);
            let mut acc = self.zero(s);
            for k in (0..count as usize).rev() {
                let kc = self.u32c(k as u32);
                let b = self.scalar(ScalarType::Bool);
                let hit = self.op(Op::IEqual, b, ids(&[i, kc]));
                acc = self.op(Op::Select, ty, ids(&[hit, v[k * per as usize + c], acc]));
            }
            let zero = self.zero(s);
            out.push(self.op(Op::Select, ty, ids(&[in_range, acc, zero])));
        }
        Ok(out)
    }

    /// An index expression as a `uint`.
    pub fn index_u32(&mut self, index: &Expr) -> Result<Word, Error> {
        let v = self.scalar_expr(index)?;
        let s = self
            .m
            .types
            .scalar_of(index.ty)
            .unwrap_or(ScalarType::UInt32);
        Ok(self.convert_scalar(v, s, ScalarType::UInt32))
    }

    fn short_circuit(&mut self, a: &Expr, b: &Expr, and: bool) -> Result<Word, Error> {
        let va = self.scalar_expr(a)?;
        let from = self.f.label;
        let (rhs, merge) = (self.label(), self.label());
        self.selection_merge(merge);
        if and {
            self.branch_if(va, rhs, merge);
        } else {
            self.branch_if(va, merge, rhs);
        }
        self.start(rhs);
        let vb = self.scalar_expr(b)?;
        let rhs_end = self.f.label;
        self.branch(merge);
        self.start(merge);
        let ty = self.scalar(ScalarType::Bool);
        Ok(self.op(Op::Phi, ty, ids(&[va, from, vb, rhs_end])))
    }

    fn conditional(
        &mut self,
        cond: &Expr,
        accept: &Expr,
        reject: &Expr,
        ty: ir::TypeId,
    ) -> Result<Vec<Word>, Error> {
        let c = self.scalar_expr(cond)?;
        let (yes, no, merge) = (self.label(), self.label(), self.label());
        self.selection_merge(merge);
        self.branch_if(c, yes, no);
        self.start(yes);
        let a = self.expr(accept)?;
        let yes_end = self.f.label;
        self.branch(merge);
        self.start(no);
        let r = self.expr(reject)?;
        let no_end = self.f.label;
        self.branch(merge);
        self.start(merge);
        let flat = self.flat(ty);
        Ok((0..a.len())
            .map(|i| {
                let t = self.scalar(flat[i]);
                self.op(Op::Phi, t, ids(&[a[i], yes_end, r[i], no_end]))
            })
            .collect())
    }

    fn call(
        &mut self,
        function: ir::FunctionId,
        args: &[CallArg],
        e: &Expr,
    ) -> Result<Vec<Word>, Error> {
        let f = self.m.function(function);
        let mut operands = Vec::new();
        let mut copy_back = Vec::new();
        for (i, arg) in args.iter().enumerate() {
            match arg {
                CallArg::In(x) => {
                    let v = self.expr(x)?;
                    operands.push(self.compose(x.ty, &v));
                }
                CallArg::Out(place) | CallArg::InOut(place) => {
                    let ty = f.locals.get(i).map_or(place.ty, |l| l.ty);
                    let t = self.value_type(ty);
                    let var = self.temp_var(t);
                    let p = self.place(place)?;
                    if matches!(arg, CallArg::InOut(_)) {
                        let v = self.load(&p);
                        let v = self.compose(place.ty, &v);
                        self.op_void(Op::Store, ids(&[var, v]));
                    }
                    operands.push(var);
                    copy_back.push((var, t, p, place.ty));
                }
            }
        }
        let result = match f.result {
            Some(t) => self.value_type(t),
            None => self.b.type_void(),
        };
        let callee = self.function_id(function);
        let mut ops = vec![Operand::IdRef(callee)];
        ops.extend(ids(&operands));
        let r = self.op(Op::FunctionCall, result, ops);
        for (var, t, p, ty) in copy_back {
            let v = self.op(Op::Load, t, ids(&[var]));
            let comps = self.decompose(ty, v);
            self.store(&p, &comps);
        }
        Ok(match f.result {
            Some(t) if !matches!(self.m.types.get(e.ty), Type::Void) => self.decompose(t, r),
            _ => Vec::new(),
        })
    }

    fn unary(&mut self, op: UnaryOp, s: ScalarType, a: Word) -> Word {
        let ty = self.scalar(s);
        match op {
            UnaryOp::Neg if s.is_float() => self.op(Op::FNegate, ty, ids(&[a])),
            UnaryOp::Neg => self.op(Op::SNegate, ty, ids(&[a])),
            UnaryOp::Not => self.op(Op::LogicalNot, ty, ids(&[a])),
            UnaryOp::BitNot => self.op(Op::Not, ty, ids(&[a])),
        }
    }

    pub fn binary(&mut self, op: BinaryOp, s: ScalarType, a: Word, b: Word) -> Word {
        let ty = self.scalar(s);
        let bool_ty = self.scalar(ScalarType::Bool);
        let float = s.is_float();
        let signed = s.is_signed();
        let boolean = s == ScalarType::Bool;
        let simple = |o: Op| (o, ty);
        let cmp = |o: Op| (o, bool_ty);
        let (o, t) = match op {
            BinaryOp::Add if float => simple(Op::FAdd),
            BinaryOp::Add => simple(Op::IAdd),
            BinaryOp::Sub if float => simple(Op::FSub),
            BinaryOp::Sub => simple(Op::ISub),
            BinaryOp::Mul if float => simple(Op::FMul),
            BinaryOp::Mul => simple(Op::IMul),
            BinaryOp::Div if float => simple(Op::FDiv),
            BinaryOp::Rem if float => return self.float_rem(s, a, b),
            BinaryOp::Div | BinaryOp::Rem => return self.int_divide(op == BinaryOp::Div, s, a, b),
            BinaryOp::Shl | BinaryOp::Shr => {
                let mask = self.konst(s, u64::from(s.bits() - 1));
                let amount = self.op(Op::BitwiseAnd, ty, ids(&[b, mask]));
                let o = match op {
                    BinaryOp::Shl => Op::ShiftLeftLogical,
                    _ if signed => Op::ShiftRightArithmetic,
                    _ => Op::ShiftRightLogical,
                };
                return self.op(o, ty, ids(&[a, amount]));
            }
            BinaryOp::BitAnd => simple(Op::BitwiseAnd),
            BinaryOp::BitOr => simple(Op::BitwiseOr),
            BinaryOp::BitXor => simple(Op::BitwiseXor),
            BinaryOp::And => simple(Op::LogicalAnd),
            BinaryOp::Or => simple(Op::LogicalOr),
            BinaryOp::Eq if boolean => cmp(Op::LogicalEqual),
            BinaryOp::Ne if boolean => cmp(Op::LogicalNotEqual),
            BinaryOp::Eq if float => cmp(Op::FOrdEqual),
            BinaryOp::Ne if float => cmp(Op::FUnordNotEqual),
            BinaryOp::Lt if float => cmp(Op::FOrdLessThan),
            BinaryOp::Le if float => cmp(Op::FOrdLessThanEqual),
            BinaryOp::Gt if float => cmp(Op::FOrdGreaterThan),
            BinaryOp::Ge if float => cmp(Op::FOrdGreaterThanEqual),
            BinaryOp::Eq => cmp(Op::IEqual),
            BinaryOp::Ne => cmp(Op::INotEqual),
            BinaryOp::Lt if signed => cmp(Op::SLessThan),
            BinaryOp::Le if signed => cmp(Op::SLessThanEqual),
            BinaryOp::Gt if signed => cmp(Op::SGreaterThan),
            BinaryOp::Ge if signed => cmp(Op::SGreaterThanEqual),
            BinaryOp::Lt => cmp(Op::ULessThan),
            BinaryOp::Le => cmp(Op::ULessThanEqual),
            BinaryOp::Gt => cmp(Op::UGreaterThan),
            BinaryOp::Ge => cmp(Op::UGreaterThanEqual),
        };
        self.op(o, t, ids(&[a, b]))
    }

    /// Float `%` as the engine computes it: C's `fmod`, exact (`OpFRem`
    /// may be `x - y * trunc(x / y)` on a device, off by a whole `y`).
    /// `|x|` less the largest `|y| · 2^k` that fits, until below `|y|`:
    /// each subtraction is exact (the two within a factor of two) and at
    /// least halves what is left. The sign is `x`'s; NaN where `x` is not
    /// finite or `y` is 0 or NaN.
    pub(crate) fn float_rem(&mut self, s: ScalarType, x: Word, y: Word) -> Word {
        use rspirv::spirv::GlslStd450Op as GLOp;
        let ty = self.scalar(s);
        let bool_ty = self.scalar(ScalarType::Bool);
        let int_ty = self.scalar(ScalarType::Int32);
        let frexp_ty = self.b.type_struct([ty, int_ty]);
        let (ax, ay) = (
            self.glsl(GLOp::FAbs, ty, &[x]),
            self.glsl(GLOp::FAbs, ty, &[y]),
        );
        let zero = self.zero(s);
        let (inf_bits, nan_bits, sign) = match s.bits() {
            16 => (0x7C00, 0x7E00, 0x8000),
            32 => (0x7F80_0000, 0x7FC0_0000, 0x8000_0000),
            _ => (0x7FF0 << 48, 0x7FF8 << 48, 1 << 63),
        };
        let inf = self.konst(s, inf_bits);
        // Whether a subtraction may apply: `|x|` finite, `|y|` above 0 (a
        // NaN compares false).
        let finite = self.op(Op::FOrdLessThan, bool_ty, ids(&[ax, inf]));
        let positive = self.op(Op::FOrdGreaterThan, bool_ty, ids(&[ay, zero]));
        let ok = self.op(Op::LogicalAnd, bool_ty, ids(&[finite, positive]));
        let fy = self.glsl(GLOp::FrexpStruct, frexp_ty, &[ay]);
        let ey = self.op(
            Op::CompositeExtract,
            int_ty,
            vec![Operand::IdRef(fy), Operand::LiteralBit32(1)],
        );
        let var = self.temp_var(ty);
        self.op_void(Op::Store, ids(&[var, ax]));
        let (header, step, cont, merge) = (self.label(), self.label(), self.label(), self.label());
        self.branch(header);
        self.start(header);
        let r = self.op(Op::Load, ty, ids(&[var]));
        let above = self.op(Op::FOrdGreaterThanEqual, bool_ty, ids(&[r, ay]));
        let go = self.op(Op::LogicalAnd, bool_ty, ids(&[ok, above]));
        self.op_void(
            Op::LoopMerge,
            vec![
                Operand::IdRef(merge),
                Operand::IdRef(cont),
                Operand::LoopControl(rspirv::spirv::LoopControl::NONE),
            ],
        );
        self.branch_if(go, step, merge);
        self.start(step);
        let fr = self.glsl(GLOp::FrexpStruct, frexp_ty, &[r]);
        let er = self.op(
            Op::CompositeExtract,
            int_ty,
            vec![Operand::IdRef(fr), Operand::LiteralBit32(1)],
        );
        let k = self.op(Op::ISub, int_ty, ids(&[er, ey]));
        let one = self.konst(ScalarType::Int32, 1);
        let k1 = self.op(Op::ISub, int_ty, ids(&[k, one]));
        let t = self.glsl(GLOp::Ldexp, ty, &[ay, k]);
        let t1 = self.glsl(GLOp::Ldexp, ty, &[ay, k1]);
        let over = self.op(Op::FOrdGreaterThan, bool_ty, ids(&[t, r]));
        let t = self.op(Op::Select, ty, ids(&[over, t1, t]));
        let next = self.op(Op::FSub, ty, ids(&[r, t]));
        self.op_void(Op::Store, ids(&[var, next]));
        self.branch(cont);
        self.start(cont);
        self.branch(header);
        self.start(merge);
        let r = self.op(Op::Load, ty, ids(&[var]));
        // `x`'s sign on what is left, then NaN where no remainder exists.
        let uint = match s.bits() {
            16 => ScalarType::UInt16,
            32 => ScalarType::UInt32,
            _ => ScalarType::UInt64,
        };
        let u = self.scalar(uint);
        let (xb, rb) = (self.bitcast(x, s, uint), self.bitcast(r, s, uint));
        let sign = self.konst(uint, sign);
        let xs = self.op(Op::BitwiseAnd, u, ids(&[xb, sign]));
        let signed = self.op(Op::BitwiseOr, u, ids(&[rb, xs]));
        let signed = self.bitcast(signed, uint, s);
        let x_nan = self.op(Op::IsNan, bool_ty, ids(&[x]));
        let y_nan = self.op(Op::IsNan, bool_ty, ids(&[y]));
        let y_zero = self.op(Op::FOrdEqual, bool_ty, ids(&[ay, zero]));
        let x_inf = self.op(Op::IsInf, bool_ty, ids(&[x]));
        let bad = self.op(Op::LogicalOr, bool_ty, ids(&[x_nan, y_nan]));
        let bad = self.op(Op::LogicalOr, bool_ty, ids(&[bad, y_zero]));
        let bad = self.op(Op::LogicalOr, bool_ty, ids(&[bad, x_inf]));
        let nan = self.konst(s, nan_bits);
        self.op(Op::Select, ty, ids(&[bad, nan, signed]))
    }

    /// Integer `/` and `%` with the engine's results where SPIR-V's are
    /// undefined: by zero all ones, `MIN / -1 = MIN`, `MIN % -1 = 0`.
    fn int_divide(&mut self, div: bool, s: ScalarType, a: Word, b: Word) -> Word {
        let ty = self.scalar(s);
        let bool_ty = self.scalar(ScalarType::Bool);
        let zero = self.zero(s);
        let one = self.one(s);
        let ones = self.konst(s, u64::MAX);
        let by_zero = self.op(Op::IEqual, bool_ty, ids(&[b, zero]));
        let mut bad = by_zero;
        let mut overflow = None;
        if s.is_signed() {
            let min = self.konst(s, 1u64 << (s.bits() - 1));
            let a_min = self.op(Op::IEqual, bool_ty, ids(&[a, min]));
            let b_neg1 = self.op(Op::IEqual, bool_ty, ids(&[b, ones]));
            let o = self.op(Op::LogicalAnd, bool_ty, ids(&[a_min, b_neg1]));
            bad = self.op(Op::LogicalOr, bool_ty, ids(&[bad, o]));
            overflow = Some((o, if div { min } else { zero }));
        }
        let safe_b = self.op(Op::Select, ty, ids(&[bad, one, b]));
        let o = match (div, s.is_signed()) {
            (true, true) => Op::SDiv,
            (true, false) => Op::UDiv,
            (false, true) => Op::SRem,
            (false, false) => Op::UMod,
        };
        let mut r = self.op(o, ty, ids(&[a, safe_b]));
        if let Some((o, v)) = overflow {
            r = self.op(Op::Select, ty, ids(&[o, v, r]));
        }
        self.op(Op::Select, ty, ids(&[by_zero, ones, r]))
    }

    /// One scalar converted as HLSL converts it (`docs/semantics.md`):
    /// float to integer truncates and saturates, NaN gives 0; to `bool` is
    /// `x != 0`.
    pub fn convert_scalar(&mut self, v: Word, from: ScalarType, to: ScalarType) -> Word {
        if from == to {
            return v;
        }
        let ty = self.scalar(to);
        let bool_ty = self.scalar(ScalarType::Bool);
        match (from, to) {
            (_, ScalarType::Bool) if from.is_float() => {
                let z = self.zero(from);
                self.op(Op::FUnordNotEqual, bool_ty, ids(&[v, z]))
            }
            (_, ScalarType::Bool) => {
                let z = self.zero(from);
                self.op(Op::INotEqual, bool_ty, ids(&[v, z]))
            }
            (ScalarType::Bool, _) => {
                let one = self.one(to);
                let zero = self.zero(to);
                self.op(Op::Select, ty, ids(&[v, one, zero]))
            }
            _ if from.is_float() && to.is_float() => self.op(Op::FConvert, ty, ids(&[v])),
            _ if from.is_float() => self.float_to_int(v, from, to),
            _ if to.is_float() => {
                let o = if from.is_signed() {
                    Op::ConvertSToF
                } else {
                    Op::ConvertUToF
                };
                self.op(o, ty, ids(&[v]))
            }
            _ if from.bits() == to.bits() => v,
            _ if from.bits() > to.bits() => self.op(Op::UConvert, ty, ids(&[v])),
            _ if from.is_signed() => self.op(Op::SConvert, ty, ids(&[v])),
            _ => self.op(Op::UConvert, ty, ids(&[v])),
        }
    }

    fn float_to_int(&mut self, v: Word, from: ScalarType, to: ScalarType) -> Word {
        let ty = self.scalar(to);
        let fty = self.scalar(from);
        let bool_ty = self.scalar(ScalarType::Bool);
        let bits = to.bits();
        let (lo, hi, lo_bits, hi_bits) = if to.is_signed() {
            let lo = -(2f64.powi(bits as i32 - 1));
            (lo, -lo, 1u64 << (bits - 1), (1u64 << (bits - 1)) - 1)
        } else {
            (0.0, 2f64.powi(bits as i32), 0, u64::MAX >> (64 - bits))
        };
        let lo_f = self.floatc(from, lo);
        let hi_f = self.floatc(from, hi);
        // Out-of-range and NaN lanes convert 0, so the conversion itself is
        // defined, then take their saturated value.
        let below = self.op(Op::FOrdLessThanEqual, bool_ty, ids(&[v, lo_f]));
        let above = self.op(Op::FOrdGreaterThanEqual, bool_ty, ids(&[v, hi_f]));
        let nan = self.op(Op::IsNan, bool_ty, ids(&[v]));
        let zero_f = self.zero(from);
        let out_of_range = self.op(Op::LogicalOr, bool_ty, ids(&[below, above]));
        let bad = self.op(Op::LogicalOr, bool_ty, ids(&[out_of_range, nan]));
        let safe = self.op(Op::Select, fty, ids(&[bad, zero_f, v]));
        let o = if to.is_signed() {
            Op::ConvertFToS
        } else {
            Op::ConvertFToU
        };
        let r = self.op(o, ty, ids(&[safe]));
        let lo_i = self.konst(to, lo_bits);
        let hi_i = self.konst(to, hi_bits);
        let zero = self.zero(to);
        let r = self.op(Op::Select, ty, ids(&[below, lo_i, r]));
        let r = self.op(Op::Select, ty, ids(&[above, hi_i, r]));
        self.op(Op::Select, ty, ids(&[nan, zero, r]))
    }

    pub fn bitcast(&mut self, v: Word, from: ScalarType, to: ScalarType) -> Word {
        if self.scalar(from) == self.scalar(to) {
            return v;
        }
        let ty = self.scalar(to);
        self.op(Op::Bitcast, ty, ids(&[v]))
    }
}
