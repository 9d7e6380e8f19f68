//! Statements: structured control flow as SPIR-V selection and loop
//! constructs, barriers and returns.

use lockstep_ir::{self as ir, ScalarType, Stmt};
use rspirv::dr::Operand;
use rspirv::spirv::{
    LoopControl, MemorySemantics, Op, Scope, SelectionControl, StorageClass, Word,
};

use crate::Error;
use crate::module::{Emitter, ids};

/// A construct that `break` leaves.
pub(crate) enum Breakable {
    /// A loop: `break` goes to `merge`, `continue` to `cont`.
    Loop {
        merge: Word,
        cont: Word,
        broke: bool,
        /// The `continuing` block is being written: it may leave the loop
        /// only through its final conditional exit.
        continuing: bool,
    },
    /// A switch: `break` goes to `merge`.
    Switch { merge: Word, broke: bool },
}

impl Emitter<'_> {
    pub fn block_stmts(&mut self, block: &ir::Block) -> Result<(), Error> {
        for s in &block.stmts {
            if !self.f.open {
                break;
            }
            self.stmt(s)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), Error> {
        match s {
            Stmt::Expr(e) => {
                self.expr(e)?;
            }
            Stmt::If {
                cond,
                accept,
                reject,
            } => self.if_stmt(cond, accept, reject)?,
            Stmt::Loop {
                body,
                continuing,
                span,
            } => self.loop_stmt(body, continuing, *span)?,
            Stmt::Switch { selector, cases } => self.switch_stmt(selector, cases)?,
            Stmt::Break => {
                let target = match self.f.breakables.last_mut() {
                    Some(Breakable::Loop {
                        continuing: true, ..
                    }) => {
                        return Err(Error::new(
                            "a 'break' inside a loop's continuing statements that is not its final exit",
                            None,
                        ));
                    }
                    Some(
                        Breakable::Loop { merge, broke, .. } | Breakable::Switch { merge, broke },
                    ) => {
                        *broke = true;
                        *merge
                    }
                    None => return Err(Error::new("'break' outside a loop or switch", None)),
                };
                self.branch(target);
            }
            Stmt::Continue => {
                let target = self.f.breakables.iter().rev().find_map(|b| match b {
                    Breakable::Loop {
                        cont,
                        continuing: false,
                        ..
                    } => Some(*cont),
                    _ => None,
                });
                let Some(target) = target else {
                    return Err(Error::new("'continue' outside a loop body", None));
                };
                self.branch(target);
            }
            Stmt::Return(value) => {
                let value = match value {
                    Some(e) => {
                        let comps = self.expr(e)?;
                        Some(self.compose(e.ty, &comps))
                    }
                    None => None,
                };
                self.ret(value);
            }
            Stmt::Barrier(flags) => self.barrier(flags),
        }
        Ok(())
    }

    fn if_stmt(
        &mut self,
        cond: &ir::Expr,
        accept: &ir::Block,
        reject: &ir::Block,
    ) -> Result<(), Error> {
        let c = self.scalar_expr(cond)?;
        let merge = self.label();
        let yes = self.label();
        let no = if reject.stmts.is_empty() {
            merge
        } else {
            self.label()
        };
        self.selection_merge(merge);
        self.branch_if(c, yes, no);
        self.start(yes);
        self.block_stmts(accept)?;
        let mut reaches = self.f.open;
        self.branch(merge);
        if no == merge {
            reaches = true;
        } else {
            self.start(no);
            self.block_stmts(reject)?;
            reaches |= self.f.open;
            self.branch(merge);
        }
        self.start(merge);
        if !reaches {
            self.unreachable();
        }
        Ok(())
    }

    pub fn selection_merge(&mut self, merge: Word) {
        self.op_void(
            Op::SelectionMerge,
            vec![
                Operand::IdRef(merge),
                Operand::SelectionControl(SelectionControl::NONE),
            ],
        );
    }

    fn loop_stmt(
        &mut self,
        body: &ir::Block,
        continuing: &ir::Block,
        span: ir::Span,
    ) -> Result<(), Error> {
        let (header, first, cont, merge) = (self.label(), self.label(), self.label(), self.label());
        // The continuing statements, and the final `if (c) break;` (or
        // `if (c) {} else break;`) that `do … while` ends with.
        let (steps, exit) = match continuing.stmts.split_last() {
            Some((
                Stmt::If {
                    cond,
                    accept,
                    reject,
                },
                rest,
            )) if is_break(accept) && reject.stmts.is_empty() => (rest, Some((cond, true))),
            Some((
                Stmt::If {
                    cond,
                    accept,
                    reject,
                },
                rest,
            )) if accept.stmts.is_empty() && is_break(reject) => (rest, Some((cond, false))),
            _ => (&continuing.stmts[..], None),
        };
        self.branch(header);
        self.start(header);
        self.op_void(
            Op::LoopMerge,
            vec![
                Operand::IdRef(merge),
                Operand::IdRef(cont),
                Operand::LoopControl(LoopControl::NONE),
            ],
        );
        self.branch(first);
        self.start(first);
        let guarded = self.step_guard(merge, span);
        self.f.breakables.push(Breakable::Loop {
            merge,
            cont,
            broke: guarded,
            continuing: false,
        });
        self.block_stmts(body)?;
        self.branch(cont);
        self.start(cont);
        if let Some(Breakable::Loop { continuing, .. }) = self.f.breakables.last_mut() {
            *continuing = true;
        }
        for s in steps {
            if !self.f.open {
                break;
            }
            self.stmt(s).map_err(|mut e| {
                e.span.get_or_insert(span);
                e
            })?;
        }
        let mut broke = match self.f.breakables.pop() {
            Some(Breakable::Loop { broke, .. }) => broke,
            _ => false,
        };
        match exit {
            Some((cond, leave_when)) if self.f.open => {
                let c = self.scalar_expr(cond)?;
                broke = true;
                if leave_when {
                    self.branch_if(c, merge, header);
                } else {
                    self.branch_if(c, header, merge);
                }
            }
            _ => self.branch(header),
        }
        self.start(merge);
        if !broke {
            self.unreachable();
        }
        Ok(())
    }

    /// With a step budget: counts the iteration, and past the budget
    /// records the loop in the status buffer and leaves it. Returns whether
    /// it branches to `merge`.
    fn step_guard(&mut self, merge: Word, span: ir::Span) -> bool {
        let (Some((steps, status)), Some(budget)) = (self.guard, self.opts.step_budget) else {
            return false;
        };
        self.loops.push(span);
        let index = self.opts.first_loop + self.loops.len() as u32;
        let u32_ty = self.scalar(ScalarType::UInt32);
        let bool_ty = self.scalar(ScalarType::Bool);
        let one = self.u32c(1);
        let n = self.op(Op::Load, u32_ty, ids(&[steps]));
        let n = self.op(Op::IAdd, u32_ty, ids(&[n, one]));
        self.op_void(Op::Store, ids(&[steps, n]));
        let limit = self.u32c(budget);
        let over = self.op(Op::UGreaterThan, bool_ty, ids(&[n, limit]));
        let (stop, go) = (self.label(), self.label());
        self.selection_merge(go);
        self.branch_if(over, stop, go);
        self.start(stop);
        let ptr_ty = self.pointer(StorageClass::StorageBuffer, u32_ty);
        let zero = self.u32c(0);
        let word0 = self.op(Op::AccessChain, ptr_ty, ids(&[status, zero, zero]));
        let word1 = self.op(Op::AccessChain, ptr_ty, ids(&[status, zero, one]));
        let which = self.u32c(index);
        // The first loop to stop names itself; the loops around it stop
        // after it, and so does every other thread.
        let device = self.u32c(Scope::Device as u32);
        let relaxed = self.u32c(0);
        let was = self.op(
            Op::AtomicExchange,
            u32_ty,
            ids(&[word0, device, relaxed, one]),
        );
        let first = self.op(Op::IEqual, bool_ty, ids(&[was, zero]));
        let (name, named) = (self.label(), self.label());
        self.selection_merge(named);
        self.branch_if(first, name, named);
        self.start(name);
        self.op_void(Op::Store, ids(&[word1, which]));
        self.branch(named);
        self.start(named);
        self.branch(merge);
        self.start(go);
        true
    }

    fn switch_stmt(&mut self, selector: &ir::Expr, cases: &[ir::SwitchCase]) -> Result<(), Error> {
        let sel = self.scalar_expr(selector)?;
        let width = self.m.types.scalar_of(selector.ty).map_or(32, |s| s.bits());
        let merge = self.label();
        let labels: Vec<Word> = cases.iter().map(|_| self.label()).collect();
        let default = cases
            .iter()
            .position(|c| c.is_default)
            .map_or(merge, |i| labels[i]);
        let mut targets = Vec::new();
        for (case, &label) in cases.iter().zip(&labels) {
            for &v in &case.values {
                let literal = match width {
                    64 => Operand::LiteralBit64(v),
                    16 => Operand::LiteralBit32((v & 0xFFFF) as u32),
                    _ => Operand::LiteralBit32(v as u32),
                };
                targets.push((literal, label));
            }
        }
        // An instruction has at most 65535 words: spirv-val takes at most
        // 16383 targets (64-bit ones take three words).
        if targets.len() > 16383 {
            return Err(Error::new(
                format!(
                    "a switch with {} case values: a SPIR-V OpSwitch takes at most 16383",
                    targets.len()
                ),
                Some(selector.span),
            ));
        }
        self.selection_merge(merge);
        if self.f.open {
            let _ = self.b.switch(sel, default, targets);
            self.f.open = false;
        }
        self.f.breakables.push(Breakable::Switch {
            merge,
            broke: false,
        });
        let mut reaches = default == merge;
        for (i, case) in cases.iter().enumerate() {
            self.start(labels[i]);
            self.block_stmts(&case.body)?;
            let next = labels.get(i + 1).copied().unwrap_or(merge);
            reaches |= self.f.open && next == merge;
            self.branch(next);
        }
        if let Some(Breakable::Switch { broke, .. }) = self.f.breakables.pop() {
            reaches |= broke;
        }
        self.start(merge);
        if !reaches {
            self.unreachable();
        }
        Ok(())
    }

    fn barrier(&mut self, flags: &ir::BarrierFlags) {
        let mut semantics = MemorySemantics::ACQUIRE_RELEASE;
        if flags.group_memory {
            semantics |= MemorySemantics::WORKGROUP_MEMORY;
        }
        if flags.device_memory {
            semantics |= MemorySemantics::UNIFORM_MEMORY | MemorySemantics::IMAGE_MEMORY;
        }
        let memory_scope = if flags.device_memory {
            Scope::Device
        } else {
            Scope::Workgroup
        };
        let memory = self.u32c(memory_scope as u32);
        let semantics = self.u32c(semantics.bits());
        if flags.group_sync {
            let exec = self.u32c(Scope::Workgroup as u32);
            self.op_void(Op::ControlBarrier, ids(&[exec, memory, semantics]));
        } else {
            self.op_void(Op::MemoryBarrier, ids(&[memory, semantics]));
        }
    }
}

fn is_break(block: &ir::Block) -> bool {
    matches!(block.stmts.as_slice(), [Stmt::Break])
}
