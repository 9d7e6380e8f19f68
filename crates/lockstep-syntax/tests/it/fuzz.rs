//! No input may panic: prefixes of a real shader, random bytes, random
//! token soup and mutations all go through the whole pipeline, and every
//! diagnostic must point inside its file.

use std::collections::HashMap;

use lockstep_syntax::ast_print::print_unit;
use lockstep_syntax::lexer::lex;
use lockstep_syntax::{Diagnostics, PreprocessOptions, SourceMap, parse, parse_file};

const REALISTIC: &str = include_str!("../data/realistic.hlsl");
const FEATURES: &str = include_str!("../data/features.hlsl");

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Runs the pipeline over `text` as `main.hlsl` (which may include itself
/// and `inc.hlsl`) and checks every diagnostic span.
fn run(text: &str) {
    let mut map = SourceMap::new();
    let main = map.add("main.hlsl", text, None);
    let loader: HashMap<String, String> = [
        ("main.hlsl".to_string(), text.to_string()),
        (
            "inc.hlsl".to_string(),
            "#pragma once\n#define INC(x) x\nfloat inc;\n".to_string(),
        ),
    ]
    .into_iter()
    .collect();
    let opts = PreprocessOptions {
        defines: vec![("D".to_string(), "1".to_string())],
        ..PreprocessOptions::default()
    };
    // The parser alone, on tokens no preprocessor has seen.
    let _ = parse(lex(main, text), &mut Diagnostics::default());
    let mut diags = Diagnostics::default();
    let unit = parse_file(&mut map, main, &opts, &loader, &mut diags);
    let _ = print_unit(&unit);
    for d in &diags.items {
        for span in std::iter::once(&d.span).chain(d.labels.iter().map(|(s, _)| s)) {
            let file = map
                .get(span.file)
                .unwrap_or_else(|| panic!("bad file in {d:?} for {text:?}"));
            assert!(
                span.start <= span.end && span.end as usize <= file.text.len(),
                "bad span in {d:?} for {text:?}"
            );
            let _ = map.location(*span);
        }
        assert!(!d.message.is_empty());
        // `#error` and `#warning` repeat the user's text as it is.
        let user_text = map.file(d.span.file).text[d.span.start as usize..].starts_with('#');
        assert!(user_text || !d.message.ends_with('.'), "{}", d.message);
    }
}

#[test]
fn every_prefix_of_real_shaders() {
    for shader in [REALISTIC, FEATURES] {
        for (end, _) in shader.char_indices() {
            run(&shader[..end]);
        }
        run(shader);
    }
}

#[test]
fn every_suffix_of_real_shaders() {
    for shader in [REALISTIC, FEATURES] {
        for (start, _) in shader.char_indices().step_by(3) {
            run(&shader[start..]);
        }
    }
}

#[test]
fn random_bytes() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..400 {
        let len = rng.below(300);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        run(&String::from_utf8_lossy(&bytes));
        // Mostly printable ASCII reaches deeper than arbitrary bytes.
        let ascii: String = (0..len)
            .map(|_| (b' ' + rng.below(95) as u8) as char)
            .collect();
        run(&ascii);
    }
}

const VOCABULARY: &[&str] = &[
    "#define",
    "#undef",
    "#if",
    "#ifdef",
    "#ifndef",
    "#elif",
    "#else",
    "#endif",
    "#include \"inc.hlsl\"",
    "#include \"main.hlsl\"",
    "#include <inc.hlsl>",
    "#line 5",
    "#pragma once",
    "#error e",
    "#",
    "##",
    "\n",
    "\n",
    "\n",
    "defined",
    "__LINE__",
    "__FILE__",
    "__VA_ARGS__",
    "...",
    "M",
    "F",
    "F(",
    "D",
    "struct",
    "cbuffer",
    "typedef",
    "static",
    "const",
    "groupshared",
    "in",
    "out",
    "inout",
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case",
    "default",
    "break",
    "continue",
    "return",
    "discard",
    "float",
    "uint",
    "float4",
    "vector",
    "matrix",
    "RWStructuredBuffer",
    "StructuredBuffer",
    "ByteAddressBuffer",
    "S",
    "x",
    "y",
    "Load",
    "register",
    "packoffset",
    "u0",
    "space1",
    "c0",
    "SV_DispatchThreadID",
    "numthreads",
    "unroll",
    "unsigned",
    "true",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    ">>",
    "<<",
    "=",
    "==",
    "+=",
    ">>=",
    "+",
    "-",
    "*",
    "/",
    "%",
    "&",
    "&&",
    "|",
    "||",
    "^",
    "!",
    "~",
    "?",
    ":",
    "::",
    ";",
    ",",
    ".",
    "++",
    "--",
    "0",
    "1",
    "2u",
    "0x1F",
    "1.5f",
    ".5",
    "1e3",
    "09",
    "\"s\"",
    "'c'",
    "\"open",
    "/*",
    "*/",
    "//",
    "\\",
    "@",
];

#[test]
fn random_token_soup() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for _ in 0..1500 {
        let len = rng.below(60);
        let mut text = String::new();
        for _ in 0..len {
            text.push_str(VOCABULARY[rng.below(VOCABULARY.len())]);
            text.push(if rng.below(8) == 0 { '\n' } else { ' ' });
        }
        run(&text);
    }
}

#[test]
fn mutated_real_shaders() {
    let words: Vec<&str> = REALISTIC
        .split_inclusive(|c: char| !c.is_alphanumeric() && c != '_')
        .collect();
    let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
    for _ in 0..400 {
        let mut pieces: Vec<&str> = words.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(pieces.len());
            match rng.below(4) {
                0 => {
                    pieces.remove(at);
                }
                1 => {
                    let piece = pieces[rng.below(pieces.len())];
                    pieces.insert(at, piece);
                }
                2 => {
                    let other = rng.below(pieces.len());
                    pieces.swap(at, other);
                }
                _ => pieces.insert(at, VOCABULARY[rng.below(VOCABULARY.len())]),
            }
        }
        run(&pieces.concat());
    }
}

#[test]
fn deeply_nested_input_of_every_kind() {
    let depth = 20_000;
    let nest = |open: &str, inner: &str, close: &str| {
        format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
    };
    let cases = [
        format!("void f() {{ a = {}; }}", nest("(", "1", ")")),
        format!("void f() {{ a = {}; }}", nest("f(", "1", ")")),
        format!("void f() {{ a = {}; }}", nest("a[", "1", "]")),
        format!("void f() {{ a = {}; }}", nest("(float)", "1", "")),
        format!("void f() {{ a = {}; }}", nest("-", "1", "")),
        format!("void f() {{ a = {}; }}", nest("b ? ", "1", " : 2")),
        format!("void f() {{ a = {}; }}", nest("b = ", "1", "")),
        format!("void f() {{ a = {}; }}", nest("float2(", "1", ")")),
        format!("void f() {{ {} }}", nest("{", "", "}")),
        format!("void f() {{ {} }}", nest("if (a) ", ";", "")),
        format!("void f() {{ {} }}", nest("while (a) ", ";", "")),
        format!("void f() {{ {} }}", nest("[unroll] for (;;) ", ";", "")),
        format!("void f() {{ {} }}", nest("if (a) {} else ", ";", "")),
        format!("void f() {{ {} }}", nest("switch (a) { case 0: ", ";", "}")),
        format!("float a[] = {};", nest("{", "1", "}")),
        format!("{} a;", nest("vector<", "float", ", 2>")),
        format!(
            "void f() {{ b.Load<{}>(0); }}",
            nest("vector<", "float", ", 2>")
        ),
        format!("void f(float x = {}) {{}}", nest("(", "1", ")")),
        format!("[numthreads({}, 1, 1)] void f() {{}}", nest("(", "1", ")")),
        format!("#if {}\n#endif\n", nest("(", "1", ")")),
        format!("#if {}\n#endif\n", nest("-", "1", "")),
        format!("#if {}\n#endif\n", nest("1 ? ", "1", " : 0")),
        format!("#define F(x) x\n{}\n", nest("F(", "1", ")")),
        format!("void f() {{ a = 0{}; }}", " + 1".repeat(depth)),
        format!("void f() {{ a = b{}; }}", ".x".repeat(depth)),
        format!("void f() {{ a = b{}; }}", "[0]".repeat(depth)),
        format!("void f() {{ a = b{}; }}", "++".repeat(depth)),
        format!("void f() {{ a = 0{}; }}", ", 1".repeat(depth)),
    ];
    for case in &cases {
        // Half the default thread stack (2 MiB) is the budget to stay within,
        // even unoptimized.
        let case = case.clone();
        std::thread::Builder::new()
            .stack_size(1 << 20)
            .spawn(move || run(&case))
            .expect("thread starts")
            .join()
            .unwrap_or_else(|_| panic!("panicked"));
    }
}

#[test]
fn failing_casts_do_not_reparse_exponentially() {
    let depth = 60;
    let text = format!(
        "void f() {{ a = {}1{}; }}",
        "(vector<float, ".repeat(depth),
        "> + 1)".repeat(depth)
    );
    let started = std::time::Instant::now();
    run(&text);
    assert!(started.elapsed().as_secs() < 10);
}
