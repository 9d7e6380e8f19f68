//! The lexer: token kinds, spellings, spans and error flags.

use expect_test::{Expect, expect};
use lockstep_syntax::lexer::{NumberValue, lex, parse_number};
use lockstep_syntax::{FileId, SourceMap};

/// One line per token: kind, spelling, `line:col`, flags, error.
fn check_lex(input: &str, expect: Expect) {
    let mut map = SourceMap::new();
    let file = map.add("main.hlsl", input, None);
    let mut out = String::new();
    for tok in lex(FileId(0), input) {
        let (line, col) = map.file(file).line_col(tok.span.start);
        let mut flags = String::new();
        if tok.line_start {
            flags.push_str(" bol");
        }
        if tok.leading_space {
            flags.push_str(" space");
        }
        out.push_str(&format!(
            "{:?} {:?} {line}:{col}+{}{flags}",
            tok.kind,
            tok.text,
            tok.span.end - tok.span.start
        ));
        if let Some(error) = &tok.error {
            out.push_str(&format!(" error: {error}"));
        }
        out.push('\n');
    }
    expect.assert_eq(&out);
}

/// The value the lexer's number parser gives each spelling.
fn check_numbers(spellings: &[&str], expect: Expect) {
    let mut out = String::new();
    for s in spellings {
        let value = match parse_number(s) {
            Ok(NumberValue::Int { value, suffix }) => format!("int {value} {suffix:?}"),
            Ok(NumberValue::Float { value, suffix }) => format!("float {value:?} {suffix:?}"),
            Err(e) => format!("error: {e}"),
        };
        out.push_str(&format!("{s} => {value}\n"));
    }
    expect.assert_eq(&out);
}

#[test]
fn integer_literals() {
    check_numbers(
        &[
            "0",
            "42",
            "0x1F",
            "0XffFF",
            "017",
            "0u",
            "1u",
            "1U",
            "1l",
            "1L",
            "1ul",
            "1uL",
            "1lu",
            "1LU",
            "1ll",
            "1LL",
            "1ull",
            "1ULL",
            "1llu",
            "0xFFu",
            "0xFFull",
            "4294967295",
            "18446744073709551615",
        ],
        expect![[r###"
            0 => int 0 None
            42 => int 42 None
            0x1F => int 31 None
            0XffFF => int 65535 None
            017 => int 15 None
            0u => int 0 U
            1u => int 1 U
            1U => int 1 U
            1l => int 1 L
            1L => int 1 L
            1ul => int 1 UL
            1uL => int 1 UL
            1lu => int 1 UL
            1LU => int 1 UL
            1ll => int 1 LL
            1LL => int 1 LL
            1ull => int 1 ULL
            1ULL => int 1 ULL
            1llu => int 1 ULL
            0xFFu => int 255 U
            0xFFull => int 255 ULL
            4294967295 => int 4294967295 None
            18446744073709551615 => int 18446744073709551615 None
        "###]],
    );
}

#[test]
fn float_literals() {
    check_numbers(
        &[
            "1.0", "1.", ".5", "1e-3", "1E3", "1.5f", "1.5F", "1.5h", "1.5H", "1.5l", "1.5L",
            "2.0e+3F", "1.e2", ".5e-1h", "3e10",
        ],
        expect![[r###"
            1.0 => float 1.0 None
            1. => float 1.0 None
            .5 => float 0.5 None
            1e-3 => float 0.001 None
            1E3 => float 1000.0 None
            1.5f => float 1.5 F
            1.5F => float 1.5 F
            1.5h => float 1.5 H
            1.5H => float 1.5 H
            1.5l => float 1.5 L
            1.5L => float 1.5 L
            2.0e+3F => float 2000.0 F
            1.e2 => float 100.0 None
            .5e-1h => float 0.05 H
            3e10 => float 30000000000.0 None
        "###]],
    );
}

#[test]
fn malformed_numbers() {
    check_numbers(
        &[
            "09",
            "1z",
            "1uu",
            "0x",
            "0xg",
            "18446744073709551616",
            "1.5q",
            "1.0ff",
            "1e",
            "1.0.xx",
        ],
        expect![[r###"
            09 => error: invalid digit '9' in octal constant
            1z => error: invalid suffix 'z' on integer constant
            1uu => error: invalid suffix 'uu' on integer constant
            0x => error: hexadecimal constant has no digits
            0xg => error: hexadecimal constant has no digits
            18446744073709551616 => error: integer literal is too large to be represented in any integer type
            1.5q => error: invalid suffix 'q' on floating constant
            1.0ff => error: invalid suffix 'ff' on floating constant
            1e => error: invalid suffix 'e' on integer constant
            1.0.xx => error: invalid suffix '.xx' on floating constant
        "###]],
    );
}

#[test]
fn number_tokens() {
    check_lex(
        "1 1.5f .5 1e-3 2.0e+3F 0x1e+1 0xFFu a.5 1.xxx 2.0.rg 1.f 3.e1",
        expect![[r#"
            IntLit "1" 1:1+1 bol
            FloatLit "1.5f" 1:3+4 space
            FloatLit ".5" 1:8+2 space
            FloatLit "1e-3" 1:11+4 space
            FloatLit "2.0e+3F" 1:16+7 space
            IntLit "0x1e" 1:24+4 space
            Punct "+" 1:28+1
            IntLit "1" 1:29+1
            IntLit "0xFFu" 1:31+5 space
            Ident "a" 1:37+1 space
            FloatLit ".5" 1:38+2
            IntLit "1" 1:41+1 space
            Punct "." 1:42+1
            Ident "xxx" 1:43+3
            FloatLit "2.0" 1:47+3 space
            Punct "." 1:50+1
            Ident "rg" 1:51+2
            FloatLit "1.f" 1:54+3 space
            FloatLit "3.e1" 1:58+4 space
        "#]],
    );
}

#[test]
fn punctuators() {
    check_lex(
        "<<= >>= ... :: ## # -> ++ -- << >> <= >= == != && || += -= *= /= %= &= |= ^= ( ) { } [ ] ; , . ? : ~ ! + - * / % & | ^ = < >",
        expect![[r###"
            Punct "<<=" 1:1+3 bol
            Punct ">>=" 1:5+3 space
            Punct "..." 1:9+3 space
            Punct "::" 1:13+2 space
            Punct "##" 1:16+2 space
            Punct "#" 1:19+1 space
            Punct "->" 1:21+2 space
            Punct "++" 1:24+2 space
            Punct "--" 1:27+2 space
            Punct "<<" 1:30+2 space
            Punct ">>" 1:33+2 space
            Punct "<=" 1:36+2 space
            Punct ">=" 1:39+2 space
            Punct "==" 1:42+2 space
            Punct "!=" 1:45+2 space
            Punct "&&" 1:48+2 space
            Punct "||" 1:51+2 space
            Punct "+=" 1:54+2 space
            Punct "-=" 1:57+2 space
            Punct "*=" 1:60+2 space
            Punct "/=" 1:63+2 space
            Punct "%=" 1:66+2 space
            Punct "&=" 1:69+2 space
            Punct "|=" 1:72+2 space
            Punct "^=" 1:75+2 space
            Punct "(" 1:78+1 space
            Punct ")" 1:80+1 space
            Punct "{" 1:82+1 space
            Punct "}" 1:84+1 space
            Punct "[" 1:86+1 space
            Punct "]" 1:88+1 space
            Punct ";" 1:90+1 space
            Punct "," 1:92+1 space
            Punct "." 1:94+1 space
            Punct "?" 1:96+1 space
            Punct ":" 1:98+1 space
            Punct "~" 1:100+1 space
            Punct "!" 1:102+1 space
            Punct "+" 1:104+1 space
            Punct "-" 1:106+1 space
            Punct "*" 1:108+1 space
            Punct "/" 1:110+1 space
            Punct "%" 1:112+1 space
            Punct "&" 1:114+1 space
            Punct "|" 1:116+1 space
            Punct "^" 1:118+1 space
            Punct "=" 1:120+1 space
            Punct "<" 1:122+1 space
            Punct ">" 1:124+1 space
        "###]],
    );
}

#[test]
fn comments_strings_and_line_continuations() {
    check_lex(
        "a // line comment\n  b /* block\n comment */ c\nab\\\ncd \"s\\\"t\" 'x' #define\\\n X",
        expect![[r###"
            Ident "a" 1:1+1 bol
            Ident "b" 2:3+1 bol space
            Ident "c" 3:13+1 space
            Ident "abcd" 4:1+6 bol
            StringLit "\"s\\\"t\"" 5:4+6 space
            CharLit "'x'" 5:11+3 space
            Punct "#" 5:15+1 space
            Ident "define" 5:16+6
            Ident "X" 6:2+1 space
        "###]],
    );
}

#[test]
fn lexer_errors_are_flags() {
    check_lex(
        "a @ é \"open\nb 'c\n\\ d /* never closed",
        expect![[r###"
            Ident "a" 1:1+1 bol
            Unknown "@" 1:3+1 space error: unexpected character '@'
            Unknown "é" 1:5+2 space error: unexpected character <U+00E9>
            StringLit "\"open" 1:7+5 space error: missing terminating '"' character
            Ident "b" 2:1+1 bol
            CharLit "'c" 2:3+2 space error: missing terminating ' character
            Unknown "\\" 3:1+1 bol error: unexpected character '\'
            Ident "d" 3:3+1 space
            Unknown "/*" 3:5+2 space error: unterminated /* comment
        "###]],
    );
}

#[test]
fn crlf_line_endings() {
    check_lex(
        "a\r\nb \\\r\nc",
        expect![[r###"
            Ident "a" 1:1+1 bol
            Ident "b" 2:1+1 bol
            Ident "c" 3:1+1 space
        "###]],
    );
}
