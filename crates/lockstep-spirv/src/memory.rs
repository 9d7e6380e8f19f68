//! Places: variables through access chains, buffers as words at the byte
//! offsets of Lockstep's layout, with the engine's bounds rules; atomics and
//! resource queries.

use lockstep_ir::layout::{array_stride, scalar_slots, size_align};
use lockstep_ir::{
    self as ir, Access, AtomicOp, LayoutRule, PlaceRoot, ResourceQuery, ScalarType, Span, Type,
    TypeId,
};
use rspirv::dr::Operand;
use rspirv::spirv::{Op, Scope, StorageClass, Word};

use crate::Error;
use crate::module::{Emitter, ids};

/// A resolved place: one pointer or one byte offset per scalar component.
pub(crate) enum Place {
    /// Components of a variable (function, private or workgroup).
    Var {
        ptrs: Vec<(Word, ScalarType)>,
        class: StorageClass,
        /// False on lanes whose dynamic index is out of range (the pointers
        /// are clamped into range there).
        ok: Option<Word>,
    },
    /// Components of a buffer, as byte offsets from `dynamic`.
    Buf {
        resource: usize,
        uniform: bool,
        /// The byte offset all components add to theirs (a `uint`).
        dynamic: Option<Word>,
        comps: Vec<(u32, ScalarType)>,
        ok: Option<Word>,
        /// The buffer's size in bytes (a `uint`).
        len: Word,
    },
}

/// Where a variable place stands while its path is applied.
enum Shape {
    Ty(TypeId),
    /// A vector (a matrix row, or a scalar when 1) with no type id of its own.
    Vector(ScalarType, u8),
    /// Vector components or matrix elements picked by a write mask: the
    /// indices that reach each.
    Picked(Vec<Vec<Word>>, ScalarType),
}

impl Emitter<'_> {
    pub fn place(&mut self, place: &ir::Place) -> Result<Place, Error> {
        let (base, class, ty) = match &place.root {
            PlaceRoot::Local(id) => {
                let f = self
                    .f
                    .function
                    .ok_or_else(|| Error::new("a local variable outside a function", None))?;
                let ty = self.m.function(f).locals[id.index()].ty;
                (self.f.locals[id.index()], StorageClass::Function, ty)
            }
            PlaceRoot::Static(id) => (
                self.static_var(*id),
                StorageClass::Private,
                self.m.statics[id.index()].ty,
            ),
            PlaceRoot::Groupshared(id) => (
                self.groupshared_var(*id),
                StorageClass::Workgroup,
                self.m.groupshared[id.index()].ty,
            ),
            // A vertex or pixel lane's record: its own words.
            PlaceRoot::BufferElement { resource, .. } if self.record_var(*resource).is_some() => (
                self.record_var(*resource).unwrap_or(0),
                StorageClass::Private,
                self.m.resource(*resource).element,
            ),
            _ => return self.buffer_place(place),
        };
        let mut chain = Vec::new();
        let mut shape = Shape::Ty(ty);
        let mut ok = None;
        for access in &place.path {
            shape = match (shape, access) {
                (Shape::Ty(t), Access::Field(i)) => {
                    let Type::Struct { members, .. } = self.m.types.get(t) else {
                        return Err(Error::new("a field of a value that is not a struct", None));
                    };
                    let member = members[*i as usize].ty;
                    chain.push(self.u32c(*i));
                    Shape::Ty(member)
                }
                (Shape::Ty(t), Access::Index(index)) => {
                    let (next, count, indexes) = match *self.m.types.get(t) {
                        Type::Array { element, len } => (Shape::Ty(element), len, true),
                        Type::Matrix {
                            scalar, rows, cols, ..
                        } => (Shape::Vector(scalar, cols), u32::from(rows), true),
                        Type::Vector(s, n) => (Shape::Vector(s, 1), u32::from(n), n > 1),
                        Type::Scalar(s) => (Shape::Vector(s, 1), 1, false),
                        _ => {
                            return Err(Error::new(
                                "an index into a value that is not an array",
                                None,
                            ));
                        }
                    };
                    let (i, in_range) = self.clamped_index(index, count)?;
                    ok = self.and_ok(ok, in_range);
                    if indexes {
                        chain.push(i);
                    }
                    next
                }
                (Shape::Vector(s, n), Access::Index(index)) => {
                    let (i, in_range) = self.clamped_index(index, u32::from(n))?;
                    ok = self.and_ok(ok, in_range);
                    if n > 1 {
                        chain.push(i);
                    }
                    Shape::Vector(s, 1)
                }
                (Shape::Vector(s, n), Access::Components(list)) => {
                    Shape::Picked(self.vector_picks(list, n), s)
                }
                (Shape::Ty(t), Access::Components(list)) => {
                    let (picked, s) = match *self.m.types.get(t) {
                        Type::Vector(s, n) => (self.vector_picks(list, n), s),
                        Type::Matrix { scalar, cols, .. } => (
                            list.iter()
                                .map(|&k| {
                                    let cols = u32::from(cols);
                                    let (r, c) = (u32::from(k) / cols, u32::from(k) % cols);
                                    if cols > 1 {
                                        vec![self.u32c(r), self.u32c(c)]
                                    } else {
                                        vec![self.u32c(r)]
                                    }
                                })
                                .collect(),
                            scalar,
                        ),
                        Type::Scalar(s) => (list.iter().map(|_| vec![]).collect(), s),
                        _ => {
                            return Err(Error::new(
                                "components of a value that is not a vector",
                                None,
                            ));
                        }
                    };
                    Shape::Picked(picked, s)
                }
                (Shape::Vector(..), Access::Field(_)) => {
                    return Err(Error::new("a field of a value that is not a struct", None));
                }
                (Shape::Picked(..), _) => {
                    return Err(Error::new("an access after a write mask", None));
                }
            };
        }
        let leaves: Vec<(Vec<Word>, ScalarType)> = match shape {
            Shape::Ty(t) => self.leaves(t),
            Shape::Vector(s, n) if n > 1 => {
                (0..u32::from(n)).map(|i| (vec![self.u32c(i)], s)).collect()
            }
            Shape::Vector(s, _) => vec![(Vec::new(), s)],
            Shape::Picked(list, s) => list.into_iter().map(|l| (l, s)).collect(),
        };
        let ptrs = leaves
            .into_iter()
            .map(|(extra, s)| {
                let mut all = chain.clone();
                all.extend(extra);
                if all.is_empty() {
                    return (base, s);
                }
                let t = self.scalar(s);
                let ptr_ty = self.pointer(class, t);
                let mut operands = vec![Operand::IdRef(base)];
                operands.extend(ids(&all));
                (self.op(Op::AccessChain, ptr_ty, operands), s)
            })
            .collect();
        Ok(Place::Var { ptrs, class, ok })
    }

    /// The index paths of components `list` of an `n`-component vector (a
    /// scalar for 1, which takes no index).
    fn vector_picks(&mut self, list: &[u8], n: u8) -> Vec<Vec<Word>> {
        list.iter()
            .map(|&c| {
                if n > 1 {
                    vec![self.u32c(u32::from(c))]
                } else {
                    vec![]
                }
            })
            .collect()
    }

    /// The index paths and scalar types of every component of `ty`, in
    /// flattening order.
    fn leaves(&mut self, ty: TypeId) -> Vec<(Vec<Word>, ScalarType)> {
        match self.m.types.get(ty).clone() {
            Type::Void => Vec::new(),
            Type::Scalar(s) | Type::Vector(s, 1) => vec![(Vec::new(), s)],
            Type::Vector(s, n) => (0..u32::from(n)).map(|i| (vec![self.u32c(i)], s)).collect(),
            Type::Matrix {
                scalar, rows, cols, ..
            } => {
                let mut out = Vec::new();
                for r in 0..u32::from(rows) {
                    for c in 0..u32::from(cols) {
                        let path = if cols > 1 {
                            vec![self.u32c(r), self.u32c(c)]
                        } else {
                            vec![self.u32c(r)]
                        };
                        out.push((path, scalar));
                    }
                }
                out
            }
            Type::Array { element, len } => {
                let inner = self.leaves(element);
                let mut out = Vec::new();
                for i in 0..len {
                    let k = self.u32c(i);
                    for (path, s) in &inner {
                        let mut p = vec![k];
                        p.extend(path);
                        out.push((p, *s));
                    }
                }
                out
            }
            Type::Struct { members, .. } => {
                let mut out = Vec::new();
                for (i, m) in members.iter().enumerate() {
                    let k = self.u32c(i as u32);
                    for (path, s) in self.leaves(m.ty) {
                        let mut p = vec![k];
                        p.extend(path);
                        out.push((p, s));
                    }
                }
                out
            }
        }
    }

    /// A dynamic index clamped into `0..count`, and whether it was in range.
    fn clamped_index(
        &mut self,
        index: &ir::Expr,
        count: u32,
    ) -> Result<(Word, Option<Word>), Error> {
        if let ir::ExprKind::Const(k) = &index.kind
            && let Some(k) = k.first()
            && k.bits < u64::from(count)
        {
            return Ok((self.u32c(k.bits as u32), None));
        }
        let i = self.index_u32(index)?;
        let n = self.u32c(count);
        let last = self.u32c(count.saturating_sub(1));
        let bool_ty = self.scalar(ScalarType::Bool);
        let u32_ty = self.scalar(ScalarType::UInt32);
        let in_range = self.op(Op::ULessThan, bool_ty, ids(&[i, n]));
        let clamped = self.glsl(rspirv::spirv::GlslStd450Op::UMin, u32_ty, &[i, last]);
        Ok((clamped, Some(in_range)))
    }

    fn and_ok(&mut self, a: Option<Word>, b: Option<Word>) -> Option<Word> {
        match (a, b) {
            (Some(a), Some(b)) => {
                let t = self.scalar(ScalarType::Bool);
                Some(self.op(Op::LogicalAnd, t, ids(&[a, b])))
            }
            (a, b) => a.or(b),
        }
    }

    fn buffer_place(&mut self, place: &ir::Place) -> Result<Place, Error> {
        let types = &self.m.types;
        let (resource, root_ty, rule, dynamic, mut ok) = match &place.root {
            PlaceRoot::BufferElement { resource, index } => {
                let r = self.m.resource(*resource);
                let rule = r.kind.layout_rule();
                let stride = array_stride(types, r.element, rule).max(1);
                let i = self.index_u32(index)?;
                let s = self.u32c(stride);
                let u32_ty = self.scalar(ScalarType::UInt32);
                let bool_ty = self.scalar(ScalarType::Bool);
                let base = self.op(Op::IMul, u32_ty, ids(&[i, s]));
                // The element index is checked against the element count
                // too, so that a product past 2^32 cannot wrap into range.
                let len = self.byte_len(*resource, place)?;
                let count = self.op(Op::UDiv, u32_ty, ids(&[len, s]));
                let in_range = self.op(Op::ULessThan, bool_ty, ids(&[i, count]));
                (*resource, r.element, rule, Some(base), Some(in_range))
            }
            PlaceRoot::ByteAddress { resource, address } => {
                if !place.path.is_empty() {
                    return Err(Error::new("a byte-address access cannot have a path", None));
                }
                let a = self.index_u32(address)?;
                (*resource, place.ty, LayoutRule::Packed, Some(a), None)
            }
            PlaceRoot::ConstantBuffer { resource } => {
                let r = self.m.resource(*resource);
                (*resource, r.element, LayoutRule::CBuffer, None, None)
            }
            PlaceRoot::Texel {
                resource,
                coord,
                level,
            } => {
                let r = self.m.resource(*resource);
                let texel = array_stride(types, r.element, LayoutRule::Packed);
                let (address, ok) =
                    self.texel_address(*resource, coord, level.as_deref(), texel)?;
                (
                    *resource,
                    r.element,
                    LayoutRule::Packed,
                    Some(address),
                    Some(ok),
                )
            }
            _ => unreachable!("variables are resolved by the caller"),
        };
        let mut comps: Vec<(u32, ScalarType)> = scalar_slots(&self.m.types, root_ty, rule)
            .into_iter()
            .map(|s| (s.offset, s.ty))
            .collect();
        let mut dynamic = dynamic;
        let mut ty = Some(root_ty);
        for access in &place.path {
            let shape = ty.map(|t| self.m.types.get(t).clone());
            match (access, shape) {
                (Access::Field(i), Some(Type::Struct { members, .. })) => {
                    let range = self.field_range(ty.unwrap_or(root_ty), *i);
                    comps = comps[range].to_vec();
                    ty = members.get(*i as usize).map(|m| m.ty);
                }
                (Access::Components(list), _) => {
                    comps = list
                        .iter()
                        .filter_map(|&c| comps.get(usize::from(c)).copied())
                        .collect();
                    ty = None;
                }
                (Access::Index(index), shape) => {
                    let (n, next) = match shape {
                        Some(Type::Array { element, .. }) => {
                            (self.m.types.component_count(element), Some(element))
                        }
                        Some(Type::Matrix { cols, .. }) => (u32::from(cols), None),
                        _ => (1, None),
                    };
                    let scale = match shape {
                        Some(Type::Array { element, .. }) => {
                            array_stride(&self.m.types, element, rule)
                        }
                        _ => comps
                            .get(n as usize)
                            .map_or(0, |next| next.0.wrapping_sub(comps[0].0)),
                    };
                    let constant = match &index.kind {
                        ir::ExprKind::Const(k) => k.first().map(|k| k.bits),
                        _ => None,
                    };
                    match constant {
                        Some(k) if (k + 1).saturating_mul(u64::from(n)) <= comps.len() as u64 => {
                            let start = (k * u64::from(n)) as usize;
                            comps = comps[start..start + n as usize].to_vec();
                        }
                        _ => {
                            let i = self.index_u32(index)?;
                            let s = self.u32c(scale);
                            let u32_ty = self.scalar(ScalarType::UInt32);
                            let delta = self.op(Op::IMul, u32_ty, ids(&[i, s]));
                            dynamic = Some(match dynamic {
                                Some(d) => self.op(Op::IAdd, u32_ty, ids(&[d, delta])),
                                None => delta,
                            });
                            comps.truncate(n as usize);
                        }
                    }
                    ty = next;
                }
                (Access::Field(_), _) => {
                    return Err(Error::new("a field of a value that is not a struct", None));
                }
            }
        }
        let rv = self.resources[resource.index()].as_ref().ok_or_else(|| {
            let r = self.m.resource(resource);
            Error::new(
                format!(
                    "'{}': the SPIR-V back end does not support this resource kind yet",
                    r.name
                ),
                Some(r.span),
            )
        })?;
        let uniform = rv.uniform;
        let len = self.byte_len(resource, place)?;
        ok = self.and_ok(ok, None);
        Ok(Place::Buf {
            resource: resource.index(),
            uniform,
            dynamic,
            comps,
            ok,
            len,
        })
    }

    /// The byte offset of the texel at `coord` (each coordinate checked
    /// against its own dimension, the level against 0), and whether it is
    /// in range.
    fn texel_address(
        &mut self,
        resource: ir::ResourceId,
        coord: &ir::Expr,
        level: Option<&ir::Expr>,
        texel: u32,
    ) -> Result<(Word, Word), Error> {
        let coords = self.expr(coord)?;
        let from = self.flat_of(coord);
        let u32_ty = self.scalar(ScalarType::UInt32);
        let bool_ty = self.scalar(ScalarType::Bool);
        let mut ok = self.boolc(true);
        let mut xyz = Vec::new();
        let mut dims = Vec::new();
        for (axis, (&c, &s)) in coords.iter().zip(&from).take(3).enumerate() {
            let c = self.convert_scalar(c, s, ScalarType::UInt32);
            let size = self.texture_size(resource, axis as u32);
            let inside = self.op(Op::ULessThan, bool_ty, ids(&[c, size]));
            ok = self.op(Op::LogicalAnd, bool_ty, ids(&[ok, inside]));
            xyz.push(c);
            dims.push(size);
        }
        if let Some(level) = level {
            let l = self.index_u32(level)?;
            let zero = self.u32c(0);
            let first = self.op(Op::IEqual, bool_ty, ids(&[l, zero]));
            ok = self.op(Op::LogicalAnd, bool_ty, ids(&[ok, first]));
        }
        // ((z * height + y) * width + x) * texel
        let mut index = self.u32c(0);
        for axis in (0..xyz.len()).rev() {
            index = if axis + 1 == xyz.len() {
                xyz[axis]
            } else {
                let scaled = self.op(Op::IMul, u32_ty, ids(&[index, dims[axis]]));
                self.op(Op::IAdd, u32_ty, ids(&[scaled, xyz[axis]]))
            };
        }
        let t = self.u32c(texel);
        let address = self.op(Op::IMul, u32_ty, ids(&[index, t]));
        Ok((address, ok))
    }

    /// The size of a buffer in bytes: the bound range for storage buffers,
    /// the layout's size for constant buffers.
    fn byte_len(&mut self, resource: ir::ResourceId, _place: &ir::Place) -> Result<Word, Error> {
        let r = self.m.resource(resource);
        let Some(rv) = self.resources[resource.index()].as_ref() else {
            return Err(Error::new(
                format!(
                    "'{}': the SPIR-V back end does not support this resource kind yet",
                    r.name
                ),
                Some(r.span),
            ));
        };
        if rv.uniform {
            let size = size_align(&self.m.types, r.element, LayoutRule::CBuffer).size;
            return Ok(self.u32c(size.div_ceil(16).max(1) * 16));
        }
        let var = rv.var;
        let u32_ty = self.scalar(ScalarType::UInt32);
        let words = self.op(
            Op::ArrayLength,
            u32_ty,
            vec![Operand::IdRef(var), Operand::LiteralBit32(0)],
        );
        let four = self.u32c(4);
        Ok(self.op(Op::IMul, u32_ty, ids(&[words, four])))
    }

    /// The byte address of one component and whether the access is in
    /// bounds and aligned there.
    fn component_address(
        &mut self,
        dynamic: Option<Word>,
        offset: u32,
        s: ScalarType,
        len: Word,
        ok: Option<Word>,
    ) -> (Word, Word) {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let bool_ty = self.scalar(ScalarType::Bool);
        let off = self.u32c(offset);
        let a = match dynamic {
            Some(d) => self.op(Op::IAdd, u32_ty, ids(&[d, off])),
            None => off,
        };
        let size = self.u32c(s.size());
        let fits = self.op(Op::UGreaterThanEqual, bool_ty, ids(&[len, size]));
        let room = self.op(Op::ISub, u32_ty, ids(&[len, size]));
        let below = self.op(Op::ULessThanEqual, bool_ty, ids(&[a, room]));
        let mut in_bounds = self.op(Op::LogicalAnd, bool_ty, ids(&[fits, below]));
        let mask = self.u32c(s.size().min(4) - 1);
        if s.size() > 1 {
            let low = self.op(Op::BitwiseAnd, u32_ty, ids(&[a, mask]));
            let zero = self.u32c(0);
            let aligned = self.op(Op::IEqual, bool_ty, ids(&[low, zero]));
            in_bounds = self.op(Op::LogicalAnd, bool_ty, ids(&[in_bounds, aligned]));
        }
        if let Some(ok) = ok {
            in_bounds = self.op(Op::LogicalAnd, bool_ty, ids(&[in_bounds, ok]));
        }
        // Out of bounds, every word index is 0: the access is then in range
        // of any non-empty buffer, and its value is discarded.
        let zero = self.u32c(0);
        let safe = self.op(Op::Select, u32_ty, ids(&[in_bounds, a, zero]));
        (safe, in_bounds)
    }

    /// A pointer to the word at word index `w` of a buffer.
    fn word_pointer(&mut self, resource: usize, uniform: bool, w: Word) -> Word {
        let var = self.resources[resource].as_ref().map_or(0, |r| r.var);
        let u32_ty = self.scalar(ScalarType::UInt32);
        let zero = self.u32c(0);
        if uniform {
            let ptr = self.pointer(StorageClass::Uniform, u32_ty);
            let two = self.u32c(2);
            let three = self.u32c(3);
            let row = self.op(Op::ShiftRightLogical, u32_ty, ids(&[w, two]));
            let col = self.op(Op::BitwiseAnd, u32_ty, ids(&[w, three]));
            self.op(Op::AccessChain, ptr, ids(&[var, zero, row, col]))
        } else {
            let ptr = self.pointer(StorageClass::StorageBuffer, u32_ty);
            self.op(Op::AccessChain, ptr, ids(&[var, zero, w]))
        }
    }

    /// A pointer to the 64-bit word at index `w` of a buffer's `uint64_t`
    /// view (the same binding, declared again).
    fn wide_pointer(&mut self, resource: usize, w: Word) -> Word {
        let var = self.wide_view(resource);
        let u64_ty = self.scalar(ScalarType::UInt64);
        let ptr = self.pointer(StorageClass::StorageBuffer, u64_ty);
        let zero = self.u32c(0);
        self.op(Op::AccessChain, ptr, ids(&[var, zero, w]))
    }

    fn load_word(&mut self, resource: usize, uniform: bool, w: Word) -> Word {
        let ptr = self.word_pointer(resource, uniform, w);
        let u32_ty = self.scalar(ScalarType::UInt32);
        self.op(Op::Load, u32_ty, ids(&[ptr]))
    }

    pub fn load_place(&mut self, place: &ir::Place, _span: Span) -> Result<Vec<Word>, Error> {
        let p = self.place(place)?;
        Ok(self.load(&p))
    }

    pub fn load(&mut self, p: &Place) -> Vec<Word> {
        match p {
            Place::Var { ptrs, ok, .. } => ptrs
                .iter()
                .map(|&(ptr, s)| {
                    let ty = self.scalar(s);
                    let v = self.op(Op::Load, ty, ids(&[ptr]));
                    match ok {
                        Some(ok) => {
                            let zero = self.zero(s);
                            self.op(Op::Select, ty, ids(&[*ok, v, zero]))
                        }
                        None => v,
                    }
                })
                .collect(),
            Place::Buf {
                resource,
                uniform,
                dynamic,
                comps,
                ok,
                len,
            } => comps
                .iter()
                .map(|&(offset, s)| {
                    let (a, in_bounds) = self.component_address(*dynamic, offset, s, *len, *ok);
                    let v = self.load_scalar(*resource, *uniform, a, s);
                    let ty = self.scalar(s);
                    let zero = self.zero(s);
                    self.op(Op::Select, ty, ids(&[in_bounds, v, zero]))
                })
                .collect(),
        }
    }

    fn load_scalar(&mut self, resource: usize, uniform: bool, a: Word, s: ScalarType) -> Word {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let two = self.u32c(2);
        let w = self.op(Op::ShiftRightLogical, u32_ty, ids(&[a, two]));
        let word = self.load_word(resource, uniform, w);
        match s.bits() {
            64 => {
                let one = self.u32c(1);
                let w1 = self.op(Op::IAdd, u32_ty, ids(&[w, one]));
                let hi = self.load_word(resource, uniform, w1);
                let u64_ty = self.scalar(ScalarType::UInt64);
                let lo = self.op(Op::UConvert, u64_ty, ids(&[word]));
                let hi = self.op(Op::UConvert, u64_ty, ids(&[hi]));
                let k32 = self.konst(ScalarType::UInt64, 32);
                let hi = self.op(Op::ShiftLeftLogical, u64_ty, ids(&[hi, k32]));
                let v = self.op(Op::BitwiseOr, u64_ty, ids(&[lo, hi]));
                self.bitcast(v, ScalarType::UInt64, s)
            }
            16 => {
                let shift = self.half_shift(a);
                let v = self.op(Op::ShiftRightLogical, u32_ty, ids(&[word, shift]));
                let u16_ty = self.scalar(ScalarType::UInt16);
                let v = self.op(Op::UConvert, u16_ty, ids(&[v]));
                self.bitcast(v, ScalarType::UInt16, s)
            }
            _ if s == ScalarType::Bool => self.convert_scalar(word, ScalarType::UInt32, s),
            _ => self.bitcast(word, ScalarType::UInt32, s),
        }
    }

    /// The shift of a 16-bit value at byte address `a` within its word.
    fn half_shift(&mut self, a: Word) -> Word {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let two = self.u32c(2);
        let eight = self.u32c(8);
        let bit = self.op(Op::BitwiseAnd, u32_ty, ids(&[a, two]));
        self.op(Op::IMul, u32_ty, ids(&[bit, eight]))
    }

    pub fn store(&mut self, p: &Place, values: &[Word]) {
        match p {
            Place::Var { ptrs, ok, .. } => {
                self.guarded(*ok, |e| {
                    for (&(ptr, _), &v) in ptrs.iter().zip(values) {
                        e.op_void(Op::Store, ids(&[ptr, v]));
                    }
                });
            }
            Place::Buf {
                resource,
                uniform,
                dynamic,
                comps,
                ok,
                len,
            } => {
                if *uniform {
                    return;
                }
                for (&(offset, s), &v) in comps.iter().zip(values) {
                    let (a, in_bounds) = self.component_address(*dynamic, offset, s, *len, *ok);
                    let resource = *resource;
                    self.guarded(Some(in_bounds), |e| e.store_scalar(resource, a, s, v));
                }
            }
        }
    }

    /// Runs `body` in a selection construct on the lanes where `ok` holds.
    fn guarded(&mut self, ok: Option<Word>, body: impl FnOnce(&mut Self)) {
        let Some(ok) = ok else {
            body(self);
            return;
        };
        let (yes, merge) = (self.label(), self.label());
        self.selection_merge(merge);
        self.branch_if(ok, yes, merge);
        self.start(yes);
        body(self);
        self.branch(merge);
        self.start(merge);
    }

    fn store_scalar(&mut self, resource: usize, a: Word, s: ScalarType, v: Word) {
        let u32_ty = self.scalar(ScalarType::UInt32);
        let two = self.u32c(2);
        let w = self.op(Op::ShiftRightLogical, u32_ty, ids(&[a, two]));
        match s.bits() {
            64 => {
                let bits = self.bitcast(v, s, ScalarType::UInt64);
                let lo = self.op(Op::UConvert, u32_ty, ids(&[bits]));
                let u64_ty = self.scalar(ScalarType::UInt64);
                let k32 = self.konst(ScalarType::UInt64, 32);
                let hi = self.op(Op::ShiftRightLogical, u64_ty, ids(&[bits, k32]));
                let hi = self.op(Op::UConvert, u32_ty, ids(&[hi]));
                let p0 = self.word_pointer(resource, false, w);
                self.op_void(Op::Store, ids(&[p0, lo]));
                let one = self.u32c(1);
                let w1 = self.op(Op::IAdd, u32_ty, ids(&[w, one]));
                let p1 = self.word_pointer(resource, false, w1);
                self.op_void(Op::Store, ids(&[p1, hi]));
            }
            16 => {
                // The other half of the word may belong to another lane:
                // clear and set this half with atomics.
                let bits = self.bitcast(v, s, ScalarType::UInt16);
                let bits = self.op(Op::UConvert, u32_ty, ids(&[bits]));
                let shift = self.half_shift(a);
                let ffff = self.u32c(0xFFFF);
                let mask = self.op(Op::ShiftLeftLogical, u32_ty, ids(&[ffff, shift]));
                let keep = self.op(Op::Not, u32_ty, ids(&[mask]));
                let set = self.op(Op::ShiftLeftLogical, u32_ty, ids(&[bits, shift]));
                let ptr = self.word_pointer(resource, false, w);
                let scope = self.u32c(Scope::Device as u32);
                let relaxed = self.u32c(0);
                self.op(Op::AtomicAnd, u32_ty, ids(&[ptr, scope, relaxed, keep]));
                self.op(Op::AtomicOr, u32_ty, ids(&[ptr, scope, relaxed, set]));
            }
            _ => {
                let word = if s == ScalarType::Bool {
                    self.convert_scalar(v, s, ScalarType::UInt32)
                } else {
                    self.bitcast(v, s, ScalarType::UInt32)
                };
                let ptr = self.word_pointer(resource, false, w);
                self.op_void(Op::Store, ids(&[ptr, word]));
            }
        }
    }

    pub fn atomic(
        &mut self,
        op: AtomicOp,
        place: &ir::Place,
        args: &[ir::Expr],
        e: &ir::Expr,
    ) -> Result<Vec<Word>, Error> {
        let mut values = Vec::new();
        for a in args {
            values.push(self.scalar_expr(a)?);
        }
        let p = self.place(place)?;
        let (ptr, s, scope, ok) = match &p {
            Place::Var { ptrs, class, ok } => {
                let &[(ptr, s)] = ptrs.as_slice() else {
                    return Err(Error::new("an atomic on more than one value", Some(e.span)));
                };
                let scope = if *class == StorageClass::Workgroup {
                    Scope::Workgroup
                } else {
                    Scope::Invocation
                };
                if s.is_float() && matches!(op, AtomicOp::CompareExchange | AtomicOp::CompareStore)
                {
                    return Err(Error::new(
                        "a float compare-exchange on a variable is not supported by the SPIR-V back end yet",
                        Some(e.span),
                    ));
                }
                (ptr, s, scope, *ok)
            }
            Place::Buf {
                resource,
                dynamic,
                comps,
                ok,
                len,
                uniform,
            } => {
                let &[(offset, s)] = comps.as_slice() else {
                    return Err(Error::new("an atomic on more than one value", Some(e.span)));
                };
                if *uniform {
                    return Err(Error::new("an atomic on a constant buffer", Some(e.span)));
                }
                let (a, mut in_bounds) = self.component_address(*dynamic, offset, s, *len, *ok);
                let u32_ty = self.scalar(ScalarType::UInt32);
                let ptr = if s.bits() == 64 {
                    // Through the buffer's 64-bit view: the address must
                    // be a multiple of 8.
                    let bool_ty = self.scalar(ScalarType::Bool);
                    let seven = self.u32c(7);
                    let zero = self.u32c(0);
                    let low = self.op(Op::BitwiseAnd, u32_ty, ids(&[a, seven]));
                    let aligned = self.op(Op::IEqual, bool_ty, ids(&[low, zero]));
                    in_bounds = self.op(Op::LogicalAnd, bool_ty, ids(&[in_bounds, aligned]));
                    let three = self.u32c(3);
                    let w = self.op(Op::ShiftRightLogical, u32_ty, ids(&[a, three]));
                    self.wide_pointer(*resource, w)
                } else {
                    let two = self.u32c(2);
                    let w = self.op(Op::ShiftRightLogical, u32_ty, ids(&[a, two]));
                    self.word_pointer(*resource, false, w)
                };
                (ptr, s, Scope::Device, Some(in_bounds))
            }
        };
        // Buffer words are `uint`s (`uint64_t`s for 64-bit atomics): the
        // operands are their bits.
        let word_ty = match (&p, s.bits()) {
            (Place::Buf { .. }, 64) => ScalarType::UInt64,
            (Place::Buf { .. }, _) => ScalarType::UInt32,
            _ => s,
        };
        if word_ty.bits() == 64 {
            self.capability(rspirv::spirv::Capability::Int64Atomics);
        }
        let values: Vec<Word> = values
            .iter()
            .zip(args)
            .map(|(&v, a)| {
                let from = self.m.types.scalar_of(a.ty).unwrap_or(s);
                let v = self.convert_scalar(v, from, s);
                self.bitcast(v, s, word_ty)
            })
            .collect();
        let ty = self.scalar(word_ty);
        let scope = self.u32c(scope as u32);
        let relaxed = self.u32c(0);
        let before = self.f.label;
        let (yes, merge) = (self.label(), self.label());
        if let Some(ok) = ok {
            self.selection_merge(merge);
            self.branch_if(ok, yes, merge);
            self.start(yes);
        }
        let v0 = values.first().copied().unwrap_or(0);
        let signed = s.is_signed();
        let r = match op {
            AtomicOp::Add => self.op(Op::AtomicIAdd, ty, ids(&[ptr, scope, relaxed, v0])),
            AtomicOp::Min if signed => self.op(Op::AtomicSMin, ty, ids(&[ptr, scope, relaxed, v0])),
            AtomicOp::Min => self.op(Op::AtomicUMin, ty, ids(&[ptr, scope, relaxed, v0])),
            AtomicOp::Max if signed => self.op(Op::AtomicSMax, ty, ids(&[ptr, scope, relaxed, v0])),
            AtomicOp::Max => self.op(Op::AtomicUMax, ty, ids(&[ptr, scope, relaxed, v0])),
            AtomicOp::And => self.op(Op::AtomicAnd, ty, ids(&[ptr, scope, relaxed, v0])),
            AtomicOp::Or => self.op(Op::AtomicOr, ty, ids(&[ptr, scope, relaxed, v0])),
            AtomicOp::Xor => self.op(Op::AtomicXor, ty, ids(&[ptr, scope, relaxed, v0])),
            AtomicOp::Exchange => self.op(Op::AtomicExchange, ty, ids(&[ptr, scope, relaxed, v0])),
            AtomicOp::CompareExchange | AtomicOp::CompareStore => {
                let value = values.get(1).copied().unwrap_or(v0);
                self.op(
                    Op::AtomicCompareExchange,
                    ty,
                    ids(&[ptr, scope, relaxed, relaxed, value, v0]),
                )
            }
        };
        let r = if ok.is_some() {
            let end = self.f.label;
            self.branch(merge);
            self.start(merge);
            let zero = self.zero(word_ty);
            let _ = before;
            self.op(Op::Phi, ty, ids(&[r, end, zero, before]))
        } else {
            r
        };
        if op == AtomicOp::CompareStore || matches!(self.m.types.get(e.ty), Type::Void) {
            return Ok(Vec::new());
        }
        let r = self.bitcast(r, word_ty, s);
        let want = self.m.types.scalar_of(e.ty).unwrap_or(s);
        Ok(vec![self.convert_scalar(r, s, want)])
    }

    pub fn resource_query(
        &mut self,
        resource: ir::ResourceId,
        query: ResourceQuery,
        span: Span,
    ) -> Result<Word, Error> {
        let r = self.m.resource(resource);
        let stride = array_stride(&self.m.types, r.element, r.kind.layout_rule()).max(1);
        let place = ir::Place {
            root: PlaceRoot::ConstantBuffer { resource },
            path: Vec::new(),
            ty: r.element,
        };
        let u32_ty = self.scalar(ScalarType::UInt32);
        match query {
            ResourceQuery::ElementCount => {
                let len = self.byte_len(resource, &place)?;
                let s = self.u32c(stride);
                Ok(self.op(Op::UDiv, u32_ty, ids(&[len, s])))
            }
            ResourceQuery::Stride => Ok(self.u32c(stride)),
            ResourceQuery::ByteSize => self.byte_len(resource, &place),
            ResourceQuery::Width => Ok(self.texture_size(resource, 0)),
            ResourceQuery::Height => Ok(self.texture_size(resource, 1)),
            ResourceQuery::Depth | ResourceQuery::Elements => Ok(self.texture_size(resource, 2)),
            ResourceQuery::Levels => {
                let _ = span;
                Ok(self.u32c(1))
            }
        }
    }
}
