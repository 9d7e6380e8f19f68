//! Places: where a variable, buffer element or groupshared value lives,
//! and loads and stores through them.

use super::*;
use crate::bytecode::{Address, Space};

/// The type of a place while its path is applied: a vector type the
/// module's arena may not hold (a matrix row) is described directly.
#[derive(Clone, Copy, Debug)]
pub(super) enum PlaceTy {
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
pub(super) enum LocKind {
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
pub(super) struct Loc {
    pub(super) kind: LocKind,
    pub(super) comps: Vec<(u32, ScalarType)>,
    pub(super) dynamic: Option<Reg>,
}

impl Compiler<'_> {
    pub(super) fn place(&mut self, place: &Place) -> Result<Loc, ExecError> {
        let types = &self.module.types;
        let (mut loc, ty, rule) = match &place.root {
            PlaceRoot::Local(id) => {
                let (regs, root_ty) = self.local(*id)?;
                (self.reg_loc(regs), root_ty, LayoutRule::Packed)
            }
            PlaceRoot::Static(id) => {
                let root_ty = self.module.statics[id.index()].ty;
                (
                    self.reg_loc(&self.statics[id.index()]),
                    root_ty,
                    LayoutRule::Packed,
                )
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
                let addr = self.scaled_index(index, u64::from(stride), None)?;
                (
                    self.mem_loc(Space::Resource(*resource), r.element, rule, 0, Some(addr)),
                    r.element,
                    rule,
                )
            }
            PlaceRoot::ByteAddress { resource, address } => {
                let addr = self.scaled_index(address, 1, None)?;
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
            PlaceRoot::Texel {
                resource,
                coord,
                level,
            } => {
                let r = self.module.resource(*resource);
                let texel_size = array_stride(types, r.element, LayoutRule::Packed);
                let regs = self.expr(coord)?;
                let level = match level {
                    Some(level) => Some(self.expr(level)?[0]),
                    None => None,
                };
                let first = *regs
                    .first()
                    .ok_or_else(|| ExecError::new("a texel coordinate without components", None))?;
                let mut coords = [first; 3];
                for (slot, &reg) in coords.iter_mut().zip(&regs) {
                    *slot = reg;
                }
                let dst = self.temp();
                self.emit(Inst::TexelAddress {
                    dst,
                    resource: *resource,
                    coords,
                    count: regs.len().min(3) as u8,
                    level,
                    texel_size,
                });
                (
                    self.mem_loc(
                        Space::Resource(*resource),
                        r.element,
                        LayoutRule::Packed,
                        0,
                        Some(dst),
                    ),
                    r.element,
                    LayoutRule::Packed,
                )
            }
        };
        let mut ty = PlaceTy::Id(ty);
        for access in &place.path {
            ty = self.project(&mut loc, ty, access, rule)?;
        }
        Ok(loc)
    }

    pub(super) fn local(&self, id: LocalId) -> Result<(&[Reg], TypeId), ExecError> {
        self.calls
            .last()
            .and_then(|c| {
                Some((
                    c.locals.get(id.index())?.as_slice(),
                    *c.local_types.get(id.index())?,
                ))
            })
            .ok_or_else(|| ExecError::new("reference to an unknown local variable", None))
    }

    pub(super) fn reg_loc(&self, regs: &[Reg]) -> Loc {
        let end = regs.last().map_or(0, |r| r.0 + 1);
        Loc {
            kind: LocKind::Regs { end },
            comps: regs.iter().map(|r| (r.0, ScalarType::UInt32)).collect(),
            dynamic: None,
        }
    }

    pub(super) fn mem_loc(
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
    pub(super) fn project(
        &mut self,
        loc: &mut Loc,
        ty: PlaceTy,
        access: &Access,
        rule: LayoutRule,
    ) -> Result<PlaceTy, ExecError> {
        let types = &self.module.types;
        let vector;
        let shape = match ty {
            PlaceTy::Id(id) => types.get(id),
            PlaceTy::Vector(s, n) => {
                vector = Type::Vector(s, n);
                &vector
            }
        };
        match access {
            Access::Field(i) => {
                let (Type::Struct { members, .. }, PlaceTy::Id(id)) = (shape, ty) else {
                    return Err(ExecError::new(
                        "field access on a value that is not a struct",
                        None,
                    ));
                };
                let member = members
                    .get(*i as usize)
                    .ok_or_else(|| ExecError::new("field index out of range", None))?;
                let member_ty = member.ty;
                let fields = self.field_range(id, *i);
                loc.comps.truncate(fields.end);
                loc.comps.drain(..fields.start);
                Ok(PlaceTy::Id(member_ty))
            }
            Access::Components(list) => {
                let picked: Option<Vec<_>> = list
                    .iter()
                    .map(|&c| loc.comps.get(usize::from(c)).copied())
                    .collect();
                loc.comps =
                    picked.ok_or_else(|| ExecError::new("component index out of range", None))?;
                let scalar = scalar_of_shape(shape);
                Ok(PlaceTy::Vector(scalar, list.len() as u8))
            }
            Access::Index(index) => {
                let (n, elem_ty) = match *shape {
                    Type::Array { element, .. } => (self.count(element), PlaceTy::Id(element)),
                    Type::Matrix { scalar, cols, .. } => {
                        (u32::from(cols), PlaceTy::Vector(scalar, cols))
                    }
                    ref other => (1, PlaceTy::Vector(scalar_of_shape(other), 1)),
                };
                let scale = match (&loc.kind, shape) {
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
                loc.dynamic = Some(self.scaled_index(index, scale, loc.dynamic)?);
                loc.comps.truncate(n as usize);
                Ok(elem_ty)
            }
        }
    }

    pub(super) fn load(&mut self, loc: &Loc) -> Vec<Reg> {
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

    pub(super) fn store(&mut self, loc: &Loc, values: &[Reg]) -> Result<(), ExecError> {
        if let LocKind::Mem {
            space: Space::Resource(_),
        } = loc.kind
            && self.helper_reg().is_some()
        {
            // Helper lanes write no memory.
            return self.unless_helper(|s| {
                s.store_lanes(loc, values);
                Ok(())
            });
        }
        self.store_lanes(loc, values);
        Ok(())
    }

    fn store_lanes(&mut self, loc: &Loc, values: &[Reg]) {
        // A value read straight from the registers being written (`v.yx =
        // v`) is copied first, so no component is overwritten before it is
        // read.
        let copied;
        let values = if matches!(loc.kind, LocKind::Regs { .. })
            && values.iter().any(|v| loc.comps.iter().any(|c| c.0 == v.0))
        {
            copied = self.copy_to_temps(values);
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
