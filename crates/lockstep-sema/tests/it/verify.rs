//! The IR verifier flags malformed modules (the checker's own output is
//! verified by every other test through `compile`).

use expect_test::expect;
use lockstep_ir::{
    Block, Expr, ExprKind, Function, LocalId, Module, Place, PlaceRoot, Scalar, ScalarType, Span,
    Stmt, Type, Variable,
};

#[test]
fn malformed_module() {
    let mut m = Module::default();
    let int = m.types.scalar(ScalarType::Int32);
    let float = m.types.scalar(ScalarType::Float32);
    let float2 = m.types.intern(Type::Vector(ScalarType::Float32, 2));
    let one = Expr {
        kind: ExprKind::Const(vec![Scalar {
            ty: ScalarType::Int32,
            bits: 1,
        }]),
        ty: int,
        span: Span::default(),
    };
    let assign = Expr {
        kind: ExprKind::Assign {
            place: Place {
                root: PlaceRoot::Local(LocalId(0)),
                path: Vec::new(),
                ty: float,
            },
            value: Box::new(one.clone()),
            yield_old: false,
            init: false,
        },
        ty: float,
        span: Span::default(),
    };
    let bad_local = Expr {
        kind: ExprKind::Load(Place {
            root: PlaceRoot::Local(LocalId(7)),
            path: Vec::new(),
            ty: float2,
        }),
        ty: float2,
        span: Span::default(),
    };
    m.functions.push(Function {
        name: "f".to_string(),
        params: Vec::new(),
        locals: vec![Variable {
            name: "x".to_string(),
            ty: float,
            span: Span::default(),
        }],
        result: None,
        body: Block::new(vec![
            Stmt::Expr(assign),
            Stmt::Break,
            Stmt::If {
                cond: one,
                accept: Block::new(vec![Stmt::Continue]),
                reject: Block::default(),
            },
            Stmt::Expr(bad_local),
            Stmt::Return(Some(Expr {
                kind: ExprKind::Const(vec![]),
                ty: float,
                span: Span::default(),
            })),
        ]),
        span: Span::default(),
        library: false,
    });
    let problems = lockstep_ir::verify::verify(&m).join("\n");
    expect![[r#"
        fn f: assigned value: 'int' does not match 'float'
        fn f: 'break' outside a loop or switch
        fn f: if condition has type 'int', expected 'bool'
        fn f: 'continue' outside a loop
        fn f: local 7 out of range
        fn f: place root out of range
        fn f: return value does not match the function's result"#]]
    .assert_eq(&problems);
}
