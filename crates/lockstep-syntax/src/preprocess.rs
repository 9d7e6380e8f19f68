//! The preprocessor: works on tokens, like clang's, and produces the token
//! stream the parser reads.
//!
//! Every output token keeps a span into an original file. A token written in
//! a file keeps its own span; a token that comes out of a macro body gets the
//! span of the macro invocation (so errors point at the use) and records the
//! macro in [`Token::expansion`]. Macro arguments keep their own spans.
//! `#line` directives are recorded in the [`SourceMap`] and change only the
//! reported locations, never the spans.
//!
//! Expansion follows the C standard's rescanning rules with hide sets
//! (Prosser's algorithm), so a macro never expands inside its own expansion.
//!
//! `#include "x"` and `#include <x>` both search the including file's
//! directory, then the `-I` directories in order. The paths handed to the
//! [`SourceLoader`] are normalized lexically (`\` becomes `/`, `.` and
//! `dir/..` go), and an included file is named by that path in the
//! [`SourceMap`]. Predefined macros and `-D` definitions are read from two
//! pseudo-files, `<built-in>` and `<command line>`, so their spans are real.
//!
//! Limits keep hostile input finite: 200 nested includes, 10 000 includes in
//! all, 1 000 000 tokens of macro expansion work, arguments nested 200 deep.
//! Passing one is a fatal error: preprocessing stops there.

mod directive;

pub use directive::normalize_path;
mod expand;
mod expr;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use crate::ast::Pragma;
use crate::diag::{Diagnostic, Diagnostics};
use crate::lexer::{self, LexError, MacroOrigin, Token, TokenKind};
use crate::span::{FileId, SourceMap, Span};

/// Reads included files for the preprocessor; the caller decides what a path
/// means (a file system, an in-memory map, …).
pub trait SourceLoader {
    /// Reads a file; `path` is a path string built by joining the including
    /// file's directory (or an include dir) with the written name. Returns
    /// None when it does not exist.
    fn load(&self, path: &str) -> Option<String>;
}

/// An in-memory file system: path to contents.
impl SourceLoader for HashMap<String, String> {
    fn load(&self, path: &str) -> Option<String> {
        self.get(path).cloned()
    }
}

/// A loader that finds no file, for sources without includes.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoIncludes;

impl SourceLoader for NoIncludes {
    fn load(&self, _path: &str) -> Option<String> {
        None
    }
}

/// How to preprocess: command-line definitions, include directories and the target shader model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreprocessOptions {
    /// `-D` definitions as `(name, value)`; `name` may carry a parameter
    /// list (`F(x)`). See [`PreprocessOptions::parse_define`].
    pub defines: Vec<(String, String)>,
    /// `-I` directories, searched in order after the including file's own
    /// directory.
    pub include_dirs: Vec<String>,
    /// `(major, minor)` of the target profile, e.g. `(6, 6)` for `cs_6_6`.
    pub shader_model: (u32, u32),
    /// The target profile's stage as `__SHADER_STAGE_<STAGE>` names it:
    /// `COMPUTE` (`cs_`), `VERTEX` (`vs_`), `PIXEL` (`ps_`).
    pub stage: &'static str,
}

impl Default for PreprocessOptions {
    fn default() -> PreprocessOptions {
        PreprocessOptions {
            defines: Vec::new(),
            include_dirs: Vec::new(),
            shader_model: (6, 10),
            stage: "COMPUTE",
        }
    }
}

impl PreprocessOptions {
    /// Splits a `-D` argument: `NAME=VALUE` gives `(NAME, VALUE)` and a bare
    /// `NAME` gives `(NAME, "1")`.
    pub fn parse_define(arg: &str) -> (String, String) {
        match arg.split_once('=') {
            Some((name, value)) => (name.to_string(), value.to_string()),
            None => (arg.to_string(), "1".to_string()),
        }
    }
}

/// Files nested deeper than this are a fatal error.
const MAX_INCLUDE_DEPTH: usize = 200;
/// At most this many `#include`s are followed in one compilation.
const MAX_INCLUDES: usize = 10_000;
/// Macro expansion may produce (or collect as arguments) at most this many
/// tokens in all.
const MAX_EXPANDED_TOKENS: usize = 1_000_000;
/// Macro arguments nest at most this deep (each level is a recursive
/// pre-expansion).
const MAX_MACRO_DEPTH: u32 = 200;

/// Runs the preprocessor over `main` (already in `map`) and returns the
/// tokens for the parser, ending with an [`TokenKind::Eof`] token. Included
/// files are added to `map`. Never fails: problems become diagnostics.
pub fn preprocess(
    map: &mut SourceMap,
    main: FileId,
    opts: &PreprocessOptions,
    loader: &dyn SourceLoader,
    diags: &mut Diagnostics,
) -> Vec<Token> {
    preprocess_with_pragmas(map, main, opts, loader, diags).0
}

/// Where `#pragma pack_matrix` changes the default matrix packing: the
/// index of the first output token after it, and whether row-major is the
/// default from there.
pub type PackMarks = Vec<(usize, bool)>;

/// [`preprocess()`], also returning the `#pragma lockstep` directives and
/// the `#pragma pack_matrix` marks.
pub fn preprocess_with_pragmas(
    map: &mut SourceMap,
    main: FileId,
    opts: &PreprocessOptions,
    loader: &dyn SourceLoader,
    diags: &mut Diagnostics,
) -> (Vec<Token>, Vec<Pragma>, PackMarks) {
    let Some(main_file) = map.get(main) else {
        return (
            vec![Token::eof(Span::new(main, 0, 0))],
            Vec::new(),
            Vec::new(),
        );
    };
    let main_end = main_file.text.len() as u32;
    let main_tokens = lexer::lex(main, &main_file.text);
    let mut pp = Preprocessor::new(map, opts, loader, diags);
    // The main file's tokens, plus an `Eof`, are most of the output.
    pp.out.reserve(main_tokens.len() + 1);
    pp.push_frame(main, main_tokens);
    if !opts.defines.is_empty() {
        let text = command_line_text(&opts.defines);
        let id = pp.map.add("<command line>", text, None);
        let tokens = lexer::lex(id, &pp.map.file(id).text);
        pp.push_frame(id, tokens);
    }
    let builtin = pp.map.add(
        "<built-in>",
        builtin_text(opts.shader_model, opts.stage),
        None,
    );
    let tokens = lexer::lex(builtin, &pp.map.file(builtin).text);
    pp.push_frame(builtin, tokens);
    pp.run();
    let mut out = pp.out;
    out.push(Token::eof(Span::new(main, main_end, main_end)));
    (out, pp.pragmas, pp.pack_marks)
}

/// Moves a token out of a frame: frames are read once, and the `Eof`
/// token left behind is never read.
fn take_token(t: &mut Token) -> Token {
    std::mem::replace(t, Token::eof(t.span))
}

fn command_line_text(defines: &[(String, String)]) -> String {
    let mut text = String::new();
    for (name, value) in defines {
        let one_line = |s: &str| s.replace(['\n', '\r'], " ");
        text.push_str(&format!("#define {} {}\n", one_line(name), one_line(value)));
    }
    text
}

/// The predefined macros, as DXC defines them for a shader of `stage`.
fn builtin_text((major, minor): (u32, u32), stage: &str) -> String {
    let stages = [
        ("PIXEL", 0),
        ("VERTEX", 1),
        ("GEOMETRY", 2),
        ("HULL", 3),
        ("DOMAIN", 4),
        ("COMPUTE", 5),
        ("LIBRARY", 6),
        ("MESH", 13),
        ("AMPLIFICATION", 14),
    ];
    let mut text = format!(
        "#define __HLSL_VERSION 2021\n#define __SHADER_TARGET_MAJOR {major}\n\
         #define __SHADER_TARGET_MINOR {minor}\n#define __hlsl_dx_compiler 1\n"
    );
    for (stage, value) in stages {
        text.push_str(&format!("#define __SHADER_STAGE_{stage} {value}\n"));
    }
    text.push_str(&format!(
        "#define __SHADER_TARGET_STAGE __SHADER_STAGE_{stage}\n"
    ));
    text
}

/// A token during expansion: the macros it may no longer expand (its hide
/// set), and whether it is a placemarker (an empty argument next to `##`).
#[derive(Clone, Debug)]
struct PpToken {
    tok: Token,
    hide: HideSet,
    placemarker: bool,
}

/// Sorted macro ids.
type HideSet = Rc<Vec<u32>>;

#[derive(Debug)]
struct Macro {
    id: u32,
    kind: MacroKind,
    body: Vec<Token>,
    origin: Arc<MacroOrigin>,
}

#[derive(Clone, Debug, PartialEq)]
enum MacroKind {
    Object,
    Function {
        params: Vec<String>,
        variadic: bool,
    },
    /// `__LINE__`
    Line,
    /// `__FILE__`
    File,
    /// `__COUNTER__`: 0, then one more at each use.
    Counter,
    /// `_Pragma("…")`: a pragma written as an operator, dropped as the
    /// pragmas Lockstep ignores are.
    PragmaOperator,
}

impl Macro {
    /// Whether a redefinition is allowed without a warning.
    fn same_as(&self, other: &Macro) -> bool {
        self.kind == other.kind
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, (a, b))| {
                    a.text == b.text && (i == 0 || a.leading_space == b.leading_space)
                })
    }

    /// The argument index a body token names, for function-like macros.
    fn param_index(&self, tok: &Token) -> Option<usize> {
        let MacroKind::Function { params, variadic } = &self.kind else {
            return None;
        };
        if tok.kind != TokenKind::Ident {
            return None;
        }
        if *variadic && tok.text == "__VA_ARGS__" {
            return Some(params.len());
        }
        params.iter().position(|p| *p == tok.text)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CondState {
    /// The current branch is being compiled.
    Taking,
    /// No branch taken yet; a later `#elif`/`#else` may be.
    Waiting,
    /// A branch was taken; the rest are skipped.
    Done,
    /// The whole conditional is inside a skipped branch.
    ParentSkipping,
}

struct Cond {
    if_span: Span,
    state: CondState,
    seen_else: bool,
}

/// One file being read.
struct Frame {
    file: FileId,
    tokens: Vec<Token>,
    pos: usize,
    conds: Vec<Cond>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Ordinary text and `#include`/`#line` operands.
    Text,
    /// An `#if` expression: `defined` is an operator.
    If,
}

struct Preprocessor<'a> {
    map: &'a mut SourceMap,
    opts: &'a PreprocessOptions,
    loader: &'a dyn SourceLoader,
    diags: &'a mut Diagnostics,
    macros: HashMap<String, Rc<Macro>>,
    /// Macro name to id, for hide sets.
    macro_ids: HashMap<String, u32>,
    /// Files that said `#pragma once`.
    once: HashSet<String>,
    /// `#pragma lockstep` directives.
    pragmas: Vec<Pragma>,
    /// `#pragma pack_matrix` changes, by output position.
    pack_marks: PackMarks,
    frames: Vec<Frame>,
    out: Vec<Token>,
    include_count: usize,
    expanded_count: usize,
    /// A fatal error stops preprocessing.
    fatal: bool,
    empty_hide: HideSet,
    /// The next `__COUNTER__`.
    counter: u64,
}

impl<'a> Preprocessor<'a> {
    fn new(
        map: &'a mut SourceMap,
        opts: &'a PreprocessOptions,
        loader: &'a dyn SourceLoader,
        diags: &'a mut Diagnostics,
    ) -> Preprocessor<'a> {
        let mut pp = Preprocessor {
            map,
            opts,
            loader,
            diags,
            macros: HashMap::new(),
            macro_ids: HashMap::new(),
            once: HashSet::new(),
            pragmas: Vec::new(),
            pack_marks: Vec::new(),
            frames: Vec::new(),
            out: Vec::new(),
            include_count: 0,
            expanded_count: 0,
            fatal: false,
            empty_hide: Rc::new(Vec::new()),
            counter: 0,
        };
        pp.define_special("__LINE__", MacroKind::Line);
        pp.define_special("__FILE__", MacroKind::File);
        pp.define_special("__COUNTER__", MacroKind::Counter);
        pp.define_special("_Pragma", MacroKind::PragmaOperator);
        pp
    }

    fn define_special(&mut self, name: &str, kind: MacroKind) {
        let id = self.macro_id(name);
        let origin = Arc::new(MacroOrigin {
            name: name.to_string(),
            definition: Span::default(),
        });
        let mac = Macro {
            id,
            kind,
            body: Vec::new(),
            origin,
        };
        self.macros.insert(name.to_string(), Rc::new(mac));
    }

    fn macro_id(&mut self, name: &str) -> u32 {
        let next = self.macro_ids.len() as u32;
        *self.macro_ids.entry(name.to_string()).or_insert(next)
    }

    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message));
    }

    fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::warning(span, message));
    }

    fn fatal_error(&mut self, span: Span, message: impl Into<String>) {
        self.error(span, message);
        self.fatal = true;
    }

    fn report_lex_error(&mut self, tok: &Token) {
        if let Some(error) = &tok.error {
            let message = error.to_string();
            self.error(tok.span, message);
        }
    }

    fn push_frame(&mut self, file: FileId, tokens: Vec<Token>) {
        self.frames.push(Frame {
            file,
            tokens,
            pos: 0,
            conds: Vec::new(),
        });
    }

    fn pp_token(&self, tok: Token) -> PpToken {
        PpToken {
            tok,
            hide: self.empty_hide.clone(),
            placemarker: false,
        }
    }

    fn run(&mut self) {
        while !self.fatal {
            let Some(frame) = self.frames.last() else {
                break;
            };
            let Some(tok) = frame.tokens.get(frame.pos) else {
                self.end_frame();
                continue;
            };
            if tok.line_start && tok.is_punct("#") {
                let line = self.take_line();
                self.directive(&line);
            } else if !self.active() {
                self.skip_line();
            } else {
                self.text();
            }
        }
    }

    fn end_frame(&mut self) {
        if let Some(frame) = self.frames.pop() {
            for cond in frame.conds {
                self.error(cond.if_span, "unterminated conditional directive");
            }
        }
    }

    /// Whether the current line is compiled (not inside a skipped branch).
    fn active(&self) -> bool {
        self.frames
            .last()
            .and_then(|f| f.conds.last())
            .is_none_or(|c| c.state == CondState::Taking)
    }

    /// Takes the tokens of the current logical line.
    fn take_line(&mut self) -> Vec<Token> {
        let Some(frame) = self.frames.last_mut() else {
            return Vec::new();
        };
        let start = frame.pos;
        let mut end = start + 1;
        while end < frame.tokens.len() && !frame.tokens[end].line_start {
            end += 1;
        }
        let end = end.min(frame.tokens.len());
        frame.pos = end;
        frame.tokens[start..end]
            .iter_mut()
            .map(take_token)
            .collect()
    }

    /// Skips a line in a skipped branch; only an unterminated comment there
    /// is still an error.
    fn skip_line(&mut self) {
        for tok in self.take_line() {
            if tok.error.as_deref() == Some(&LexError::UnterminatedComment) {
                self.report_lex_error(&tok);
            }
        }
    }

    /// Preprocesses the text lines up to the next directive or the end of
    /// the file. The tokens before the first macro name go to the output as
    /// they are; the rest is expanded.
    fn text(&mut self) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        let start = frame.pos;
        let mut end = start;
        while end < frame.tokens.len()
            && !(end > start && frame.tokens[end].line_start && frame.tokens[end].is_punct("#"))
        {
            end += 1;
        }
        frame.pos = end;
        let tokens = &mut frame.tokens[start..end];
        let plain = tokens
            .iter()
            .position(|t| t.kind == TokenKind::Ident && self.macros.contains_key(&t.text))
            .unwrap_or(tokens.len());
        // Malformed numbers are reported as they are emitted (a macro's
        // body may still complete one by pasting).
        let errors: Vec<(Span, String)> = tokens
            .iter()
            .filter(|t| !matches!(t.error.as_deref(), Some(LexError::Number(_))))
            .filter_map(|t| Some((t.span, t.error.as_ref()?.to_string())))
            .collect();
        let (before, after) = tokens.split_at_mut(plain);
        let mut numbers = Vec::new();
        for t in before {
            if t.kind != TokenKind::Unknown {
                let t = take_token(t);
                if let Some(LexError::Number(e)) = t.error.as_deref() {
                    numbers.push((t.span, e.to_string()));
                }
                self.out.push(t);
            }
        }
        let empty = &self.empty_hide;
        let rest: Vec<PpToken> = after
            .iter_mut()
            .map(|t| PpToken {
                tok: take_token(t),
                hide: empty.clone(),
                placemarker: false,
            })
            .collect();
        for (span, message) in errors.into_iter().chain(numbers) {
            self.error(span, message);
        }
        if !rest.is_empty() {
            let expanded = self.expand_list(rest, Mode::Text, 0);
            self.emit(expanded);
        }
    }

    fn emit(&mut self, tokens: Vec<PpToken>) {
        for t in tokens {
            if !t.placemarker && t.tok.kind != TokenKind::Unknown {
                self.report_number_error(&t.tok);
                self.out.push(t.tok);
            }
        }
    }

    /// A malformed number that reaches the parser.
    fn report_number_error(&mut self, tok: &Token) {
        if let Some(LexError::Number(e)) = tok.error.as_deref() {
            let message = e.to_string();
            self.error(tok.span, message);
        }
    }

    fn current_file(&self) -> Option<FileId> {
        self.frames.last().map(|f| f.file)
    }
}
