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
    /// The top-level declarations, in source order; a struct's member functions
    /// follow it as functions of their own.
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
    /// A function definition or prototype, a struct's member functions included
    /// (named `S.f`).
    Function(FunctionDecl),
    /// `struct S { … };`
    Struct(StructDecl),
    /// `typedef float4 Color;`: one item per declared name.
    Typedef(TypedefDecl),
    /// Global variables: `static const` values, `static` per-thread globals,
    /// `groupshared` memory, resources (`RWStructuredBuffer<uint> buf;`) and
    /// plain globals, which HLSL places in the implicit `$Globals` cbuffer.
    Variable(VarDecl),
    /// A `cbuffer` or `tbuffer` block.
    CBuffer(CBufferDecl),
}

/// A name as written, with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    /// The name's text: `ns::name` for a scoped attribute, `S.f` for a member
    /// function `f` of struct `S`.
    pub name: String,
    /// Where the name appears in the source.
    pub span: Span,
}

/// `[name(args)]` before a function or statement, e.g. `[numthreads(8, 8, 1)]`,
/// `[shader("compute")]`, `[unroll]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    /// The attribute's name: `numthreads`, `ns::name` for `[[ns::name]]`.
    pub name: Ident,
    /// The arguments in parentheses; empty for `[unroll]`.
    pub args: Vec<Expr>,
    /// The whole attribute, brackets included.
    pub span: Span,
}

/// A type as written: a name with optional template arguments, e.g. `float3`,
/// `vector<float, 3>`, `RWStructuredBuffer<MyStruct>`, `matrix<float, 4, 4>`,
/// or a struct/typedef name. Array dimensions belong to the declarator.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeExpr {
    /// The type's name: `float3`, `RWStructuredBuffer`, a struct or typedef
    /// name; `int` for a bare `unsigned`.
    pub name: Ident,
    /// The arguments between `<` and `>`; empty when there are none.
    pub args: Vec<TemplateArg>,
    /// Type modifiers written before the name that matter to sema:
    /// `const`, `unsigned` (as in `unsigned int`), `row_major`, `column_major`,
    /// `snorm`, `unorm`. Storage classes live on the declaration instead.
    pub modifiers: Vec<Ident>,
    /// The type from its first modifier to its closing `>`.
    pub span: Span,
}

/// One argument of a template type: a type or a constant expression.
#[derive(Clone, Debug, PartialEq)]
pub enum TemplateArg {
    /// A type: `float` in `vector<float, 3>`.
    Type(TypeExpr),
    /// A constant expression: `3` in `vector<float, 3>`.
    Expr(Expr),
}

/// A function definition or prototype:
/// `[numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { … }`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionDecl {
    /// The attributes before the function: `[numthreads(…)]`, `[WaveSize(…)]`,
    /// `[shader("compute")]`.
    pub attributes: Vec<Attribute>,
    /// `static`, `inline`, `export`, … as written before the return type.
    pub storage: Vec<Ident>,
    /// The return type; a `const` written before it is one of its modifiers.
    pub return_type: TypeExpr,
    /// The function's name; `S.f` for a member function `f` of struct `S`.
    pub name: Ident,
    /// The parameters in order; a member function that is not `static` takes
    /// `inout S this` first.
    pub params: Vec<Param>,
    /// `: SV_Target` after the parameter list.
    pub semantic: Option<Ident>,
    /// `None` for a prototype (`float f(float x);`).
    pub body: Option<Block>,
    /// The parameters of `template <…>` before it (or before its struct);
    /// empty for an ordinary function.
    pub template_params: Vec<TemplateParam>,
    /// `template <> float f<float>(…)`: an explicit specialization of
    /// function template `f`, its name, and the arguments it is for; the
    /// function's own name is then `f<…>`, as written.
    pub specializes: Option<(String, Vec<TemplateArg>)>,
    /// The whole declaration, from its attributes to its body or `;`.
    pub span: Span,
}

/// One parameter of `template <typename T, uint N>`.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateParam {
    /// The parameter's name.
    pub name: Ident,
    /// `None` for a type (`typename T`, `class T`); the value's type for a
    /// constant (`uint N`).
    pub value_type: Option<TypeExpr>,
    /// `= uint` or `= 4`: the argument where none is given or deduced.
    pub default: Option<TemplateArg>,
}

/// How a parameter passes its value: `in`, `out` or `inout`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamDirection {
    /// No modifier or `in`.
    In,
    /// `out`: the function's final value of the parameter is copied back to the
    /// argument.
    Out,
    /// `inout` (or `in out`): copied in at the call and back on return.
    InOut,
}

/// One function parameter, e.g. `in uint3 id : SV_DispatchThreadID`.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// `in`, `out` or `inout` (`In` when none is written).
    pub direction: ParamDirection,
    /// Other modifiers kept for diagnostics (`uniform`, `const`, `precise`,
    /// interpolation modifiers).
    pub modifiers: Vec<Ident>,
    /// The parameter's type, without its array dimensions.
    pub ty: TypeExpr,
    /// The parameter's name; empty for an unnamed parameter of a prototype.
    pub name: Ident,
    /// Array dimensions after the name: `p[4]` gives `[Some(4)]`.
    pub array_dims: Vec<Option<Expr>>,
    /// `: SV_DispatchThreadID`.
    pub semantic: Option<Ident>,
    /// The default argument after `=`, when given.
    pub default: Option<Expr>,
    /// The whole parameter, from its first modifier to its default.
    pub span: Span,
}

/// `struct S : Base { fields };`. Its member functions become items of their
/// own, after it.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDecl {
    /// The struct's name, which becomes a type name.
    pub name: Ident,
    /// The base struct of `struct S : Base { … }`.
    pub base: Option<TypeExpr>,
    /// The parameters of `template <…>` before it; empty for an ordinary
    /// struct.
    pub template_params: Vec<TemplateParam>,
    /// The data members in declaration order; `float a, b;` gives two.
    pub fields: Vec<FieldDecl>,
    /// The whole declaration, up to the closing `}`.
    pub span: Span,
}

/// One data member of a struct: `float3 pos : POSITION;`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDecl {
    /// Storage classes and interpolation modifiers written before the type
    /// (`precise`, `nointerpolation`, …).
    pub modifiers: Vec<Ident>,
    /// The member's type, without array dimensions; shared by every name of one
    /// line.
    pub ty: TypeExpr,
    /// The member's name, as used in `s.name`.
    pub name: Ident,
    /// Array dimensions after the name: `a[4][2]` gives `[Some(4), Some(2)]`.
    pub array_dims: Vec<Option<Expr>>,
    /// `: POSITION` after the name, when given.
    pub semantic: Option<Ident>,
    /// From the start of the member's line to the end of this member.
    pub span: Span,
}

/// `typedef float4 Color[2];`: a new name for a type.
#[derive(Clone, Debug, PartialEq)]
pub struct TypedefDecl {
    /// The type the new name stands for, without the array dimensions.
    pub ty: TypeExpr,
    /// The new type name.
    pub name: Ident,
    /// Array dimensions after the name: `typedef float F[4];` gives
    /// `[Some(4)]`.
    pub array_dims: Vec<Option<Expr>>,
    /// From `typedef` to the end of this name's dimensions.
    pub span: Span,
}

/// `static const uint N = 4, M = 8;`: storage classes, one type, several
/// declarators.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// `[[vk::binding(0, 1)]]` and the other `vk::` attributes before a
    /// top-level declaration; empty elsewhere.
    pub attributes: Vec<Attribute>,
    /// `static`, `const`, `groupshared`, `uniform`, `extern`, `precise`,
    /// `volatile`, `shared`, `globallycoherent` in source order.
    pub storage: Vec<Ident>,
    /// The type shared by every declarator.
    pub ty: TypeExpr,
    /// Each declared name with its dimensions, annotations and initializer.
    pub declarators: Vec<Declarator>,
    /// The whole declaration.
    pub span: Span,
}

/// One name of a declaration with what follows it:
/// `a[4] : register(u0) = init`.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    /// The declared variable's name.
    pub name: Ident,
    /// `a[4][2]` gives `[Some(4), Some(2)]`; `a[]` gives `[None]`.
    pub array_dims: Vec<Option<Expr>>,
    /// `: register(u0, space1)`, when given and valid.
    pub register: Option<RegisterBinding>,
    /// `: packoffset(c0.y)` is kept as written for cbuffer members.
    pub packoffset: Option<Ident>,
    /// A `: SEMANTIC` annotation, when given.
    pub semantic: Option<Ident>,
    /// The initializer after `=`, when given.
    pub init: Option<Initializer>,
    /// From the name to the end of its initializer or last annotation.
    pub span: Span,
}

/// `: register(u3, space1)`.
#[derive(Clone, Debug, PartialEq)]
pub struct RegisterBinding {
    /// `'t'`, `'u'`, `'b'`, `'s'` (lowercased).
    pub class: char,
    /// The register number: `3` in `u3`.
    pub index: u32,
    /// The register space: `1` in `space1`; 0 when none is given.
    pub space: u32,
    /// The whole `register(…)`.
    pub span: Span,
}

/// What follows `=` in a declarator.
#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    /// A single expression: `= x + 1`.
    Expr(Expr),
    /// `{ 1, 2, { 3, 4 } }`; nested lists flatten as in HLSL.
    List(Vec<Initializer>, Span),
}

/// `cbuffer Name : register(b0) { float4 a; uint b; };`, also `tbuffer`.
#[derive(Clone, Debug, PartialEq)]
pub struct CBufferDecl {
    /// `[[vk::binding(0, 1)]]` and the other `vk::` attributes before it.
    pub attributes: Vec<Attribute>,
    /// Which keyword introduced the block.
    pub kind: CBufferKind,
    /// The block's name: `Name` in `cbuffer Name`.
    pub name: Ident,
    /// `: register(b0)`, when given and valid.
    pub register: Option<RegisterBinding>,
    /// The declarations between the braces, in order.
    pub members: Vec<VarDecl>,
    /// From the keyword to the closing `}`.
    pub span: Span,
}

/// The keyword that introduces a [`CBufferDecl`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CBufferKind {
    /// `cbuffer`
    CBuffer,
    /// `tbuffer`
    TBuffer,
}

/// `{ statements }`: a function body or a compound statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The statements in source order.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement with the attributes written before it.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// `[unroll]`, `[loop]`, `[branch]`, `[flatten]`, `[fastopt]`, …
    pub attributes: Vec<Attribute>,
    /// What the statement does, with its parts.
    pub kind: StmtKind,
    /// The whole statement, attributes included.
    pub span: Span,
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `;`
    Empty,
    /// An expression statement: `x += 1;`.
    Expr(Expr),
    /// A local declaration: `float a = 1, b;`.
    Decl(VarDecl),
    /// A compound statement: `{ … }`.
    Block(Block),
    /// `if (cond) then_branch else else_branch`
    If {
        /// The condition in parentheses.
        cond: Expr,
        /// Runs when the condition holds.
        then_branch: Box<Stmt>,
        /// The statement after `else`, when there is one.
        else_branch: Option<Box<Stmt>>,
    },
    /// `for (init; cond; step) body`
    For {
        /// A declaration or an expression statement (or `Empty`).
        init: Box<Stmt>,
        /// The loop condition; `None` loops until a `break` or `return`.
        cond: Option<Expr>,
        /// Evaluated after each iteration, when given.
        step: Option<Expr>,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// `while (cond) body`
    While {
        /// Checked before each iteration.
        cond: Expr,
        /// The loop body.
        body: Box<Stmt>,
    },
    /// `do body while (cond);`
    DoWhile {
        /// The loop body, which runs at least once.
        body: Box<Stmt>,
        /// Checked after each iteration.
        cond: Expr,
    },
    /// `switch (selector) { cases }`
    Switch {
        /// The value the `case` labels are compared with.
        selector: Expr,
        /// The label groups in source order.
        cases: Vec<SwitchCase>,
    },
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `return;` or `return value;`
    Return(Option<Expr>),
    /// `discard;`
    Discard,
}

/// One or more labels followed by the statements up to the next label.
/// `case 1: case 2: a(); /* falls through */ default: b(); break;` gives two
/// cases: labels `[1, 2]` with `a();`, and `[default]` with `b(); break;`.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    /// The consecutive `case` and `default` labels, in order.
    pub labels: Vec<CaseLabel>,
    /// The statements after the labels, up to the next label.
    pub body: Vec<Stmt>,
    /// From the first label to the last statement.
    pub span: Span,
}

/// One label of a `switch`.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseLabel {
    /// `case value:`, with its constant expression.
    Case(Expr),
    /// `default:`, with the span of the keyword.
    Default(Span),
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What the expression is, with its operands.
    pub kind: ExprKind,
    /// The expression's source, without enclosing parentheses.
    pub span: Span,
}

/// The suffix of an integer literal, which picks its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntSuffix {
    /// No suffix: an int literal whose type adopts the other operand's or
    /// defaults to `int` (`uint64_t` past the `int64_t` range).
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

/// The suffix of a floating-point literal, which picks its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FloatSuffix {
    /// No suffix: a float literal whose type adopts the other operand's or
    /// defaults to `float`.
    None,
    /// `f` / `F`
    F,
    /// `h` / `H`
    H,
    /// `l` / `L` (double)
    L,
}

/// A prefix or postfix operator.
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
    /// `++x`
    PreInc,
    /// `--x`
    PreDec,
    /// `x++`
    PostInc,
    /// `x--`
    PostDec,
}

/// A binary operator; compound assignments (`+=`) name theirs with these too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`, componentwise (`mul` is the matrix product).
    Mul,
    /// `a / b`
    Div,
    /// `a % b`
    Rem,
    /// `a << b`
    Shl,
    /// `a >> b`
    Shr,
    /// `a & b`
    BitAnd,
    /// `a | b`
    BitOr,
    /// `a ^ b`
    BitXor,
    /// `a && b`: short-circuiting, on scalars only.
    LogicalAnd,
    /// `a || b`: short-circuiting, on scalars only.
    LogicalOr,
    /// `a == b`
    Eq,
    /// `a != b`
    Ne,
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
}

/// What a call expression calls: a name or a type.
#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    /// A function, intrinsic or struct-free name: `WaveActiveSum(x)`, `f(a)`.
    Name(Ident),
    /// A constructor: `float4(a.xy, 0, 1)`, `vector<float, 2>(1, 2)`.
    Type(TypeExpr),
    /// A function template with its arguments given: `f<float, 2>(x)`.
    Template {
        /// The template's name.
        name: Ident,
        /// The arguments between `<` and `>`.
        args: Vec<TemplateArg>,
    },
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// The literal's value; `0xFFFFFFFF` is `4294967295`. Values above
    /// `u64::MAX` are a lexer diagnostic.
    IntLit {
        /// The value without its suffix; a character literal (`'a'`) gives its
        /// code point.
        value: u64,
        /// The suffix, which picks the literal's type.
        suffix: IntSuffix,
    },
    /// A floating-point literal: `1.5`, `2e-3f`, `0.5h`.
    FloatLit {
        /// The value, read as a double.
        value: f64,
        /// The suffix, which picks the literal's type.
        suffix: FloatSuffix,
    },
    /// `true` or `false`.
    BoolLit(bool),
    /// `"compute"` in `[shader("compute")]`: the contents with escapes
    /// read; adjacent literals are joined.
    StringLit(String),
    /// A name used as a value: a variable, parameter or constant.
    Ident(Ident),
    /// A prefix or postfix operation: `-x`, `!b`, `i++`.
    Unary {
        /// Which operator, prefix or postfix.
        op: UnaryOp,
        /// The expression the operator applies to.
        operand: Box<Expr>,
    },
    /// `lhs op rhs`: arithmetic, bitwise, logical or a comparison.
    Binary {
        /// Which operator.
        op: BinaryOp,
        /// The left operand.
        lhs: Box<Expr>,
        /// The right operand.
        rhs: Box<Expr>,
    },
    /// `a = b` has `op: None`; `a += b` has `op: Some(BinaryOp::Add)`.
    Assign {
        /// The operator of a compound assignment; `None` for plain `=`.
        op: Option<BinaryOp>,
        /// The place assigned to.
        lhs: Box<Expr>,
        /// The value assigned, or combined with the place's by `op`.
        rhs: Box<Expr>,
    },
    /// `c ? a : b`
    Conditional {
        /// The condition before `?`.
        cond: Box<Expr>,
        /// The value when the condition holds.
        then_expr: Box<Expr>,
        /// The value when it does not.
        else_expr: Box<Expr>,
    },
    /// A function call or constructor: `f(a, b)`, `float4(v, 1)`.
    Call {
        /// The function or type called.
        callee: Callee,
        /// The arguments in order.
        args: Vec<Expr>,
    },
    /// `buf.Load<float2>(addr)`, `buf.InterlockedAdd(0, 1, old)`,
    /// `buf.GetDimensions(n, stride)`.
    MethodCall {
        /// The value before the `.`: a resource or struct.
        receiver: Box<Expr>,
        /// The method's name: `Load`, `InterlockedAdd`, …
        method: Ident,
        /// Types between `<` and `>` after the name: `float2` in
        /// `Load<float2>`.
        template_args: Vec<TypeExpr>,
        /// The arguments in order.
        args: Vec<Expr>,
    },
    /// `s.field`, `v.xyz`, `m._m00_m11`.
    Member {
        /// The struct, vector or matrix value before the `.`.
        base: Box<Expr>,
        /// The field name or swizzle after the `.`.
        member: Ident,
    },
    /// `base[index]`: an element of an array, vector, matrix or resource.
    Index {
        /// The indexed value.
        base: Box<Expr>,
        /// The expression between the brackets.
        index: Box<Expr>,
    },
    /// `(float3)x`, `(MyStruct)0`; array casts carry dimensions.
    Cast {
        /// The target type.
        ty: TypeExpr,
        /// Array dimensions of the target type: `(uint[4])x` gives `[Some(4)]`.
        array_dims: Vec<Option<Expr>>,
        /// The value converted.
        operand: Box<Expr>,
    },
    /// `sizeof(T)`: the bytes of a type.
    SizeOf(TypeExpr),
    /// `sizeof(e)`, `sizeof e`: the bytes of an expression's type (the
    /// expression is not evaluated).
    SizeOfExpr(Box<Expr>),
    /// `a, b`
    Comma {
        /// Evaluated first; its value is discarded.
        lhs: Box<Expr>,
        /// Evaluated second; its value is the expression's.
        rhs: Box<Expr>,
    },
}
