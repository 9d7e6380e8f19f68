//! The abstract syntax tree of an HLSL translation unit, after preprocessing.
//!
//! Every node carries a [`Span`] into the original source files (not into the
//! preprocessed text), so diagnostics point where the user wrote the code. The
//! tree is untyped: a type is written as a [`TypeExpr`] naming a type, and
//! [`lockstep-sema`] resolves names, overloads and conversions.

use crate::span::Span;

/// A whole preprocessed file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TranslationUnit {
    pub items: Vec<Item>,
    /// `#pragma lockstep …` directives, in source order.
    pub pragmas: Vec<Pragma>,
}

/// A `#pragma lockstep …` directive: instructions to Lockstep's tools
/// that other compilers ignore.
#[derive(Clone, Debug, PartialEq)]
pub struct Pragma {
    /// The whole directive.
    pub span: Span,
    /// The tokens after `lockstep`, unexpanded.
    pub args: Vec<crate::lexer::Token>,
}

/// A top-level declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Function(FunctionDecl),
    Struct(StructDecl),
    Typedef(TypedefDecl),
    /// Global variables: `static const` values, `static` per-thread globals,
    /// `groupshared` memory, resources (`RWStructuredBuffer<uint> buf;`) and
    /// plain globals, which HLSL places in the implicit `$Globals` cbuffer.
    Variable(VarDecl),
    CBuffer(CBufferDecl),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// `[name(args)]` before a function or statement, e.g. `[numthreads(8, 8, 1)]`,
/// `[shader("compute")]`, `[unroll]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: Ident,
    pub args: Vec<Expr>,
    pub span: Span,
}

/// A type as written: a name with optional template arguments, e.g. `float3`,
/// `vector<float, 3>`, `RWStructuredBuffer<MyStruct>`, `matrix<float, 4, 4>`,
/// or a struct/typedef name. Array dimensions belong to the declarator.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    pub name: Ident,
    pub args: Vec<TemplateArg>,
    /// Type modifiers written before the name that matter to sema:
    /// `const`, `unsigned` (as in `unsigned int`), `row_major`, `column_major`,
    /// `snorm`, `unorm`. Storage classes live on the declaration instead.
    pub modifiers: Vec<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TemplateArg {
    Type(TypeExpr),
    Expr(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl {
    pub attributes: Vec<Attribute>,
    /// `static`, `inline`, `export`, … as written before the return type.
    pub storage: Vec<Ident>,
    pub return_type: TypeExpr,
    pub name: Ident,
    pub params: Vec<Param>,
    /// `: SV_Target` after the parameter list.
    pub semantic: Option<Ident>,
    /// `None` for a prototype (`float f(float x);`).
    pub body: Option<Block>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamDirection {
    /// No modifier or `in`.
    In,
    Out,
    InOut,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub direction: ParamDirection,
    /// Other modifiers kept for diagnostics (`uniform`, `const`, `precise`,
    /// interpolation modifiers).
    pub modifiers: Vec<Ident>,
    pub ty: TypeExpr,
    pub name: Ident,
    pub array_dims: Vec<Option<Expr>>,
    /// `: SV_DispatchThreadID`.
    pub semantic: Option<Ident>,
    pub default: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructDecl {
    pub name: Ident,
    /// The base struct of `struct S : Base { … }`.
    pub base: Option<TypeExpr>,
    pub fields: Vec<FieldDecl>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FieldDecl {
    pub modifiers: Vec<Ident>,
    pub ty: TypeExpr,
    pub name: Ident,
    pub array_dims: Vec<Option<Expr>>,
    pub semantic: Option<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypedefDecl {
    pub ty: TypeExpr,
    pub name: Ident,
    pub array_dims: Vec<Option<Expr>>,
    pub span: Span,
}

/// `static const uint N = 4, M = 8;`: storage classes, one type, several
/// declarators.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// `static`, `const`, `groupshared`, `uniform`, `extern`, `precise`,
    /// `volatile`, `shared`, `globallycoherent` in source order.
    pub storage: Vec<Ident>,
    pub ty: TypeExpr,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub name: Ident,
    /// `a[4][2]` gives `[Some(4), Some(2)]`; `a[]` gives `[None]`.
    pub array_dims: Vec<Option<Expr>>,
    pub register: Option<RegisterBinding>,
    /// `: packoffset(c0.y)` is kept as written for cbuffer members.
    pub packoffset: Option<Ident>,
    pub semantic: Option<Ident>,
    pub init: Option<Initializer>,
    pub span: Span,
}

/// `: register(u3, space1)`.
#[derive(Clone, Debug, PartialEq)]
pub struct RegisterBinding {
    /// `'t'`, `'u'`, `'b'`, `'s'` (lowercased).
    pub class: char,
    pub index: u32,
    pub space: u32,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Expr(Expr),
    /// `{ 1, 2, { 3, 4 } }`; nested lists flatten as in HLSL.
    List(Vec<Initializer>, Span),
}

/// `cbuffer Name : register(b0) { float4 a; uint b; };`, also `tbuffer`.
#[derive(Clone, Debug, PartialEq)]
pub struct CBufferDecl {
    /// Which keyword introduced the block.
    pub kind: CBufferKind,
    pub name: Ident,
    pub register: Option<RegisterBinding>,
    pub members: Vec<VarDecl>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CBufferKind {
    CBuffer,
    TBuffer,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// `[unroll]`, `[loop]`, `[branch]`, `[flatten]`, `[fastopt]`, …
    pub attributes: Vec<Attribute>,
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Empty,
    Expr(Expr),
    Decl(VarDecl),
    Block(Block),
    If {
        cond: Expr,
        then_branch: Box<Stmt>,
        else_branch: Option<Box<Stmt>>,
    },
    For {
        /// A declaration or an expression statement (or `Empty`).
        init: Box<Stmt>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    Switch {
        selector: Expr,
        cases: Vec<SwitchCase>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    Discard,
}

/// One or more labels followed by the statements up to the next label.
/// `case 1: case 2: a(); /* falls through */ default: b(); break;` gives two
/// cases: labels `[1, 2]` with `a();`, and `[default]` with `b(); break;`.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    pub labels: Vec<CaseLabel>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum CaseLabel {
    Case(Expr),
    Default(Span),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntSuffix {
    None,
    /// `u`
    U,
    /// `l`
    L,
    /// `ul` / `lu`
    UL,
    /// `ll`
    LL,
    /// `ull` / `llu`
    ULL,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatSuffix {
    None,
    /// `f` / `F`
    F,
    /// `h` / `H`
    H,
    /// `l` / `L` (double)
    L,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    LogicalAnd,
    LogicalOr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    /// A function, intrinsic or struct-free name: `WaveActiveSum(x)`, `f(a)`.
    Name(Ident),
    /// A constructor: `float4(a.xy, 0, 1)`, `vector<float, 2>(1, 2)`.
    Type(TypeExpr),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// The literal's value; `0xFFFFFFFF` is `4294967295`. Values above
    /// `u64::MAX` are a lexer diagnostic.
    IntLit {
        value: u64,
        suffix: IntSuffix,
    },
    FloatLit {
        value: f64,
        suffix: FloatSuffix,
    },
    BoolLit(bool),
    /// `"compute"` in `[shader("compute")]`: the contents with escapes
    /// read; adjacent literals are joined.
    StringLit(String),
    Ident(Ident),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `a = b` has `op: None`; `a += b` has `op: Some(BinaryOp::Add)`.
    Assign {
        op: Option<BinaryOp>,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `c ? a : b`
    Conditional {
        cond: Box<Expr>,
        then_expr: Box<Expr>,
        else_expr: Box<Expr>,
    },
    Call {
        callee: Callee,
        args: Vec<Expr>,
    },
    /// `buf.Load<float2>(addr)`, `buf.InterlockedAdd(0, 1, old)`,
    /// `buf.GetDimensions(n, stride)`.
    MethodCall {
        receiver: Box<Expr>,
        method: Ident,
        template_args: Vec<TypeExpr>,
        args: Vec<Expr>,
    },
    /// `s.field`, `v.xyz`, `m._m00_m11`.
    Member {
        base: Box<Expr>,
        member: Ident,
    },
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// `(float3)x`, `(MyStruct)0`; array casts carry dimensions.
    Cast {
        ty: TypeExpr,
        array_dims: Vec<Option<Expr>>,
        operand: Box<Expr>,
    },
    /// `sizeof(T)`: the bytes of a type.
    SizeOf(TypeExpr),
    /// `a, b`
    Comma {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
}
