//! Types of the IR, interned in a [`TypeArena`] and referred to by [`TypeId`].

use std::collections::HashMap;

/// A scalar type of HLSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    /// `bool`: a 32-bit word in memory.
    Bool,
    /// `int16_t`: a 16-bit signed integer.
    Int16,
    /// `uint16_t`: a 16-bit unsigned integer.
    UInt16,
    /// `int`: a 32-bit signed integer.
    Int32,
    /// `uint`: a 32-bit unsigned integer.
    UInt32,
    /// `int64_t`: a 64-bit signed integer.
    Int64,
    /// `uint64_t`: a 64-bit unsigned integer.
    UInt64,
    /// `half`: a 16-bit float.
    Float16,
    /// `float`: a 32-bit float.
    Float32,
    /// `double`: a 64-bit float.
    Float64,
}

impl ScalarType {
    /// Bytes the scalar takes in memory (`bool` is a 32-bit word).
    pub fn size(self) -> u32 {
        match self {
            ScalarType::Int16 | ScalarType::UInt16 | ScalarType::Float16 => 2,
            ScalarType::Bool | ScalarType::Int32 | ScalarType::UInt32 | ScalarType::Float32 => 4,
            ScalarType::Int64 | ScalarType::UInt64 | ScalarType::Float64 => 8,
        }
    }

    /// Bits the scalar takes in memory (`bool` takes 32).
    pub fn bits(self) -> u32 {
        self.size() * 8
    }

    /// Whether the type is `half`, `float` or `double`.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ScalarType::Float16 | ScalarType::Float32 | ScalarType::Float64
        )
    }

    /// Whether the type is an integer type (neither `bool` nor a float).
    pub fn is_integer(self) -> bool {
        !self.is_float() && self != ScalarType::Bool
    }

    /// Whether values of the type can be negative: the signed integers and the floats.
    pub fn is_signed(self) -> bool {
        matches!(
            self,
            ScalarType::Int16
                | ScalarType::Int32
                | ScalarType::Int64
                | ScalarType::Float16
                | ScalarType::Float32
                | ScalarType::Float64
        )
    }

    /// The HLSL spelling.
    pub fn name(self) -> &'static str {
        match self {
            ScalarType::Bool => "bool",
            ScalarType::Int16 => "int16_t",
            ScalarType::UInt16 => "uint16_t",
            ScalarType::Int32 => "int",
            ScalarType::UInt32 => "uint",
            ScalarType::Int64 => "int64_t",
            ScalarType::UInt64 => "uint64_t",
            ScalarType::Float16 => "half",
            ScalarType::Float32 => "float",
            ScalarType::Float64 => "double",
        }
    }
}

/// Handle of an interned type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

/// A member of a struct type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Member {
    /// The member's name in the source.
    pub name: String,
    /// The member's type.
    pub ty: TypeId,
}

/// A type of the IR.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// The result of a call or statement-like expression with no value.
    Void,
    /// A single scalar.
    Scalar(ScalarType),
    /// 1 to 4 components.
    Vector(ScalarType, u8),
    /// `rows` × `cols`, 1 to 4 each. Values flatten row-major; `row_major`
    /// only changes the layout in memory (default: column-major, as DXC).
    Matrix {
        /// The type of each element.
        scalar: ScalarType,
        /// Rows, 1 to 4.
        rows: u8,
        /// Columns, 1 to 4.
        cols: u8,
        /// Whether the matrix is stored row by row in memory (`row_major`).
        row_major: bool,
    },
    /// A fixed-size array.
    Array {
        /// The element type.
        element: TypeId,
        /// The number of elements.
        len: u32,
    },
    /// A struct type.
    Struct {
        /// The struct's name in the source.
        name: String,
        /// The members, in declaration order.
        members: Vec<Member>,
    },
}

/// Interned types: equal types get equal ids.
#[derive(Clone, Debug, Default)]
pub struct TypeArena {
    types: Vec<Type>,
    ids: HashMap<Type, TypeId>,
}

impl TypeArena {
    /// An empty arena.
    pub fn new() -> TypeArena {
        TypeArena::default()
    }

    /// The id of `ty`, added to the arena when it is new.
    pub fn intern(&mut self, ty: Type) -> TypeId {
        if let Some(&id) = self.ids.get(&ty) {
            return id;
        }
        let id = TypeId(self.types.len() as u32);
        self.types.push(ty.clone());
        self.ids.insert(ty, id);
        id
    }

    /// The type with id `id` (an id this arena gave out).
    pub fn get(&self, id: TypeId) -> &Type {
        &self.types[id.0 as usize]
    }

    /// The id of the scalar type `s`.
    pub fn scalar(&mut self, s: ScalarType) -> TypeId {
        self.intern(Type::Scalar(s))
    }

    /// The id of `Void`.
    pub fn void(&mut self) -> TypeId {
        self.intern(Type::Void)
    }

    /// A vector type, or the scalar itself when `n == 1` is not wanted: this
    /// keeps `Vector(s, 1)` distinct from `Scalar(s)`, as HLSL does.
    pub fn vector(&mut self, s: ScalarType, n: u8) -> TypeId {
        self.intern(Type::Vector(s, n))
    }

    /// The scalar type of every component, if the type is numeric
    /// (scalar, vector or matrix).
    pub fn scalar_of(&self, id: TypeId) -> Option<ScalarType> {
        match *self.get(id) {
            Type::Scalar(s) | Type::Vector(s, _) => Some(s),
            Type::Matrix { scalar, .. } => Some(scalar),
            _ => None,
        }
    }

    /// How many scalar components a value of this type has when flattened
    /// (struct members in order, arrays element by element, matrices
    /// row-major).
    pub fn component_count(&self, id: TypeId) -> u32 {
        match self.get(id) {
            Type::Void => 0,
            Type::Scalar(_) => 1,
            Type::Vector(_, n) => u32::from(*n),
            Type::Matrix { rows, cols, .. } => u32::from(*rows) * u32::from(*cols),
            Type::Array { element, len } => self.component_count(*element).saturating_mul(*len),
            Type::Struct { members, .. } => {
                members.iter().map(|m| self.component_count(m.ty)).sum()
            }
        }
    }

    /// The scalar type of every flattened component, in order.
    pub fn flatten(&self, id: TypeId, out: &mut Vec<ScalarType>) {
        match self.get(id) {
            Type::Void => {}
            Type::Scalar(s) => out.push(*s),
            Type::Vector(s, n) => out.extend(std::iter::repeat_n(*s, usize::from(*n))),
            Type::Matrix {
                scalar, rows, cols, ..
            } => out.extend(std::iter::repeat_n(
                *scalar,
                usize::from(*rows) * usize::from(*cols),
            )),
            Type::Array { element, len } => {
                for _ in 0..*len {
                    self.flatten(*element, out);
                }
            }
            Type::Struct { members, .. } => {
                for m in members {
                    self.flatten(m.ty, out);
                }
            }
        }
    }

    /// The HLSL spelling of a type, for messages.
    pub fn display(&self, id: TypeId) -> String {
        match self.get(id) {
            Type::Void => "void".to_string(),
            Type::Scalar(s) => s.name().to_string(),
            Type::Vector(s, n) => format!("{}{}", s.name(), n),
            Type::Matrix {
                scalar, rows, cols, ..
            } => format!("{}{}x{}", scalar.name(), rows, cols),
            Type::Array { element, len } => format!("{}[{}]", self.display(*element), len),
            Type::Struct { name, .. } => name.clone(),
        }
    }
}
