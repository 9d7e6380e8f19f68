//! The preprocessor: directives, macro expansion, conditionals, includes,
//! spans and diagnostics.

use expect_test::expect;
use lockstep_syntax::{Diagnostics, NoIncludes, PreprocessOptions, SourceMap, preprocess};

use crate::{MAIN, check, check_pp, check_pp_with, check_with, location, parse_files};

fn opts() -> PreprocessOptions {
    PreprocessOptions::default()
}

#[test]
fn object_like_macros() {
    check_pp(
        "#define N 4\n#define TWICE N + N\nint a[N]; int b = TWICE;\n#undef N\nN\n#define EMPTY\n[EMPTY]\n",
        expect![[r#"
            int a [ 4 ] ; int b = 4 + 4 ;
            N
            [ ]
        "#]],
    );
}

#[test]
fn redefinition() {
    check_pp(
        "#define A 1\n#define A 1\n#define A  1 \n#define A 2\n#define F(x) x\n#define F(y) y\nA\n",
        expect![[r#"
            2
            ---
            4:9: warning: 'A' macro redefined
              3:9: note: previous definition is here
            6:9: warning: 'F' macro redefined
              5:9: note: previous definition is here
        "#]],
    );
}

#[test]
fn function_like_macros() {
    check_pp(
        "#define ADD(a, b) ((a) + (b))\n#define ID(x) x\n#define NOARGS() 7\nADD(1, 2)\nADD(ID(3), ADD(4, (5, 6)))\nNOARGS()\nID()\nADD\n(x, y)\nID (z)\nADD;\n",
        expect![[r#"
            ( ( 1 ) + ( 2 ) )
            ( ( 3 ) + ( ( ( 4 ) + ( ( 5 , 6 ) ) ) ) )
            7
            ( (
            x
            ) + (
            y
            ) )
            z
            ADD ;
        "#]],
    );
}

#[test]
fn function_like_macro_errors() {
    check_pp(
        "#define F(a, b) a b\nF(1)\nF(1, 2, 3)\nF(1,\n",
        expect![[r#"
            ---
            2:1: error: too few arguments provided to function-like macro invocation
              1:9: note: macro defined here
            3:1: error: too many arguments provided to function-like macro invocation
              1:9: note: macro defined here
            4:1: error: unterminated function-like macro invocation
        "#]],
    );
}

#[test]
fn nested_and_rescanned_macros() {
    check_pp(
        "#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)\n#define OBJ FN\n#define FN(x) [x]\nOBJ(1)\n#define APPLY(m, v) m(v)\nAPPLY(FN, 2)\n",
        expect![[r#"
            2 * 9 * g
            [ 1 ]
            [ 2 ]
        "#]],
    );
}

#[test]
fn self_reference_is_not_expanded_again() {
    check_pp(
        "#define foo foo\n#define a b\n#define b a\n#define x (4 + y)\n#define y (2 * x)\n#define g(v) g(v + 1)\nfoo a b x y g(g(0))\n",
        expect![[r#"
            foo a b ( 4 + ( 2 * x ) ) ( 2 * ( 4 + y ) ) g ( g ( 0 + 1 ) + 1 )
        "#]],
    );
}

#[test]
fn stringizing() {
    check_pp(
        "#define STR(x) #x\n#define XSTR(x) STR(x)\n#define N 42\nSTR(a  +   b) STR( spaced ) STR(\"q\\\"\") STR('c') STR() STR(N) XSTR(N)\n",
        expect![[r#"
            "a + b" "spaced" "\"q\\\"\"" "'c'" "" "N" "42"
        "#]],
    );
}

#[test]
fn token_pasting() {
    check_pp(
        "#define CAT(a, b) a ## b\n#define XCAT(a, b) CAT(a, b)\n#define N 7\n#define PRE var_ ## suffix\nCAT(x, y) CAT(x, 1) CAT(1, 2u) CAT(, y) CAT(x, ) CAT(,) CAT(<, <=) XCAT(v, N) CAT(v, N) PRE\nCAT(+, -)\n#define THREE(a, b, c) a ## b ## c\nTHREE(a, b, c) THREE(, , c)\n",
        expect![[r#"
            xy x1 12u y x <<= v7 vN var_suffix
            + -
            abc c
            ---
            6:1: error: pasting formed '+-', an invalid preprocessing token
              1:9: note: expanded from macro 'CAT'
        "#]],
    );
}

#[test]
fn variadic_macros() {
    check_pp(
        "#define V(fmt, ...) f(fmt, __VA_ARGS__)\n#define G(fmt, ...) f(fmt, ## __VA_ARGS__)\n#define ALL(...) [__VA_ARGS__]\nV(a, 1, 2) V(a) G(a) G(a, 1, 2) ALL() ALL(1, (2, 3), 4)\n",
        expect![[r#"
            f ( a , 1 , 2 ) f ( a , ) f ( a ) f ( a , 1 , 2 ) [ ] [ 1 , ( 2 , 3 ) , 4 ]
        "#]],
    );
}

#[test]
fn define_errors() {
    check_pp(
        "#define\n#define 1 x\n#define defined\n#define F(a, a) a\n#define G(a b) a\n#define H(a\n#define S(a) #b\n#define P ## x\n#define Q x ##\n#define R(1) x\n#define T(...) __VA_ARGS__\nT(1, 2)\n",
        expect![[r#"
            1 , 2
            ---
            1:2: error: macro name missing
            2:9: error: macro name must be an identifier
            3:9: error: 'defined' cannot be used as a macro name
            4:14: error: duplicate macro parameter name 'a'
            5:13: error: expected comma in macro parameter list
            6:10: error: missing ')' in macro parameter list
            7:14: error: '#' is not followed by a macro parameter
            8:11: error: '##' cannot appear at either end of a macro expansion
            9:13: error: '##' cannot appear at either end of a macro expansion
            10:11: error: invalid token in macro parameter list
        "#]],
    );
}

#[test]
fn conditionals() {
    check_pp(
        "#define A\n#ifdef A\nyes1\n#else\nno1\n#endif\n#ifndef A\nno2\n#elif 1\nyes2\n#else\nno3\n#endif\n#if 0\nno4\n#elif 0\nno5\n#elif 2\nyes3\n#elif 1\nno6\n#else\nno7\n#endif\n#if 1\n#if 0\nno8\n#else\nyes4\n#endif\n#endif\n#if 0\n#if 1\nno9\n#else\nno10\n#endif\n#elif 1\nyes5\n#endif\n",
        expect![[r#"
            yes1
            yes2
            yes3
            yes4
            yes5
        "#]],
    );
}

#[test]
fn if_expressions() {
    check_pp(
        r#"#define TWO 2
#define F(x) (x * 2)
#if 1 + 2 * 3 == 7
a
#endif
#if (1 << 4) == 16 && (256 >> 4) == 16 && 10 / 3 == 3 && 10 % 3 == 1
b
#endif
#if -1 < 0 && !(-1 < 0u) && ~0 == -1 && (0 ? 1 : 2) == 2 && (1 ? 5 : 0) == 5
c
#endif
#if defined TWO && defined(TWO) && !defined(THREE) && !defined THREE
d
#endif
#if UNKNOWN == 0 && F(TWO) == 4 && TWO - 3 == -1 && (3 ^ 1) == 2 && (6 & 3) == 2 && (4 | 1) == 5
e
#endif
#if 0 && (1 / 0) || 1 || 1 / 0
f
#endif
#if 0x10 == 16 && 010 == 8 && 'A' == 65 && true && !false && 1 != 2 && 2 >= 2 && 2 <= 3 && 3 > 2
g
#endif
#if 18446744073709551615u == -1 && 9223372036854775807 + 1 < 0
h
#endif
#if __LINE__ == 27
i
#endif
"#,
        expect![[r#"
            a
            b
            c
            d
            e
            f
            g
            h
            i
        "#]],
    );
}

#[test]
fn if_expression_errors() {
    check_pp(
        "#if\n#endif\n#if 1 / 0\n#endif\n#if 1.5\n#endif\n#if (1\n#endif\n#if 1 2\n#endif\n#if \"s\"\n#endif\n#if 1 ? 2\n#endif\n#if defined\n#endif\n#if defined(X\n#endif\n#if 1 +\n#endif\n#if 1 )\n#endif\nend\n",
        expect![[r#"
            end
            ---
            1:2: error: expected value in expression
            3:7: error: division by zero in preprocessor expression
            5:5: error: floating point literal in preprocessor expression
            7:6: error: expected ')' in preprocessor expression
            9:7: error: token is not a valid binary operator in a preprocessor subexpression
            11:5: error: invalid token at start of a preprocessor expression
            13:9: error: expected ':' in preprocessor expression
            15:5: error: macro name must be an identifier
            17:13: error: missing ')' after 'defined'
            19:7: error: expected value in expression
            21:7: error: expected end of line in preprocessor expression
        "#]],
    );
}

#[test]
fn conditional_structure_errors() {
    check_pp(
        "#else\n#endif\n#elif 1\n#if 1\n#else\n#else\n#elif 1\n#endif junk\n#ifdef\n#endif\n#ifdef 3\n#endif\n#ifdef A B\n#endif\n#if 1\nunterminated\n",
        expect![[r#"
            unterminated
            ---
            1:2: error: #else without #if
            2:2: error: #endif without #if
            3:2: error: #elif without #if
            6:2: error: #else after #else
            7:2: error: #elif after #else
            8:8: warning: extra tokens at end of #endif directive
            9:2: error: macro name missing
            11:8: error: macro name must be an identifier
            13:10: warning: extra tokens at end of #ifdef directive
            15:1: error: unterminated conditional directive
        "#]],
    );
}

#[test]
fn skipped_blocks_are_not_checked() {
    check_pp(
        "#if 0\ndon't @ \"unterminated\n#bogus directive\n#error not reported\n#if garbage (\n#endif\n#elif 1 / 0\n#endif\nafter\n#if 0\n/* unterminated comment is still an error\n#endif\n",
        expect![[r#"
            after
            ---
            7:9: error: division by zero in preprocessor expression
            11:1: error: unterminated /* comment
            10:1: error: unterminated conditional directive
        "#]],
    );
}

#[test]
fn invalid_directive_and_null_directive() {
    check_pp(
        "#\n#bogus\n# 12 junk\n#123abc\nok\n",
        expect![[r#"
        ok
        ---
        2:2: error: invalid preprocessing directive
        3:6: error: invalid filename for line marker directive
        4:2: error: invalid suffix 'abc' on integer constant
    "#]],
    );
}

#[test]
fn error_and_warning_directives() {
    check_pp(
        "#error something went wrong: 'x' \"y\"\n#warning careful \\\n  here\n#error\n#if 0\n#error skipped\n#endif\n",
        expect![[r#"
            ---
            1:1: error: something went wrong: 'x' "y"
            2:1: warning: careful   here
            4:1: error: #error
        "#]],
    );
}

#[test]
fn pragmas() {
    check_pp(
        "#pragma pack_matrix(column_major)\n#pragma\n#pragma once\n#pragma pack_matrix(row_major)\n#pragma pack_matrix(sideways)\nafter\n",
        expect![[r#"
            after
            ---
            2:1: note: pragma ignored
            5:1: error: #pragma pack_matrix takes row_major or column_major
        "#]],
    );
}

#[test]
fn line_directive_changes_reported_locations() {
    check_pp(
        "a __LINE__\n#line 100\nb __LINE__ __FILE__\n#line 200 \"other.hlsl\"\nc __LINE__ __FILE__\n#error here\n#line 7\n#warning still other\n# 50 \"marker.hlsl\" 1\n#error in marker\n#line x\n#line 5 junk\n",
        expect![[r#"
            a 1
            b 100 "main.hlsl"
            c 200 "other.hlsl"
            ---
            other.hlsl:201:1: error: here
            other.hlsl:7:1: warning: still other
            marker.hlsl:50:1: error: in marker
            marker.hlsl:51:7: error: #line directive requires a positive integer argument
            marker.hlsl:52:9: error: invalid filename for #line directive
        "#]],
    );
}

#[test]
fn line_directive_does_not_move_spans() {
    let (_, map, diags) = parse_files(&[(MAIN, "#line 10 \"gen.hlsl\"\nint x = ;\n")], &opts());
    let d = &diags.items[0];
    // The span is still a byte range of the real file…
    assert_eq!(d.span.file.0, 0);
    assert_eq!(
        &map.file(d.span.file).text[d.span.start as usize..d.span.end as usize],
        ";"
    );
    assert_eq!(map.file(d.span.file).line_col(d.span.start), (2, 9));
    // …and only the reported location changes.
    assert_eq!(location(&map, d.span), "gen.hlsl:10:9");
    assert_eq!(map.location(d.span), "gen.hlsl:10:9");
}

#[test]
fn predefined_macros() {
    check_pp(
        "__HLSL_VERSION __SHADER_TARGET_MAJOR __SHADER_TARGET_MINOR __SHADER_TARGET_STAGE __SHADER_STAGE_COMPUTE __SHADER_STAGE_PIXEL __LINE__ __FILE__\n#if __SHADER_TARGET_STAGE == __SHADER_STAGE_COMPUTE && __HLSL_VERSION >= 2021\ncompute\n#endif\n",
        expect![[r#"
            2021 6 10 5 5 0 1 "main.hlsl"
            compute
        "#]],
    );
    let sm66 = PreprocessOptions {
        shader_model: (6, 6),
        ..opts()
    };
    check_pp_with(
        &[(
            MAIN,
            "#if __SHADER_TARGET_MAJOR == 6 && __SHADER_TARGET_MINOR >= 6\nwave_size_ok\n#endif\n",
        )],
        &sm66,
        expect![[r#"
            wave_size_ok
        "#]],
    );
    let pixel = PreprocessOptions {
        stage: "PIXEL",
        ..opts()
    };
    check_pp_with(
        &[(
            MAIN,
            "#if __SHADER_TARGET_STAGE == __SHADER_STAGE_PIXEL\npixel\n#endif\n",
        )],
        &pixel,
        expect![[r#"
            pixel
        "#]],
    );
}

#[test]
fn command_line_defines() {
    let opts = PreprocessOptions {
        defines: vec![
            PreprocessOptions::parse_define("FLAG"),
            PreprocessOptions::parse_define("SIZE=64"),
            PreprocessOptions::parse_define("EMPTY="),
            PreprocessOptions::parse_define("SQ(x)=((x)*(x))"),
            ("__HLSL_VERSION".to_string(), "2018".to_string()),
        ],
        ..opts()
    };
    check_pp_with(
        &[(MAIN, "FLAG SIZE [EMPTY] SQ(3) __HLSL_VERSION\n")],
        &opts,
        expect![[r#"
        1 64 [ ] ( ( 3 ) * ( 3 ) ) 2018
        ---
        <command line>:5:9: warning: '__HLSL_VERSION' macro redefined
          <built-in>:1:9: note: previous definition is here
    "#]],
    );
}

#[test]
fn includes_relative_and_include_dirs() {
    let opts = PreprocessOptions {
        include_dirs: vec!["inc".to_string(), "more/".to_string()],
        ..opts()
    };
    check_pp_with(
        &[
            (
                MAIN,
                "#include \"sub/a.hlsl\"\n#include <lib.hlsl>\n#include \"both.hlsl\"\n#include \"deep.hlsl\"\nmain_end\n",
            ),
            (
                "sub/a.hlsl",
                "in_a\n#include \"b.hlsl\"\n#include \"../top.hlsl\"\n",
            ),
            ("sub/b.hlsl", "in_sub_b\n"),
            ("top.hlsl", "in_top\n"),
            ("inc/lib.hlsl", "in_inc_lib\n"),
            ("inc/both.hlsl", "in_inc_both\n"),
            ("more/both.hlsl", "in_more_both\n"),
            ("both.hlsl", "in_root_both\n"),
            ("more/deep.hlsl", "in_more_deep\n#include \"lib.hlsl\"\n"),
        ],
        &opts,
        expect![[r#"
            in_a
            in_sub_b
            in_top
            in_inc_lib
            in_root_both
            in_more_deep
            in_inc_lib
            main_end
        "#]],
    );
}

#[test]
fn missing_include_and_bad_include_syntax() {
    check_pp(
        "#include \"nope.hlsl\"\n#include <nope2.hlsl>\n#include\n#include nothing\n#include \"\"\n#include <unclosed\n#include 42\n#define HDR \"nope3.hlsl\"\n#include HDR\nstill_here\n",
        expect![[r#"
            still_here
            ---
            1:10: error: 'nope.hlsl' file not found
            2:10: error: 'nope2.hlsl' file not found
            3:2: error: expected "FILENAME" or <FILENAME>
            4:10: error: expected "FILENAME" or <FILENAME>
            5:10: error: empty filename
            6:10: error: expected '>'
            7:10: error: expected "FILENAME" or <FILENAME>
            9:10: error: 'nope3.hlsl' file not found
        "#]],
    );
}

#[test]
fn include_chain_is_recorded() {
    let files = [
        (MAIN, "int first;\n#include \"a.hlsl\"\n"),
        ("a.hlsl", "\n\n#include \"b.hlsl\"\n"),
        ("b.hlsl", "int x = ;\n#error from b\n"),
    ];
    check_with(
        &files,
        &opts(),
        expect![[r#"
        (var int first)
        ---
        b.hlsl:2:1: error: from b
          in file included from a.hlsl:3:1
          in file included from 2:1
        b.hlsl:1:9: error: expected expression
          in file included from a.hlsl:3:1
          in file included from 2:1
    "#]],
    );
    let (_, map, _) = parse_files(&files, &opts());
    let names: Vec<(&str, Option<String>)> = map
        .files()
        .iter()
        .map(|f| (f.name.as_str(), f.included_from.map(|s| location(&map, s))))
        .collect();
    expect![[r#"
        [
            (
                "main.hlsl",
                None,
            ),
            (
                "<built-in>",
                None,
            ),
            (
                "a.hlsl",
                Some(
                    "2:1",
                ),
            ),
            (
                "b.hlsl",
                Some(
                    "a.hlsl:3:1",
                ),
            ),
        ]
    "#]]
    .assert_debug_eq(&names);
}

#[test]
fn pragma_once_and_include_guards() {
    check_pp_with(
        &[
            (
                MAIN,
                "#include \"once.hlsl\"\n#include \"once.hlsl\"\n#include \"./once.hlsl\"\n#include \"guard.hlsl\"\n#include \"guard.hlsl\"\nend\n",
            ),
            ("once.hlsl", "#pragma once\nonce_body\n"),
            (
                "guard.hlsl",
                "#ifndef GUARD\n#define GUARD\nguard_body\n#endif\n",
            ),
        ],
        &opts(),
        expect![[r#"
            once_body
            guard_body
            end
        "#]],
    );
}

#[test]
fn include_depth_limit() {
    // A chain of 250 distinct files, each including the next.
    let names: Vec<String> = (0..250).map(|i| format!("f{i}.hlsl")).collect();
    let texts: Vec<String> = (0..250)
        .map(|i| format!("x\n#include \"f{}.hlsl\"\n", i + 1))
        .collect();
    let mut files: Vec<(&str, &str)> = vec![(MAIN, "#include \"f0.hlsl\"\nafter\n")];
    files.extend(
        names
            .iter()
            .map(String::as_str)
            .zip(texts.iter().map(String::as_str)),
    );
    let out = crate::preprocess_files(&files, &opts());
    let lines: Vec<&str> = out.lines().collect();
    // 200 nested files, then a fatal error: nothing after it is read.
    assert_eq!(lines.iter().filter(|l| **l == "x").count(), 200);
    let first_error = lines.iter().position(|l| l.contains("error")).unwrap_or(0);
    expect![[r#"
        f199.hlsl:2:10: error: #include nested too deeply
          in file included from f198.hlsl:2:1
          in file included from f197.hlsl:2:1"#]]
    .assert_eq(&lines[first_error..first_error + 3].join("\n"));
    assert!(!out.contains("after"));
}

#[test]
fn include_cycles_are_reported_once_with_their_files() {
    let files = [
        (MAIN, "#include \"a.hlsl\"\nafter\n"),
        ("a.hlsl", "a\n#include \"b.hlsl\"\n"),
        ("b.hlsl", "b\n#include \"a.hlsl\"\n"),
    ];
    let out = crate::preprocess_files(&files, &opts());
    let errors: Vec<&str> = out.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(
        errors,
        ["b.hlsl:2:10: error: #include cycle: a.hlsl includes b.hlsl includes a.hlsl"]
    );
    // A guarded header included inside itself is no cycle.
    let guarded = [
        (MAIN, "#include \"g.hlsl\"\nafter\n"),
        (
            "g.hlsl",
            "#ifndef G\n#define G\ng\n#include \"g.hlsl\"\n#endif\n",
        ),
    ];
    let out = crate::preprocess_files(&guarded, &opts());
    assert!(!out.contains("error"), "{out}");
    assert!(out.contains("after"), "{out}");
}

#[test]
fn conditionals_do_not_cross_files() {
    check_pp_with(
        &[
            (MAIN, "#include \"open.hlsl\"\n#endif\nend\n"),
            ("open.hlsl", "#if 1\nopen\n"),
        ],
        &opts(),
        expect![[r#"
            open
            end
            ---
            open.hlsl:1:1: error: unterminated conditional directive
              in file included from 1:1
            2:2: error: #endif without #if
        "#]],
    );
}

#[test]
fn expansion_spans_point_at_the_use_site() {
    check(
        "#define BAD x = ;\n#define CALL(v) f(v, BAD)\nvoid main() {\n    BAD\n    CALL(1);\n    int y = CALL(;\n}\n",
        expect![[r#"
            (fn void main ())
            ---
            6:13: error: unterminated function-like macro invocation
            4:5: error: expected expression
              1:9: note: expanded from macro 'BAD'
            5:5: error: expected expression
              2:9: note: expanded from macro 'CALL'
            5:5: error: expected expression
              2:9: note: expanded from macro 'CALL'
            8:1: error: expected expression
            8:1: error: expected '}'
              3:13: note: to match this '{'
        "#]],
    );
}

#[test]
fn macro_in_file_included_reports_chain() {
    check_with(
        &[
            (MAIN, "#include \"defs.hlsl\"\nvoid main() { USE_IT; }\n"),
            ("defs.hlsl", "#define USE_IT int = 3\n"),
        ],
        &opts(),
        expect![[r#"
            (fn void main ())
            ---
            2:15: error: expected identifier
              defs.hlsl:1:9: note: expanded from macro 'USE_IT'
        "#]],
    );
}

#[test]
fn lexer_errors_are_reported_once_in_active_code() {
    check_pp(
        "a @ b\n#define M @ c\nM M\n\"open\n#if 0\n@\n#endif\n",
        expect![[r#"
            a b
            c c
            "open
            ---
            1:3: error: unexpected character '@'
            2:11: error: unexpected character '@'
            4:1: error: missing terminating '"' character
        "#]],
    );
}

#[test]
fn expansion_limits() {
    // Each level doubles the size: 2^30 tokens would be far too many.
    let mut text = String::from("#define L0 x x\n");
    for i in 1..=30 {
        text.push_str(&format!("#define L{i} L{} L{}\n", i - 1, i - 1));
    }
    text.push_str("L30\n");
    let mut map = SourceMap::new();
    let main = map.add(MAIN, text, None);
    let mut diags = Diagnostics::default();
    let tokens = preprocess(&mut map, main, &opts(), &NoIncludes, &mut diags);
    assert!(tokens.len() <= 1_000_001);
    let messages: Vec<&str> = diags.items.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(messages, ["macro expansion is too large"]);

    // Arguments nested deeper than the limit.
    let deep = format!("#define F(x) x\n{}1{}\n", "F(".repeat(300), ")".repeat(300));
    let out = crate::preprocess_files(&[(MAIN, &deep)], &opts());
    assert!(
        out.contains("error: macro expansion nested too deeply"),
        "{out}"
    );
}

/// Each output token as `text@line:col`, with `<M` when it came out of
/// macro `M`'s body.
fn token_spans(input: &str) -> String {
    let mut map = SourceMap::new();
    let main = map.add(MAIN, input, None);
    let mut diags = Diagnostics::default();
    let tokens = preprocess(&mut map, main, &opts(), &NoIncludes, &mut diags);
    let mut out = String::new();
    for tok in &tokens {
        let (line, col) = map.file(tok.span.file).line_col(tok.span.start);
        let width = tok.span.end - tok.span.start;
        out.push_str(&format!("{}@{line}:{col}+{width}", tok.text));
        if let Some(origin) = &tok.expansion {
            out.push_str(&format!("<{}", origin.name));
        }
        out.push('\n');
    }
    out
}

#[test]
fn token_spans_of_expansions() {
    // Body tokens take the whole invocation's span and name the outermost
    // macro; argument tokens keep their own spans.
    expect![[r#"
        (@4:1+8<OUTER
        a@4:7+1
        +@4:1+8<OUTER
        1@4:1+8<OUTER
        )@4:1+8<OUTER
        *@4:1+8<OUTER
        2@4:1+8<OUTER
        b@5:1+1
        @6:1+0
    "#]]
    .assert_eq(&token_spans(
        "#define INNER(v) (v + 1)\n#define OUTER(x) INNER(x) * K\n#define K 2\nOUTER(a)\nb\n",
    ));
}

/// `__COUNTER__` counts its uses; `_Pragma("…")` leaves nothing; a number
/// made by pasting is checked as it is emitted, not in the `#define`.
#[test]
fn counter_pragma_operator_and_pasted_numbers() {
    check_pp(
        "#define HEX(x) 0x##x\n#define BAD 0x\n#define QUIET _Pragma(\"warning(disable : 3557)\") q\n__COUNTER__ __COUNTER__\nHEX(FF) HEX(1f)\nQUIET\nBAD 12ab\n__COUNTER__\n",
        expect![[r#"
            0 1
            0xFF 0x1f
            q
            0x 12ab
            2
            ---
            7:1: error: hexadecimal constant has no digits
            7:5: error: invalid suffix 'ab' on integer constant
        "#]],
    );
}
