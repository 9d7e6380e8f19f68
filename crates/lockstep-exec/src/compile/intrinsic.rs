//! Built-in functions and wave intrinsics: vector built-ins expand into
//! scalar operations; everything else is one instruction per component.

use super::*;

impl Compiler<'_> {
    /// The registers of each argument, evaluated left to right.
    fn exprs(&mut self, args: &[Expr]) -> Result<Vec<Vec<Reg>>, ExecError> {
        args.iter().map(|a| self.expr(a)).collect()
    }

    pub(super) fn builtin(
        &mut self,
        b: Builtin,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Vec<Reg>, ExecError> {
        let vals = self.exprs(args)?;
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
            _ => match self.composed(b, &vals, arg_ty, e.span)? {
                Some(regs) => Ok(regs),
                None => self.map_builtin(b, &vals, arg_ty).ok_or_else(unsupported),
            },
        }
    }

    /// On the 32-bit types, the builtins that `lockstep_wave::ops` defines
    /// as a few operators, `min`/`max`, `floor` and `sqrt` (`mad`,
    /// `clamp`, `saturate`, `lerp`, `frac`, `rcp`, `rsqrt`), emitted as
    /// those operations: each is an [`Op32`](crate::bytecode::Op32), so
    /// they join `Block32` runs. `None` for the others, and where the
    /// arguments' component counts differ.
    fn composed(
        &mut self,
        b: Builtin,
        vals: &[Vec<Reg>],
        ty: ScalarType,
        span: lockstep_ir::Span,
    ) -> Result<Option<Vec<Reg>>, ExecError> {
        use lockstep_ir::BinaryOp as B;
        let n = vals.first().map_or(0, Vec::len);
        if ty == ScalarType::Float16 && vals.iter().all(|v| v.len() == n) {
            return Ok(self.composed_half(b, vals, span));
        }
        let float = ty == ScalarType::Float32;
        let word = float || matches!(ty, ScalarType::Int32 | ScalarType::UInt32);
        if !word || vals.iter().any(|v| v.len() != n) {
            return Ok(None);
        }
        let tys = vec![ty; n];
        let one_bits = u64::from(1f32.to_bits());
        let both = |x: &[Reg], y: &[Reg]| [x.to_vec(), y.to_vec()];
        Ok(Some(match b {
            // `a * b + c`, and `max(x, lo)` then `min(·, hi)`.
            Builtin::Mad => {
                let p = self.binary_regs(B::Mul, &vals[0], &vals[1], &tys, span)?;
                self.binary_regs(B::Add, &p, &vals[2], &tys, span)?
            }
            Builtin::Clamp => {
                let low = self.map_builtin(Builtin::Max, &both(&vals[0], &vals[1]), ty);
                let low = low.expect("max on a 32-bit type");
                let high = self.map_builtin(Builtin::Min, &both(&low, &vals[2]), ty);
                high.expect("min on a 32-bit type")
            }
            Builtin::Saturate if float => {
                let (zero, one) = (vec![self.constant(0); n], vec![self.constant(one_bits); n]);
                let low = self.map_builtin(Builtin::Max, &both(&vals[0], &zero), ty);
                let low = low.expect("max on float");
                let high = self.map_builtin(Builtin::Min, &both(&low, &one), ty);
                high.expect("min on float")
            }
            // `a + t * (b - a)`.
            Builtin::Lerp if float => {
                let d = self.binary_regs(B::Sub, &vals[1], &vals[0], &tys, span)?;
                let m = self.binary_regs(B::Mul, &vals[2], &d, &tys, span)?;
                self.binary_regs(B::Add, &vals[0], &m, &tys, span)?
            }
            // `x - floor(x)`.
            Builtin::Frac if float => {
                let floor = self.map_builtin(Builtin::Floor, &vals[..1], ty);
                let floor = floor.expect("floor on float");
                self.binary_regs(B::Sub, &vals[0], &floor, &tys, span)?
            }
            // `1 / x`, and `1 / sqrt(x)` (two roundings).
            Builtin::Rcp if float => {
                let one = vec![self.constant(one_bits); n];
                self.binary_regs(B::Div, &one, &vals[0], &tys, span)?
            }
            // `!(x < y)` (`step(y, x)`, 1 for a NaN) as 1.0 or 0.0: the
            // comparison's 0 or 1, flipped, times the bits of 1.0.
            Builtin::Step if float => {
                let words = vec![ScalarType::UInt32; n];
                let lt = self.binary_regs(B::Lt, &vals[1], &vals[0], &tys, span)?;
                let bit = vec![self.constant(1); n];
                let ge = self.binary_regs(B::BitXor, &lt, &bit, &words, span)?;
                let one = vec![self.constant(one_bits); n];
                self.binary_regs(B::Mul, &ge, &one, &words, span)?
            }
            // `(x > 0) - (x < 0)`, an `int` (0 for a NaN).
            Builtin::Sign => {
                let zero = vec![self.constant(0); n];
                let above = self.binary_regs(B::Gt, &vals[0], &zero, &tys, span)?;
                let below = self.binary_regs(B::Lt, &vals[0], &zero, &tys, span)?;
                self.binary_regs(B::Sub, &above, &below, &vec![ScalarType::Int32; n], span)?
            }
            // `t * (t * (3 - 2 * t))` with `t = saturate((x - lo) / (hi -
            // lo))`, in DXC's order.
            Builtin::SmoothStep if float => {
                let from_lo = self.binary_regs(B::Sub, &vals[2], &vals[0], &tys, span)?;
                let range = self.binary_regs(B::Sub, &vals[1], &vals[0], &tys, span)?;
                let q = self.binary_regs(B::Div, &from_lo, &range, &tys, span)?;
                let t = self.composed(Builtin::Saturate, &[q], ty, span)?;
                let t = t.expect("saturate on float");
                let two = vec![self.constant(u64::from(2f32.to_bits())); n];
                let three = vec![self.constant(u64::from(3f32.to_bits())); n];
                let twice = self.binary_regs(B::Mul, &t, &two, &tys, span)?;
                let rest = self.binary_regs(B::Sub, &three, &twice, &tys, span)?;
                let inner = self.binary_regs(B::Mul, &t, &rest, &tys, span)?;
                self.binary_regs(B::Mul, &t, &inner, &tys, span)?
            }
            // `x != x`; `abs(x) == inf`; `abs(x) < inf` (false for a NaN).
            Builtin::IsNan if float => self.binary_regs(B::Ne, &vals[0], &vals[0], &tys, span)?,
            Builtin::IsInf | Builtin::IsFinite if float => {
                let abs = self.map_builtin(Builtin::Abs, &vals[..1], ty);
                let abs = abs.expect("abs on float");
                let inf = vec![self.constant(u64::from(f32::INFINITY.to_bits())); n];
                let op = if b == Builtin::IsInf { B::Eq } else { B::Lt };
                self.binary_regs(op, &abs, &inf, &tys, span)?
            }
            Builtin::Rsqrt if float => {
                let one = vec![self.constant(one_bits); n];
                let root = self.map_builtin(Builtin::Sqrt, &vals[..1], ty);
                let root = root.expect("sqrt on float");
                self.binary_regs(B::Div, &one, &root, &tys, span)?
            }
            _ => return Ok(None),
        }))
    }

    /// A component-wise builtin over registers (scalar arguments splat).
    /// `clamp`, `saturate` and `lerp` on 16-bit `half`s as `max`, `min`
    /// and operators, each rounded to `half` as `lockstep_wave::ops`
    /// computes them, so that they join runs of 16-bit operations; `None`
    /// for the others.
    fn composed_half(
        &mut self,
        b: Builtin,
        vals: &[Vec<Reg>],
        span: lockstep_ir::Span,
    ) -> Option<Vec<Reg>> {
        use lockstep_ir::BinaryOp as B;
        let ty = ScalarType::Float16;
        let n = vals.first().map_or(0, Vec::len);
        let tys = vec![ty; n];
        let both = |x: &[Reg], y: &[Reg]| [x.to_vec(), y.to_vec()];
        Some(match b {
            Builtin::Clamp => {
                let low = self.map_builtin(Builtin::Max, &both(&vals[0], &vals[1]), ty)?;
                self.map_builtin(Builtin::Min, &both(&low, &vals[2]), ty)?
            }
            Builtin::Saturate => {
                // 0 and 1.0 as `half` bits.
                let (zero, one) = (vec![self.constant(0); n], vec![self.constant(0x3C00); n]);
                let low = self.map_builtin(Builtin::Max, &both(&vals[0], &zero), ty)?;
                self.map_builtin(Builtin::Min, &both(&low, &one), ty)?
            }
            // `a + t * (b - a)`.
            Builtin::Lerp => {
                let d = self
                    .binary_regs(B::Sub, &vals[1], &vals[0], &tys, span)
                    .ok()?;
                let m = self.binary_regs(B::Mul, &vals[2], &d, &tys, span).ok()?;
                self.binary_regs(B::Add, &vals[0], &m, &tys, span).ok()?
            }
            _ => return None,
        })
    }

    pub(super) fn map_builtin(
        &mut self,
        b: Builtin,
        vals: &[Vec<Reg>],
        ty: ScalarType,
    ) -> Option<Vec<Reg>> {
        let f = alu::builtin(b, ty)?;
        let n = vals.iter().map(Vec::len).max().unwrap_or(0);
        let arg = |k: usize, i: usize| vals.get(k).map(|v| v.get(i).copied().unwrap_or(v[0]));
        let mut out = Vec::with_capacity(n);
        for i in 0..n {
            let dst = self.temp();
            let a = arg(0, i)?;
            self.emit(match f {
                BuiltinFn::Unary(f) => Inst::Unary {
                    f,
                    dst,
                    a,
                    masked: false,
                    op32: alu::builtin_op32(b, ty),
                    math: crate::lanes::LaneMath::of(b, ty),
                    form: Some(OpForm::Builtin(b, ty)),
                },
                BuiltinFn::Binary(f) => Inst::Binary {
                    f,
                    dst,
                    a,
                    b: arg(1, i)?,
                    masked: false,
                    op32: alu::builtin_op32(b, ty),
                    math: crate::lanes::LaneMath::of(b, ty),
                    form: Some(OpForm::Builtin(b, ty)),
                },
                BuiltinFn::Ternary(f) => Inst::Ternary {
                    f,
                    dst,
                    a,
                    b: arg(1, i)?,
                    c: arg(2, i)?,
                    masked: false,
                    form: Some(OpForm::Builtin(b, ty)),
                },
            });
            out.push(dst);
        }
        Some(out)
    }

    /// `a · b`, summed left to right.
    pub(super) fn dot(
        &mut self,
        a: &[Reg],
        b: &[Reg],
        ty: ScalarType,
        span: Span,
    ) -> Result<Reg, ExecError> {
        let products =
            self.binary_regs(lockstep_ir::BinaryOp::Mul, a, b, &vec![ty; a.len()], span)?;
        let mut acc = products[0];
        for &p in &products[1..] {
            acc = self.binary_regs(lockstep_ir::BinaryOp::Add, &[acc], &[p], &[ty], span)?[0];
        }
        Ok(acc)
    }

    pub(super) fn cross(
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

    pub(super) fn all_any(
        &mut self,
        v: &[Reg],
        ty: ScalarType,
        all: bool,
    ) -> Result<Reg, ExecError> {
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
    pub(super) fn mul(
        &mut self,
        args: &[Expr],
        vals: &[Vec<Reg>],
        e: &Expr,
    ) -> Result<Vec<Reg>, ExecError> {
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

    pub(super) fn wave(
        &mut self,
        op: WaveOp,
        args: &[Expr],
        e: &Expr,
    ) -> Result<Vec<Reg>, ExecError> {
        // The operands are computed on every lane, helper lanes included
        // (a derivative among them needs its whole quad).
        let vals = self.exprs(args)?;
        let exempt = matches!(
            op,
            WaveOp::GetLaneCount
                | WaveOp::GetLaneIndex
                | WaveOp::GroupWaveIndex
                | WaveOp::GroupWaveCount
                | WaveOp::QuadReadAcrossX
                | WaveOp::QuadReadAcrossY
                | WaveOp::QuadReadAcrossDiagonal
                | WaveOp::QuadReadLaneAt
                | WaveOp::QuadAny
                | WaveOp::QuadAll
        );
        if exempt {
            let result = self.wave_op(op, &vals, args, e)?;
            let quad = !matches!(
                op,
                WaveOp::GetLaneCount
                    | WaveOp::GetLaneIndex
                    | WaveOp::GroupWaveIndex
                    | WaveOp::GroupWaveCount
            );
            if let (true, true, Some(discarded), Some(helper)) =
                (self.checked, quad, self.discarded_reg(), self.helper_reg())
            {
                // The same read of the discard flag says whether a lane
                // that called discard was read.
                let read = self.temp();
                let none = self.temp();
                self.emit(Inst::Wave {
                    op,
                    ty: ScalarType::Bool,
                    dst: read,
                    a: discarded,
                    b: vals.get(1).map_or(none, |v| v[0]),
                });
                self.emit(Inst::CheckDiscardedRead { read, helper });
            }
            return Ok(result);
        }
        // `[WaveOpsIncludeHelperLanes]`: helper lanes join as any lane.
        let Some(helper) = self
            .helper_reg()
            .filter(|_| !self.wave_ops_include_helpers())
        else {
            return self.wave_op(op, &vals, args, e);
        };
        // Helper lanes take no part while a lane of the wave that is not
        // one is active: what they get back is undefined (checked mode
        // marks it so; a normal run leaves what the destination held).
        // A wave of helper lanes alone (the others gone, as from a loop
        // each lane leaves once its turn came) runs the operation over
        // them, so that such a loop ends for them too.
        let temps: Vec<Reg> = (0..self.flatten(e.ty).len()).map(|_| self.temp()).collect();
        if self.checked {
            for &t in &temps {
                self.emit(Inst::Uninitialized { dst: t });
            }
        }
        let not_helper = self
            .compare_zero(helper, ScalarType::UInt32, false)
            .ok_or_else(|| ExecError::new("a helper-lane test produced no value", None))?;
        let any_pixel = self.temp();
        let none = self.temp();
        self.emit(Inst::Wave {
            op: WaveOp::AnyTrue,
            ty: ScalarType::Bool,
            dst: any_pixel,
            a: not_helper,
            b: none,
        });
        let into_temps = |s: &mut Self| -> Result<(), ExecError> {
            let regs = s.wave_op(op, &vals, args, e)?;
            for (&t, &r) in temps.iter().zip(&regs) {
                s.emit(Inst::CopyMasked { dst: t, src: r });
            }
            Ok(())
        };
        self.if_else_negated(
            any_pixel,
            false,
            |s| s.unless_helper(|s| into_temps(s)),
            |s| into_temps(s),
        )?;
        Ok(temps)
    }

    fn wave_op(
        &mut self,
        op: WaveOp,
        vals: &[Vec<Reg>],
        args: &[Expr],
        e: &Expr,
    ) -> Result<Vec<Reg>, ExecError> {
        let tys = args.first().map(|a| self.flatten(a.ty)).unwrap_or_default();
        let none = self.temp();
        match op {
            WaveOp::IsFirstLane
            | WaveOp::GetLaneCount
            | WaveOp::GetLaneIndex
            | WaveOp::GroupWaveIndex
            | WaveOp::GroupWaveCount => {
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
                let results: Vec<Reg> = vals[0]
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
                    .collect();
                if op == WaveOp::AllEqual && self.count(e.ty) == 1 && results.len() > 1 {
                    // A struct or array is equal when every component is.
                    return self
                        .all_any(&results, ScalarType::Bool, true)
                        .map(|r| vec![r]);
                }
                Ok(results)
            }
        }
    }

    pub(super) fn alloc4(&mut self) -> [Reg; 4] {
        let r = self.alloc(4);
        [r[0], r[1], r[2], r[3]]
    }
}
