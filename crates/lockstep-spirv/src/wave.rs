//! Wave and quad intrinsics as `GroupNonUniform*` operations.

use lockstep_ir::{Expr, ScalarType, WaveOp};
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Capability, GroupOperation, Op, Scope, Word};

use crate::Error;
use crate::module::{Emitter, ids};

/// The reductions and scans, by operation.
#[derive(Clone, Copy)]
enum Fold {
    Add,
    Mul,
    Min,
    Max,
    And,
    Or,
    Xor,
}

impl Emitter<'_> {
    fn subgroup(&mut self) -> Word {
        self.u32c(Scope::Subgroup as u32)
    }

    pub fn wave(&mut self, op: WaveOp, args: &[Expr], e: &Expr) -> Result<Vec<Word>, Error> {
        self.capability(Capability::GroupNonUniform);
        let mut values = Vec::new();
        for a in args {
            values.push(self.expr(a)?);
        }
        let flat = args.first().map(|a| self.flat_of(a)).unwrap_or_default();
        let arg = values.first().cloned().unwrap_or_default();
        let sg = self.subgroup();
        let bool_ty = self.scalar(ScalarType::Bool);
        let u32_ty = self.scalar(ScalarType::UInt32);
        Ok(match op {
            WaveOp::IsFirstLane => vec![self.op(Op::GroupNonUniformElect, bool_ty, ids(&[sg]))],
            WaveOp::GetLaneCount => vec![self.load_input(BuiltIn::SubgroupSize)],
            WaveOp::GetLaneIndex => vec![self.load_input(BuiltIn::SubgroupLocalInvocationId)],
            WaveOp::GroupWaveIndex => vec![self.load_input(BuiltIn::SubgroupId)],
            WaveOp::GroupWaveCount => vec![self.load_input(BuiltIn::NumSubgroups)],
            WaveOp::AnyTrue | WaveOp::AllTrue => {
                self.capability(Capability::GroupNonUniformVote);
                let o = if op == WaveOp::AnyTrue {
                    Op::GroupNonUniformAny
                } else {
                    Op::GroupNonUniformAll
                };
                vec![self.op(o, bool_ty, ids(&[sg, arg[0]]))]
            }
            WaveOp::Ballot => {
                let b = self.ballot(arg[0]);
                self.words4(b)
            }
            WaveOp::CountBits | WaveOp::PrefixCountBits => {
                let b = self.ballot(arg[0]);
                let how = if op == WaveOp::CountBits {
                    GroupOperation::Reduce
                } else {
                    GroupOperation::ExclusiveScan
                };
                vec![self.op(
                    Op::GroupNonUniformBallotBitCount,
                    u32_ty,
                    vec![
                        Operand::IdRef(sg),
                        Operand::GroupOperation(how),
                        Operand::IdRef(b),
                    ],
                )]
            }
            WaveOp::ReadLaneFirst => {
                self.capability(Capability::GroupNonUniformBallot);
                arg.iter()
                    .zip(&flat)
                    .map(|(&v, &s)| {
                        let t = self.scalar(s);
                        self.op(Op::GroupNonUniformBroadcastFirst, t, ids(&[sg, v]))
                    })
                    .collect()
            }
            WaveOp::ReadLaneAt => {
                // The lane is taken modulo the wave size.
                let lane = self.index_u32(&args[1])?;
                let size = self.load_input(BuiltIn::SubgroupSize);
                let one = self.u32c(1);
                let mask = self.op(Op::ISub, u32_ty, ids(&[size, one]));
                let lane = self.op(Op::BitwiseAnd, u32_ty, ids(&[lane, mask]));
                self.shuffle(&arg, &flat, lane)
            }
            WaveOp::QuadReadLaneAt => {
                // A constant quad lane is a quad broadcast; another reads
                // its lane through a shuffle within the quad.
                if let lockstep_ir::ExprKind::Const(k) = &args[1].kind
                    && let Some(k) = k.first()
                {
                    self.capability(Capability::GroupNonUniformQuad);
                    let lane = self.u32c((k.bits & 3) as u32);
                    return Ok(arg
                        .iter()
                        .zip(&flat)
                        .map(|(&v, &s)| {
                            let t = self.scalar(s);
                            self.op(Op::GroupNonUniformQuadBroadcast, t, ids(&[sg, v, lane]))
                        })
                        .collect());
                }
                let i = self.index_u32(&args[1])?;
                let me = self.load_input(BuiltIn::SubgroupLocalInvocationId);
                let three = self.u32c(3);
                let not3 = self.u32c(!3);
                let base = self.op(Op::BitwiseAnd, u32_ty, ids(&[me, not3]));
                let within = self.op(Op::BitwiseAnd, u32_ty, ids(&[i, three]));
                let lane = self.op(Op::BitwiseOr, u32_ty, ids(&[base, within]));
                self.shuffle(&arg, &flat, lane)
            }
            WaveOp::AllEqual => {
                self.capability(Capability::GroupNonUniformBallot);
                self.capability(Capability::GroupNonUniformVote);
                let mut eqs = Vec::new();
                for (&v, &s) in arg.iter().zip(&flat) {
                    let t = self.scalar(s);
                    let first = self.op(Op::GroupNonUniformBroadcastFirst, t, ids(&[sg, v]));
                    let o = match s {
                        ScalarType::Bool => Op::LogicalEqual,
                        _ if s.is_float() => Op::FOrdEqual,
                        _ => Op::IEqual,
                    };
                    eqs.push(self.op(o, bool_ty, ids(&[v, first])));
                }
                let want = self.m.types.component_count(e.ty) as usize;
                if want == eqs.len() {
                    eqs.iter()
                        .map(|&q| self.op(Op::GroupNonUniformAll, bool_ty, ids(&[sg, q])))
                        .collect()
                } else {
                    let mut all = eqs.first().copied().unwrap_or_else(|| self.boolc(true));
                    for &q in eqs.iter().skip(1) {
                        all = self.op(Op::LogicalAnd, bool_ty, ids(&[all, q]));
                    }
                    vec![self.op(Op::GroupNonUniformAll, bool_ty, ids(&[sg, all]))]
                }
            }
            WaveOp::Sum => self.fold_all(Fold::Add, &arg, &flat, GroupOperation::Reduce, None),
            WaveOp::Product => self.fold_all(Fold::Mul, &arg, &flat, GroupOperation::Reduce, None),
            WaveOp::Min => self.fold_all(Fold::Min, &arg, &flat, GroupOperation::Reduce, None),
            WaveOp::Max => self.fold_all(Fold::Max, &arg, &flat, GroupOperation::Reduce, None),
            WaveOp::BitAnd => self.fold_all(Fold::And, &arg, &flat, GroupOperation::Reduce, None),
            WaveOp::BitOr => self.fold_all(Fold::Or, &arg, &flat, GroupOperation::Reduce, None),
            WaveOp::BitXor => self.fold_all(Fold::Xor, &arg, &flat, GroupOperation::Reduce, None),
            WaveOp::PrefixSum => {
                self.fold_all(Fold::Add, &arg, &flat, GroupOperation::ExclusiveScan, None)
            }
            WaveOp::PrefixProduct => {
                self.fold_all(Fold::Mul, &arg, &flat, GroupOperation::ExclusiveScan, None)
            }
            WaveOp::Match => {
                self.partitioned();
                let v4 = self.b.type_vector(u32_ty, 4);
                let mut mask: Option<Word> = None;
                for (&v, &s) in arg.iter().zip(&flat) {
                    // Bit patterns: a NaN matches its own bits, -0 does not
                    // match +0.
                    let bits = match s {
                        ScalarType::Float16 => self.bitcast(v, s, ScalarType::UInt16),
                        ScalarType::Float32 => self.bitcast(v, s, ScalarType::UInt32),
                        ScalarType::Float64 => self.bitcast(v, s, ScalarType::UInt64),
                        _ => v,
                    };
                    let m = self.op(Op::GroupNonUniformPartitionNV, v4, ids(&[bits]));
                    mask = Some(match mask {
                        Some(prev) => self.op(Op::BitwiseAnd, v4, ids(&[prev, m])),
                        None => m,
                    });
                }
                let mask = mask.unwrap_or(0);
                self.words4(mask)
            }
            WaveOp::MultiPrefixSum
            | WaveOp::MultiPrefixProduct
            | WaveOp::MultiPrefixBitAnd
            | WaveOp::MultiPrefixBitOr
            | WaveOp::MultiPrefixBitXor
            | WaveOp::MultiPrefixCountBits => {
                self.partitioned();
                let v4 = self.b.type_vector(u32_ty, 4);
                let mask = self.op(Op::CompositeConstruct, v4, ids(&values[1]));
                let how = GroupOperation::PartitionedExclusiveScanNV;
                match op {
                    WaveOp::MultiPrefixSum => {
                        self.fold_all(Fold::Add, &arg, &flat, how, Some(mask))
                    }
                    WaveOp::MultiPrefixProduct => {
                        self.fold_all(Fold::Mul, &arg, &flat, how, Some(mask))
                    }
                    WaveOp::MultiPrefixBitAnd => {
                        self.fold_all(Fold::And, &arg, &flat, how, Some(mask))
                    }
                    WaveOp::MultiPrefixBitOr => {
                        self.fold_all(Fold::Or, &arg, &flat, how, Some(mask))
                    }
                    WaveOp::MultiPrefixBitXor => {
                        self.fold_all(Fold::Xor, &arg, &flat, how, Some(mask))
                    }
                    _ => {
                        let one = self.u32c(1);
                        let zero = self.u32c(0);
                        let counted = self.op(Op::Select, u32_ty, ids(&[arg[0], one, zero]));
                        self.fold_all(
                            Fold::Add,
                            &[counted],
                            &[ScalarType::UInt32],
                            how,
                            Some(mask),
                        )
                    }
                }
            }
            WaveOp::QuadReadAcrossX | WaveOp::QuadReadAcrossY | WaveOp::QuadReadAcrossDiagonal => {
                self.capability(Capability::GroupNonUniformQuad);
                let direction = match op {
                    WaveOp::QuadReadAcrossX => 0,
                    WaveOp::QuadReadAcrossY => 1,
                    _ => 2,
                };
                let d = self.u32c(direction);
                arg.iter()
                    .zip(&flat)
                    .map(|(&v, &s)| {
                        let t = self.scalar(s);
                        self.op(Op::GroupNonUniformQuadSwap, t, ids(&[sg, v, d]))
                    })
                    .collect()
            }
            WaveOp::QuadAny | WaveOp::QuadAll => {
                // The quad's four bits of the ballots of `b` and of the
                // active lanes.
                let yes = self.ballot(arg[0]);
                let t = self.boolc(true);
                let active = self.ballot(t);
                let me = self.load_input(BuiltIn::SubgroupLocalInvocationId);
                let five = self.u32c(5);
                let k31 = self.u32c(31);
                let not3 = self.u32c(!3);
                let f = self.u32c(0xF);
                let base = self.op(Op::BitwiseAnd, u32_ty, ids(&[me, not3]));
                let word = self.op(Op::ShiftRightLogical, u32_ty, ids(&[base, five]));
                let shift = self.op(Op::BitwiseAnd, u32_ty, ids(&[base, k31]));
                let quad = |e: &mut Self, ballot: Word| {
                    let w = e.op(Op::VectorExtractDynamic, u32_ty, ids(&[ballot, word]));
                    let w = e.op(Op::ShiftRightLogical, u32_ty, ids(&[w, shift]));
                    e.op(Op::BitwiseAnd, u32_ty, ids(&[w, f]))
                };
                let yes = quad(self, yes);
                let active = quad(self, active);
                let r = if op == WaveOp::QuadAny {
                    let zero = self.u32c(0);
                    self.op(Op::INotEqual, bool_ty, ids(&[yes, zero]))
                } else {
                    let both = self.op(Op::BitwiseAnd, u32_ty, ids(&[yes, active]));
                    self.op(Op::IEqual, bool_ty, ids(&[both, active]))
                };
                vec![r]
            }
        })
    }

    fn partitioned(&mut self) {
        self.capability(Capability::GroupNonUniformPartitionedNV);
        self.extension("SPV_NV_shader_subgroup_partitioned");
        self.partitioned = true;
    }

    /// `OpGroupNonUniformBallot` of a bool: a `uint4`.
    fn ballot(&mut self, b: Word) -> Word {
        self.capability(Capability::GroupNonUniformBallot);
        let sg = self.subgroup();
        let u32_ty = self.scalar(ScalarType::UInt32);
        let v4 = self.b.type_vector(u32_ty, 4);
        self.op(Op::GroupNonUniformBallot, v4, ids(&[sg, b]))
    }

    fn words4(&mut self, v: Word) -> Vec<Word> {
        let u32_ty = self.scalar(ScalarType::UInt32);
        (0..4)
            .map(|i| {
                self.op(
                    Op::CompositeExtract,
                    u32_ty,
                    vec![Operand::IdRef(v), Operand::LiteralBit32(i)],
                )
            })
            .collect()
    }

    fn shuffle(&mut self, values: &[Word], flat: &[ScalarType], lane: Word) -> Vec<Word> {
        self.capability(Capability::GroupNonUniformShuffle);
        let sg = self.subgroup();
        values
            .iter()
            .zip(flat)
            .map(|(&v, &s)| {
                let t = self.scalar(s);
                self.op(Op::GroupNonUniformShuffle, t, ids(&[sg, v, lane]))
            })
            .collect()
    }

    fn fold_all(
        &mut self,
        fold: Fold,
        values: &[Word],
        flat: &[ScalarType],
        how: GroupOperation,
        partition: Option<Word>,
    ) -> Vec<Word> {
        if partition.is_none() {
            self.capability(Capability::GroupNonUniformArithmetic);
        }
        let sg = self.subgroup();
        values
            .iter()
            .zip(flat)
            .map(|(&v, &s)| {
                let t = self.scalar(s);
                let float = s.is_float();
                let boolean = s == ScalarType::Bool;
                let o = match fold {
                    Fold::Add if float => Op::GroupNonUniformFAdd,
                    Fold::Add => Op::GroupNonUniformIAdd,
                    Fold::Mul if float => Op::GroupNonUniformFMul,
                    Fold::Mul => Op::GroupNonUniformIMul,
                    Fold::Min if float => Op::GroupNonUniformFMin,
                    Fold::Min if s.is_signed() => Op::GroupNonUniformSMin,
                    Fold::Min => Op::GroupNonUniformUMin,
                    Fold::Max if float => Op::GroupNonUniformFMax,
                    Fold::Max if s.is_signed() => Op::GroupNonUniformSMax,
                    Fold::Max => Op::GroupNonUniformUMax,
                    Fold::And if boolean => Op::GroupNonUniformLogicalAnd,
                    Fold::And => Op::GroupNonUniformBitwiseAnd,
                    Fold::Or if boolean => Op::GroupNonUniformLogicalOr,
                    Fold::Or => Op::GroupNonUniformBitwiseOr,
                    Fold::Xor if boolean => Op::GroupNonUniformLogicalXor,
                    Fold::Xor => Op::GroupNonUniformBitwiseXor,
                };
                let mut operands = vec![
                    Operand::IdRef(sg),
                    Operand::GroupOperation(how),
                    Operand::IdRef(v),
                ];
                if let Some(p) = partition {
                    operands.push(Operand::IdRef(p));
                }
                self.op(o, t, operands)
            })
            .collect()
    }
}
