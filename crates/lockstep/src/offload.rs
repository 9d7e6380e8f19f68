//! LLVM offload-test-suite `.test` files: one lit test in split-file form,
//! holding an HLSL shader, a pipeline and the RUN lines that compile the
//! shader with DXC and run it with the suite's offloader.
//!
//! [`parse_test_file`] splits a file into its sections and directives;
//! [`run_test_file`] evaluates `REQUIRES`, `UNSUPPORTED` and `XFAIL` against
//! Lockstep's feature set ([`TestOptions::features`]), follows the RUN lines
//! (the flags of the `%dxc_target` line, the pipeline of the `%offloader`
//! line) and checks the pipeline's `Results` rules.
//!
//! Sections are files under the directory `split-file` writes (`%t`), which
//! is named after the test itself: the section `source.hlsl` of
//! `dir/x.test` compiles as `dir/x.test/source.hlsl`, the name diagnostics
//! print, and `#include "common.hlsl"` in it reads the section
//! `common.hlsl`. Other paths go to the caller's [`SourceLoader`].

use std::collections::BTreeSet;

use lockstep_syntax::preprocess::SourceLoader;
use lockstep_syntax::{Diagnostic, FileId, Severity, Span};

use crate::{CompileOptions, RunError, RunOptions, Shader};

/// The feature naming the platform: Lockstep is none of the GPU APIs
/// (`DirectX`, `Vulkan`, `Metal`), so tests restricted to one of them are
/// skipped, and `UNSUPPORTED: Lockstep` / `XFAIL: Lockstep` single it out.
pub const PLATFORM_FEATURE: &str = "Lockstep";

/// The feature naming the compiler whose semantics Lockstep follows (flags,
/// implicit bindings, `half` without `-enable-16bit-types`, HLSL 2021
/// rules): DXC's, not Clang's.
pub const COMPILER_FEATURE: &str = "DXC";

/// The data-type features, all supported.
pub const TYPE_FEATURES: [&str; 4] = ["Half", "Double", "Int16", "Int64"];

/// One file of a split-file test (`#--- name` up to the next marker).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// The file name after `#---`.
    pub name: String,
    /// The lines of the section, each with its newline.
    pub text: String,
    /// The 1-based line of the section's marker in the test file.
    pub line: usize,
}

/// One RUN command with its continuation lines joined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunLine {
    /// The 1-based line of the first `RUN:` line of the command.
    pub line: usize,
    /// The command's text after `RUN:`, continuation lines joined with spaces.
    pub command: String,
}

/// A parsed `.test` file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestFile {
    /// The split-file sections, in file order.
    pub sections: Vec<Section>,
    /// The RUN commands, in file order.
    pub run: Vec<RunLine>,
    /// The comma-separated clauses of every `REQUIRES:` line; all must hold.
    pub requires: Vec<String>,
    /// The clauses of every `UNSUPPORTED:` line; any one skips the test.
    pub unsupported: Vec<String>,
    /// The clauses of every `XFAIL:` line; any one (or `*`) makes a failure
    /// expected.
    pub xfail: Vec<String>,
}

impl TestFile {
    /// The section called `name`.
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }
}

/// The verdict on one test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TestOutcome {
    /// The test ran and every check held.
    Pass,
    /// The reason: its first line says what failed, the lines after it give
    /// the details (a rule's differing elements, a diagnostic's source line).
    Fail(String),
    /// Why the test was not run.
    Skip(String),
    /// An `XFAIL` test failed, for this reason.
    ExpectedFail(String),
    /// An `XFAIL` test passed.
    UnexpectedPass,
}

impl TestOutcome {
    /// lit's name for the outcome: `PASS`, `FAIL`, `SKIP`, `XFAIL`, `XPASS`.
    pub fn label(&self) -> &'static str {
        match self {
            TestOutcome::Pass => "PASS",
            TestOutcome::Fail(_) => "FAIL",
            TestOutcome::Skip(_) => "SKIP",
            TestOutcome::ExpectedFail(_) => "XFAIL",
            TestOutcome::UnexpectedPass => "XPASS",
        }
    }

    /// Whether the outcome counts as a failure (`FAIL` and `XPASS`).
    pub fn is_failure(&self) -> bool {
        matches!(self, TestOutcome::Fail(_) | TestOutcome::UnexpectedPass)
    }

    /// Whether the outcome counts as a pass (`PASS` and `XFAIL`).
    pub fn is_pass(&self) -> bool {
        matches!(self, TestOutcome::Pass | TestOutcome::ExpectedFail(_))
    }

    /// The reason of a failure, skip or expected failure.
    pub fn reason(&self) -> Option<&str> {
        match self {
            TestOutcome::Fail(r) | TestOutcome::Skip(r) | TestOutcome::ExpectedFail(r) => Some(r),
            TestOutcome::Pass | TestOutcome::UnexpectedPass => None,
        }
    }
}

/// How to run tests: the emulated device, and how to run FileCheck.
#[derive(Clone, Debug, Default)]
pub struct TestOptions {
    /// The emulated device and how dispatches run.
    pub run: RunOptions,
    /// Runs LLVM's FileCheck for RUN lines that pipe the offloader's output
    /// into it; without one such tests are skipped.
    pub filecheck: Option<FileCheck>,
    /// A Vulkan device that runs the dispatches instead of Lockstep's
    /// engine (draws still run on the CPU).
    #[cfg(feature = "vulkan")]
    pub vulkan: Option<std::sync::Arc<lockstep_vulkan::Device>>,
}

/// Runs FileCheck: given its arguments (lit substitutions applied, so `%s`
/// is the test's path) and its standard input, `Ok` when every check
/// matched, else FileCheck's report.
pub type FileCheckFn = dyn Fn(&[String], &str) -> Result<(), String> + Send + Sync;

/// A way to run FileCheck ([`FileCheckFn`]).
#[derive(Clone)]
pub struct FileCheck(pub std::sync::Arc<FileCheckFn>);

impl std::fmt::Debug for FileCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FileCheck(..)")
    }
}

impl TestOptions {
    /// The features a test's `REQUIRES`, `UNSUPPORTED` and `XFAIL`
    /// expressions see: [`PLATFORM_FEATURE`], [`COMPILER_FEATURE`], the
    /// [`TYPE_FEATURES`], and `WaveSize_N` for every wave size the device
    /// supports. Every other name is false.
    pub fn features(&self) -> BTreeSet<String> {
        let platform = if self.on_vulkan() {
            "Vulkan"
        } else {
            PLATFORM_FEATURE
        };
        let mut features: BTreeSet<String> = [platform, COMPILER_FEATURE]
            .into_iter()
            .chain(TYPE_FEATURES)
            .map(str::to_string)
            .collect();
        #[cfg(feature = "vulkan")]
        let (min, max) = self
            .vulkan
            .as_ref()
            .map_or(self.run.wave_sizes, |d| d.info.subgroup_sizes);
        #[cfg(not(feature = "vulkan"))]
        let (min, max) = self.run.wave_sizes;
        for size in [4u32, 8, 16, 32, 64, 128] {
            if (min..=max).contains(&size) {
                features.insert(format!("WaveSize_{size}"));
            }
        }
        features
    }
}

impl TestOptions {
    /// Whether dispatches run on a Vulkan device.
    fn on_vulkan(&self) -> bool {
        #[cfg(feature = "vulkan")]
        return self.vulkan.is_some();
        #[cfg(not(feature = "vulkan"))]
        return false;
    }
}

// ---------------------------------------------------------------------------
// Splitting the file

/// The part name of a split-file marker line: a one-character comment
/// prefix (`#`, `;`) or `//`, then `--- name`.
fn marker_name(line: &str) -> Option<&str> {
    let prefix = if line.starts_with("//") {
        2
    } else {
        line.chars().next()?.len_utf8()
    };
    let name = line.get(prefix..)?.strip_prefix("--- ")?.trim();
    (!name.is_empty()).then_some(name)
}

const KEYWORDS: [&str; 5] = ["RUN:", "REQUIRES:", "UNSUPPORTED:", "XFAIL:", "END."];

/// The directive on a line: a comment prefix (`#`, `//`, `;`), spaces, then
/// a keyword. Returns the keyword and the rest of the line.
fn directive(line: &str) -> Option<(&'static str, &str)> {
    let rest = line.trim_start();
    let rest = rest
        .strip_prefix("//")
        .or_else(|| rest.strip_prefix('#'))
        .or_else(|| rest.strip_prefix(';'))?
        .trim_start();
    KEYWORDS
        .iter()
        .find_map(|k| rest.strip_prefix(k).map(|r| (*k, r.trim())))
}

fn clauses(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
}

/// Splits a `.test` file into its sections (`#--- name` or `//--- name`
/// markers; a marker named `end` ends the last section) and reads its
/// directives (`RUN:`, with a trailing `\` continuing onto the next `RUN:`
/// line; `REQUIRES:`, `UNSUPPORTED:`, `XFAIL:`; `END.` stops the search).
pub fn parse_test_file(text: &str) -> Result<TestFile, String> {
    let mut file = TestFile::default();
    let mut current: Option<Section> = None;
    let mut continuing = false;
    let mut directives_done = false;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let number = index + 1;
        let bare = line.trim_end_matches(['\n', '\r']);
        if let Some(name) = marker_name(bare) {
            file.sections.extend(current.take());
            if name != "end" {
                if file.section(name).is_some() {
                    return Err(format!("line {number}: a second section named '{name}'"));
                }
                current = Some(Section {
                    name: name.to_string(),
                    text: String::new(),
                    line: number,
                });
            }
            continue;
        }
        if let Some(section) = &mut current {
            section.text.push_str(line);
        }
        if directives_done {
            continue;
        }
        // As in lit, a continued RUN line continues on the next RUN line,
        // whatever lies between.
        let Some((keyword, rest)) = directive(bare) else {
            continue;
        };
        match keyword {
            "RUN:" => {
                let (body, more) = match rest.strip_suffix('\\') {
                    Some(body) => (body.trim_end(), true),
                    None => (rest, false),
                };
                if continuing && let Some(last) = file.run.last_mut() {
                    if !last.command.is_empty() && !body.is_empty() {
                        last.command.push(' ');
                    }
                    last.command.push_str(body);
                } else {
                    file.run.push(RunLine {
                        line: number,
                        command: body.to_string(),
                    });
                }
                continuing = more;
            }
            "REQUIRES:" => file.requires.extend(clauses(rest)),
            "UNSUPPORTED:" => file.unsupported.extend(clauses(rest)),
            "XFAIL:" => file.xfail.extend(clauses(rest)),
            _ => directives_done = true,
        }
    }
    file.sections.extend(current.take());
    if continuing {
        return Err("the last RUN line ends with '\\' but no RUN line follows".to_string());
    }
    if file.sections.is_empty() {
        return Err(
            "no split-file sections: expected lines such as '#--- source.hlsl' and '#--- pipeline.yaml'"
                .to_string(),
        );
    }
    Ok(file)
}

// ---------------------------------------------------------------------------
// Feature expressions

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Open,
    Close,
    And,
    Or,
    Not,
    Name(String),
}

fn feature_tokens(expr: &str) -> Result<Vec<Tok>, String> {
    let is_name = |c: char| c.is_ascii_alphanumeric() || "-+=._".contains(c);
    let mut tokens = Vec::new();
    let mut chars = expr.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let rest = &expr[i..];
        let (tok, len) = if rest.starts_with("&&") {
            (Tok::And, 2)
        } else if rest.starts_with("||") {
            (Tok::Or, 2)
        } else if rest.starts_with("{{") {
            return Err("regular-expression patterns ({{...}}) are not supported".to_string());
        } else {
            match c {
                '(' => (Tok::Open, 1),
                ')' => (Tok::Close, 1),
                '!' => (Tok::Not, 1),
                c if is_name(c) => {
                    let len = rest.find(|c: char| !is_name(c)).unwrap_or(rest.len());
                    (Tok::Name(rest[..len].to_string()), len)
                }
                c => return Err(format!("unexpected '{c}'")),
            }
        };
        tokens.push(tok);
        while chars.peek().is_some_and(|&(j, _)| j < i + len) {
            chars.next();
        }
    }
    Ok(tokens)
}

struct FeatureParser<'a> {
    tokens: Vec<Tok>,
    pos: usize,
    features: &'a BTreeSet<String>,
    /// `!` and `(` open around the current position.
    depth: usize,
}

/// The most `!` and parentheses one feature expression may nest.
const MAX_FEATURE_DEPTH: usize = 256;

impl FeatureParser<'_> {
    fn eat(&mut self, tok: &Tok) -> bool {
        if self.tokens.get(self.pos) == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<bool, String> {
        let mut value = self.and()?;
        while self.eat(&Tok::Or) {
            // Both sides are parsed whatever the left one gives.
            let right = self.and()?;
            value = value || right;
        }
        Ok(value)
    }

    fn and(&mut self) -> Result<bool, String> {
        let mut value = self.not()?;
        while self.eat(&Tok::And) {
            let right = self.not()?;
            value = value && right;
        }
        Ok(value)
    }

    fn not(&mut self) -> Result<bool, String> {
        let tok = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        let nests = matches!(tok, Some(Tok::Not | Tok::Open));
        if nests {
            self.depth += 1;
            if self.depth > MAX_FEATURE_DEPTH {
                return Err(format!(
                    "'!' and parentheses nest more than {MAX_FEATURE_DEPTH} deep"
                ));
            }
        }
        let value = match tok {
            Some(Tok::Not) => Ok(!self.not()?),
            Some(Tok::Open) => {
                let value = self.or()?;
                if !self.eat(&Tok::Close) {
                    return Err("missing ')'".to_string());
                }
                Ok(value)
            }
            Some(Tok::Name(name)) => Ok(name == "true" || self.features.contains(&name)),
            Some(Tok::Close) => Err("unexpected ')'".to_string()),
            Some(Tok::And) => Err("unexpected '&&'".to_string()),
            Some(Tok::Or) => Err("unexpected '||'".to_string()),
            None => Err("expected a feature name".to_string()),
        };
        if nests {
            self.depth -= 1;
        }
        value
    }
}

/// Evaluates a lit feature expression: feature names (letters, digits and
/// `-+=._`), `true`, `!`, `&&`, `||` and parentheses, with `!` binding
/// tightest and `||` loosest. A name is true when `features` holds it.
pub fn eval_features(expr: &str, features: &BTreeSet<String>) -> Result<bool, String> {
    let mut parser = FeatureParser {
        tokens: feature_tokens(expr)?,
        pos: 0,
        features,
        depth: 0,
    };
    let value = parser.or()?;
    match parser.tokens.get(parser.pos) {
        None => Ok(value),
        Some(Tok::Close) => Err("unexpected ')'".to_string()),
        Some(_) => Err("expected '&&' or '||' between feature names".to_string()),
    }
}

fn eval_clause(keyword: &str, clause: &str, features: &BTreeSet<String>) -> Result<bool, String> {
    eval_features(clause, features)
        .map_err(|e| format!("invalid {keyword} expression '{clause}': {e}"))
}

// ---------------------------------------------------------------------------
// RUN lines

/// A `%dxc_target` command: what Lockstep takes from it.
#[derive(Clone, Debug)]
pub struct CompileStep {
    /// `-T`, `-E` (default `main`, as DXC), `-D`, `-I`,
    /// `-enable-16bit-types`.
    pub options: CompileOptions,
    /// The source file (substitutions applied).
    pub source: String,
    /// `-Fo`: the object file, which an `%offloader` line names.
    pub output: Option<String>,
    /// `-WX`: warnings fail the compile.
    pub warnings_as_errors: bool,
    /// Preceded by lit's `not`: the compile is expected to fail.
    pub expect_failure: bool,
    /// Flags taken and ignored, having no effect on what the shader computes.
    pub ignored: Vec<String>,
}

/// An `%offloader` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffloadStep {
    /// The pipeline file's path (substitutions applied), usually a split-file section.
    pub pipeline: String,
    /// The shader objects (usually one).
    pub shaders: Vec<String>,
    /// Preceded by lit's `not`: the run is expected to fail.
    pub expect_failure: bool,
    /// Piped into `FileCheck` with these arguments: the buffers, printed as
    /// the offloader prints them, must match the test's CHECK lines.
    pub filecheck: Option<Vec<String>>,
}

/// What one RUN command does.
#[derive(Clone, Debug)]
pub enum Step {
    /// `split-file %s DIR`: the sections become files under DIR.
    SplitFile {
        /// The directory the sections go to, its path normalized.
        dir: String,
    },
    /// A `%dxc_target` compile.
    Compile(CompileStep),
    /// An `%offloader` run of a pipeline.
    Offload(OffloadStep),
}

/// Lexical path normalization, as the preprocessor does for includes: `\`
/// becomes `/`, `.` components and `dir/..` pairs go.
fn normalize_path(path: &str) -> String {
    lockstep_syntax::preprocess::normalize_path(&path.replace('\\', "/"))
}

fn dir_of(path: &str) -> String {
    match normalize_path(path).rsplit_once('/') {
        Some(("", _)) => "/".to_string(),
        Some((dir, _)) => dir.to_string(),
        None => ".".to_string(),
    }
}

/// lit's substitutions in one word: `%s` (the test), `%S` and `%p` (its
/// directory), `%t` (the directory split-file writes, named after the
/// test), `%T` (the test's directory), `%%`.
fn substitute(word: &str, path: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('s') | Some('t') => out.push_str(path),
            Some('S') | Some('p') | Some('T') => out.push_str(&dir_of(path)),
            Some('%') => out.push('%'),
            Some(_) | None => {
                return Err(format!(
                    "the lit substitution in '{word}', which Lockstep does not know"
                ));
            }
        }
    }
    Ok(out)
}

#[derive(Clone, Debug, PartialEq)]
enum ShellTok {
    Word(String),
    /// `|`, `||`, `&&`, `;`, `&`.
    Op(&'static str),
}

/// Splits a command as a POSIX shell would for simple commands: words,
/// single and double quotes, backslash escapes, and the operators `|`,
/// `||`, `&&`, `;`, `&`. Redirections stay words.
fn shell_words(command: &str) -> Result<Vec<ShellTok>, String> {
    let mut tokens = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => tokens.extend(word.take().map(ShellTok::Word)),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err("unterminated ' quote".to_string()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') if chars.peek().is_some_and(|c| "\"\\$`".contains(*c)) => {
                            w.extend(chars.next());
                        }
                        Some(c) => w.push(c),
                        None => return Err("unterminated \" quote".to_string()),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            '|' | '&' | ';' => {
                // `2>&1` and `>&2` are redirections, part of a word.
                if c == '&' && word.as_deref().is_some_and(|w| w.ends_with('>')) {
                    word.get_or_insert_with(String::new).push(c);
                    continue;
                }
                tokens.extend(word.take().map(ShellTok::Word));
                let doubled = chars.peek() == Some(&c);
                let op = match (c, doubled) {
                    ('|', true) => "||",
                    ('|', false) => "|",
                    ('&', true) => "&&",
                    ('&', false) => "&",
                    _ => ";",
                };
                if doubled {
                    chars.next();
                }
                tokens.push(ShellTok::Op(op));
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    tokens.extend(word.map(ShellTok::Word));
    Ok(tokens)
}

/// Drops redirections (`2>&1`, `> file`, `2> file`, `< file`) from a
/// command's words.
fn without_redirections(words: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut iter = words.iter();
    while let Some(w) = iter.next() {
        let op_len = w
            .find(|c: char| !c.is_ascii_digit())
            .filter(|&i| w[i..].starts_with(['>', '<']))
            .map(|i| i + w[i..].chars().take_while(|c| "<>&".contains(*c)).count());
        match op_len {
            Some(len) if len == w.len() => {
                iter.next();
            }
            Some(_) => {}
            None => out.push(w.clone()),
        }
    }
    out
}

fn is_filecheck(program: &str) -> bool {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program);
    name.trim_start_matches('%') == "FileCheck"
}

/// Reads one RUN command of the test at `path_name` (continuation lines
/// joined): the steps it takes, or why the test cannot be run by Lockstep
/// (`Skip`) or is malformed (`Fail`).
///
/// Commands: `split-file`, `%dxc_target` (see [`parse_dxc_flags`]),
/// `%offloader PIPELINE SHADER…` (its flags, such as `-api`, choose a
/// device and are ignored), each optionally preceded by lit's `not`, joined
/// by `&&` or `;`; `rm` and `mkdir` do nothing. A pipe into `FileCheck`
/// means the test checks printed output, which Lockstep does not produce:
/// the test is skipped, as is any other command.
pub fn parse_run_command(command: &str, path_name: &str) -> Result<Vec<Step>, TestOutcome> {
    let fail = |message: String| TestOutcome::Fail(format!("RUN: {command}: {message}"));
    if command.contains("%if") {
        return Err(TestOutcome::Skip(
            "uses lit's %if substitution, which Lockstep does not evaluate".to_string(),
        ));
    }
    let tokens = shell_words(command).map_err(fail)?;
    let substitute = |w: &String| {
        substitute(w, path_name).map_err(|e| TestOutcome::Skip(format!("a RUN line uses {e}")))
    };
    // Sequences (`&&`, `;`) of pipelines (`|`) of commands.
    let mut sequences: Vec<Vec<Vec<String>>> = vec![vec![Vec::new()]];
    for tok in tokens {
        match tok {
            ShellTok::Word(w) => sequences
                .last_mut()
                .and_then(|p| p.last_mut())
                .expect("a command")
                .push(w),
            ShellTok::Op("|") => sequences.last_mut().expect("a pipeline").push(Vec::new()),
            ShellTok::Op("&&") | ShellTok::Op(";") => sequences.push(vec![Vec::new()]),
            ShellTok::Op(op) => {
                return Err(TestOutcome::Skip(format!(
                    "a RUN line uses the shell operator '{op}'"
                )));
            }
        }
    }
    let mut steps = Vec::new();
    for pipeline in sequences {
        let filecheck = match pipeline.as_slice() {
            [_] => None,
            [first, check] if check.first().is_some_and(|p| is_filecheck(p)) => {
                let offloads = first
                    .iter()
                    .find(|w| *w != "not")
                    .is_some_and(|w| w == "%offloader");
                if !offloads {
                    return Err(TestOutcome::Skip(
                        "checks the compiler's printed output with FileCheck".to_string(),
                    ));
                }
                if first.iter().any(|w| w == "not") {
                    return Err(TestOutcome::Skip(
                        "checks the offloader's error messages with FileCheck".to_string(),
                    ));
                }
                let args: Vec<String> = check[1..]
                    .iter()
                    .map(substitute)
                    .collect::<Result<_, _>>()?;
                Some(args)
            }
            _ => {
                let piped = pipeline.iter().skip(1).find_map(|c| c.first());
                return Err(TestOutcome::Skip(format!(
                    "pipes output into '{}'",
                    piped.map_or("", String::as_str)
                )));
            }
        };
        let mut words = without_redirections(&pipeline[0]);
        let mut expect_failure = false;
        while words.first().is_some_and(|w| w == "not") {
            words.remove(0);
            expect_failure = !expect_failure;
        }
        let Some(program) = words.first().cloned() else {
            if expect_failure {
                return Err(fail("'not' with no command".to_string()));
            }
            continue;
        };
        if program.starts_with('-') && expect_failure {
            return Err(TestOutcome::Skip(format!(
                "uses 'not {program}', which Lockstep does not emulate"
            )));
        }
        let args: Vec<String> = words[1..]
            .iter()
            .map(substitute)
            .collect::<Result<_, _>>()?;
        match program.as_str() {
            "split-file" => {
                let [_, dir] = args.as_slice() else {
                    return Err(fail(
                        "split-file takes an input and a directory".to_string(),
                    ));
                };
                steps.push(Step::SplitFile {
                    dir: normalize_path(dir),
                });
            }
            "%dxc_target" => {
                let mut step = parse_dxc_flags(&args)?;
                step.expect_failure = expect_failure;
                steps.push(Step::Compile(step));
            }
            "%offloader" => {
                // The pipeline is the first `.yaml` argument (else the first
                // one not a flag); the shader objects are the words after
                // it that are not flags. The offloader's flags choose a
                // device (`-api`, …) and are ignored.
                let mut positional: Vec<String> =
                    args.into_iter().filter(|a| !a.starts_with('-')).collect();
                if positional.is_empty() {
                    return Err(fail("%offloader needs a pipeline file".to_string()));
                }
                let at = positional
                    .iter()
                    .position(|a| a.ends_with(".yaml") || a.ends_with(".yml"))
                    .unwrap_or(0);
                let shaders = positional.split_off(at + 1);
                steps.push(Step::Offload(OffloadStep {
                    pipeline: positional.swap_remove(at),
                    shaders,
                    expect_failure,
                    filecheck: filecheck.clone(),
                }));
            }
            "rm" | "mkdir" => {}
            other => {
                return Err(TestOutcome::Skip(format!(
                    "a RUN line runs '{other}', which Lockstep does not emulate"
                )));
            }
        }
    }
    Ok(steps)
}

/// Reads a `%dxc_target` command line (after the program name, lit
/// substitutions applied) with [`crate::dxc::parse_dxc_flags`]; the one
/// word that is no flag is the source file. A profile of another stage is
/// a skip; other bad flags fail the test.
pub fn parse_dxc_flags(args: &[String]) -> Result<CompileStep, TestOutcome> {
    let flags = crate::dxc::parse_dxc_flags(args).map_err(|e| match e {
        crate::dxc::DxcError::OtherStage(profile) => TestOutcome::Skip(format!(
            "compiles a '{profile}' shader: Lockstep runs compute, vertex and pixel shaders"
        )),
        crate::dxc::DxcError::Invalid(m) => TestOutcome::Fail(format!("%dxc_target: {m}")),
    })?;
    let fail = |message: String| TestOutcome::Fail(format!("%dxc_target: {message}"));
    let source = match flags.sources.as_slice() {
        [source] => normalize_path(source),
        [] => return Err(fail("no source file".to_string())),
        _ => {
            return Err(fail(format!(
                "more than one source file: {}",
                flags.sources.join(", ")
            )));
        }
    };
    Ok(CompileStep {
        options: flags.options,
        source,
        output: flags.output.as_deref().map(normalize_path),
        warnings_as_errors: flags.warnings_as_errors,
        expect_failure: false,
        ignored: flags.ignored,
    })
}

// ---------------------------------------------------------------------------
// Running a test

/// Reads the sections of a test as files under its split-file directory,
/// and other paths through the caller's loader.
struct SectionLoader<'a> {
    dir: String,
    file: &'a TestFile,
    outer: &'a dyn SourceLoader,
}

impl SectionLoader<'_> {
    fn section(&self, path: &str) -> Option<&Section> {
        let path = normalize_path(path);
        let name = path.strip_prefix(&self.dir)?.strip_prefix('/')?;
        self.file.section(name)
    }

    /// A file's text, or why it cannot be read.
    fn read(&self, path: &str, what: &str) -> Result<String, String> {
        if let Some(s) = self.section(path) {
            return Ok(s.text.clone());
        }
        if let Some(text) = self.outer.load(path) {
            return Ok(text);
        }
        let names: Vec<&str> = self.file.sections.iter().map(|s| s.name.as_str()).collect();
        let name = normalize_path(path);
        Err(
            match name
                .strip_prefix(&self.dir)
                .and_then(|n| n.strip_prefix('/'))
            {
                Some(section) => format!(
                    "the RUN lines read the {what} '{section}', but the test has no section of that name (its sections: {})",
                    names.join(", ")
                ),
                None => format!("cannot read the {what} '{path}'"),
            },
        )
    }
}

impl SourceLoader for SectionLoader<'_> {
    fn load(&self, path: &str) -> Option<String> {
        match self.section(path) {
            Some(s) => Some(s.text.clone()),
            None => self.outer.load(path),
        }
    }
}

/// A run error rendered as the CLI does: a diagnostic at its span, or
/// `error:` and `note:` lines.
fn render_run_error(shader: &Shader, e: &RunError) -> String {
    match e.span {
        Some(s) => {
            let span = Span::new(FileId(s.file), s.start, s.end);
            let mut d = Diagnostic::error(span, e.message.clone());
            d.notes = e.notes.clone();
            crate::render_diagnostics(&shader.source_map, &[d], false)
        }
        None => {
            let mut out = format!("error: {}\n", e.message);
            for n in &e.notes {
                out.push_str(&format!("note: {n}\n"));
            }
            out
        }
    }
}

/// A compile's result, kept for the `%offloader` lines after it.
struct Compiled {
    output: Option<String>,
    shader: Option<Shader>,
}

fn compile_step(step: &CompileStep, loader: &SectionLoader<'_>) -> Result<Option<Shader>, String> {
    let source = loader.read(&step.source, "source file")?;
    let shader = match crate::compile(&step.source, &source, &step.options, loader) {
        Ok(shader) => shader,
        Err(e) => return Err(e.render(false)),
    };
    if step.warnings_as_errors
        && shader
            .diagnostics
            .iter()
            .any(|d| d.severity == Severity::Warning)
    {
        let warnings = crate::render_diagnostics(&shader.source_map, &shader.diagnostics, false);
        return Err(format!("warnings are errors (-WX):\n{warnings}"));
    }
    Ok(Some(shader))
}

fn offload_step(
    step: &OffloadStep,
    loader: &SectionLoader<'_>,
    compiled: &[Compiled],
    opts: &TestOptions,
) -> Result<(), String> {
    let text = loader.read(&step.pipeline, "pipeline")?;
    let pipeline = crate::pipeline::parse(&text).map_err(|e| format!("{}:{e}", step.pipeline))?;
    // The compiles whose object the line names; with none named, the only
    // compile of the test.
    let named: Vec<&Compiled> = step
        .shaders
        .iter()
        .filter_map(|s| {
            let s = normalize_path(s);
            compiled
                .iter()
                .rev()
                .find(|c| c.output.as_deref() == Some(s.as_str()))
        })
        .collect();
    if pipeline.graphics.is_some() {
        let output = draw_step(&pipeline, &named, compiled, opts)?;
        return check_output(step, &pipeline, &output, opts);
    }
    let found = match named.as_slice() {
        [one] => Some(*one),
        [] if compiled.len() == 1 && step.shaders.is_empty() => compiled.last(),
        [] => None,
        _ => {
            return Err(
                "the %offloader line runs several shaders, and its pipeline has no graphics Bindings to draw with"
                    .to_string(),
            );
        }
    };
    let Some(found) = found else {
        return Err(format!(
            "the %offloader line runs '{}', which no %dxc_target line produced",
            step.shaders.join(" ")
        ));
    };
    let Some(shader) = &found.shader else {
        return Err("the %offloader line runs a shader that did not compile".to_string());
    };
    if let (Some(entry), Some(compiled_entry)) = (
        &pipeline.entry,
        shader
            .module
            .entry
            .as_ref()
            .map(|e| &shader.module.function(e.function).name),
    ) && entry != compiled_entry
    {
        return Err(format!(
            "the pipeline's Entry is '{entry}', but the shader was compiled for '{compiled_entry}'"
        ));
    }
    #[cfg(feature = "vulkan")]
    if let Some(device) = &opts.vulkan {
        let vulkan = crate::VulkanOptions {
            step_budget: opts.run.step_budget,
            ..crate::VulkanOptions::default()
        };
        let run = crate::run_vulkan(shader, &pipeline, device, &vulkan)
            .map_err(|e| render_run_error(shader, &e))?;
        return check_output(step, &pipeline, &run.output, opts);
    }
    let output =
        crate::run(shader, &pipeline, &opts.run).map_err(|e| render_run_error(shader, &e))?;
    check_output(step, &pipeline, &output, opts)
}

/// A draw with the vertex and pixel shaders the line names (or the test's
/// only two compiles).
fn draw_step<'p>(
    pipeline: &'p crate::pipeline::Pipeline,
    named: &[&Compiled],
    compiled: &[Compiled],
    opts: &TestOptions,
) -> Result<crate::RunOutput<'p>, String> {
    let all: Vec<&Compiled> = compiled.iter().collect();
    let candidates = if named.is_empty() { &all[..] } else { named };
    let shaders: Vec<&Shader> = candidates
        .iter()
        .filter_map(|c| c.shader.as_ref())
        .collect();
    let of = |stage: crate::ir::Stage| {
        shaders
            .iter()
            .copied()
            .find(|s| s.module.entry.as_ref().is_some_and(|e| e.stage == stage))
    };
    let (Some(vs), Some(ps)) = (of(crate::ir::Stage::Vertex), of(crate::ir::Stage::Pixel)) else {
        return Err(
            "the %offloader line draws, and needs a vertex shader (-T vs_6_x) and a pixel shader (-T ps_6_x)"
                .to_string(),
        );
    };
    crate::draw(vs, ps, pipeline, &opts.run).map_err(|e| {
        let shader = if e.stage == Some(crate::ir::Stage::Vertex) {
            vs
        } else {
            ps
        };
        render_run_error(shader, &e.error)
    })
}

/// FileCheck over the printed buffers, then the Results rules.
fn check_output(
    step: &OffloadStep,
    pipeline: &crate::pipeline::Pipeline,
    output: &crate::RunOutput<'_>,
    opts: &TestOptions,
) -> Result<(), String> {
    if let Some(args) = &step.filecheck {
        let Some(filecheck) = &opts.filecheck else {
            return Err(NO_FILECHECK.to_string());
        };
        let printed = crate::pipeline::render_buffers(
            pipeline,
            &output.contents,
            crate::pipeline::Style::Offloader,
        );
        (filecheck.0)(args, &printed).map_err(|report| format!("FileCheck failed:\n{report}"))?;
    }
    let failed: Vec<String> = output
        .outcomes
        .iter()
        .filter(|o| !o.passed)
        .map(|o| o.render())
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.concat())
    }
}

/// The failure of a FileCheck step when no way to run FileCheck was given;
/// [`run_test_file`] turns it into a skip.
const NO_FILECHECK: &str = "checks printed output with FileCheck, and no FileCheck was found";

/// Runs the steps; `Err` is the first failure.
fn run_steps(
    steps: &[Step],
    path: &str,
    file: &TestFile,
    loader: &dyn SourceLoader,
    opts: &TestOptions,
) -> Result<(), String> {
    let mut sections = SectionLoader {
        dir: normalize_path(path),
        file,
        outer: loader,
    };
    let mut compiled: Vec<Compiled> = Vec::new();
    for step in steps {
        match step {
            Step::SplitFile { dir } => sections.dir = dir.clone(),
            Step::Compile(c) => {
                let result = compile_step(c, &sections);
                let shader = match (result, c.expect_failure) {
                    (Ok(shader), false) => shader,
                    (Err(e), false) => return Err(e),
                    (Err(_), true) => None,
                    (Ok(_), true) => {
                        return Err(format!(
                            "the compile of '{}' was expected to fail ('not'), but it succeeded",
                            c.source
                        ));
                    }
                };
                compiled.push(Compiled {
                    output: c.output.clone(),
                    shader,
                });
            }
            Step::Offload(o) => match (
                offload_step(o, &sections, &compiled, opts),
                o.expect_failure,
            ) {
                (Ok(()), false) | (Err(_), true) => {}
                (Err(e), false) => return Err(e),
                (Ok(()), true) => {
                    return Err(
                        "the %offloader run was expected to fail ('not'), but every Results rule held"
                            .to_string(),
                    );
                }
            },
        }
    }
    Ok(())
}

/// Runs one `.test` file: `path_name` names it in `%s`, `%t` and
/// diagnostics; `#include`s and files outside the test's sections are read
/// through `loader`.
///
/// A test whose `REQUIRES` does not hold, whose `UNSUPPORTED` holds, or
/// that Lockstep cannot run (another stage, a FileCheck check of printed
/// output, a command it does not emulate) is skipped with the reason.
/// Compile, binding and run errors and failing `Results` rules are
/// failures; under a holding `XFAIL` a failure is expected and a pass is
/// unexpected.
pub fn run_test_file(
    path_name: &str,
    text: &str,
    loader: &dyn SourceLoader,
    opts: &TestOptions,
) -> TestOutcome {
    let file = match parse_test_file(text) {
        Ok(f) => f,
        Err(e) => return TestOutcome::Fail(e),
    };
    let features = opts.features();
    let mut missing = Vec::new();
    for clause in &file.requires {
        match eval_clause("REQUIRES", clause, &features) {
            Ok(true) => {}
            Ok(false) => missing.push(clause.as_str()),
            Err(e) => return TestOutcome::Fail(e),
        }
    }
    if !missing.is_empty() {
        return TestOutcome::Skip(format!("requires {}", missing.join(", ")));
    }
    for clause in &file.unsupported {
        match eval_clause("UNSUPPORTED", clause, &features) {
            Ok(true) => return TestOutcome::Skip(format!("unsupported: {clause}")),
            Ok(false) => {}
            Err(e) => return TestOutcome::Fail(e),
        }
    }
    let mut xfail = false;
    for clause in &file.xfail {
        match clause.as_str() {
            "*" => xfail = true,
            _ => match eval_clause("XFAIL", clause, &features) {
                Ok(holds) => xfail |= holds,
                Err(e) => return TestOutcome::Fail(e),
            },
        }
    }
    let result = plan(&file, path_name).and_then(|steps| {
        run_steps(&steps, path_name, &file, loader, opts).map_err(|e| {
            if e == NO_FILECHECK {
                TestOutcome::Skip(e)
            } else {
                TestOutcome::Fail(e.trim_end().to_string())
            }
        })
    });
    match (result, xfail) {
        (Err(TestOutcome::Skip(reason)), _) => TestOutcome::Skip(reason),
        (Ok(()), false) => TestOutcome::Pass,
        (Ok(()), true) => TestOutcome::UnexpectedPass,
        (Err(TestOutcome::Fail(reason)), true) => TestOutcome::ExpectedFail(reason),
        (Err(other), _) => other,
    }
}

/// The steps of every RUN line. Any skip wins over a malformed line.
fn plan(file: &TestFile, path_name: &str) -> Result<Vec<Step>, TestOutcome> {
    if file.run.is_empty() {
        return Err(TestOutcome::Fail("no RUN lines".to_string()));
    }
    let mut steps = Vec::new();
    let mut failure = None;
    for line in &file.run {
        match parse_run_command(&line.command, path_name) {
            Ok(s) => steps.extend(s),
            Err(TestOutcome::Fail(reason)) => {
                failure.get_or_insert(TestOutcome::Fail(format!("line {}: {reason}", line.line)));
            }
            Err(other) => return Err(other),
        }
    }
    if let Some(failure) = failure {
        return Err(failure);
    }
    if !steps
        .iter()
        .any(|s| matches!(s, Step::Compile(_) | Step::Offload(_)))
    {
        return Err(TestOutcome::Fail(
            "no %dxc_target or %offloader RUN line: nothing to run".to_string(),
        ));
    }
    Ok(steps)
}

/// How many tests passed (`PASS`, `XFAIL`), failed (`FAIL`, `XPASS`) and
/// were skipped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TestSummary {
    /// Tests that passed (`PASS` or `XFAIL`).
    pub passed: usize,
    /// Tests that failed (`FAIL` or `XPASS`).
    pub failed: usize,
    /// Tests that were skipped (`SKIP`).
    pub skipped: usize,
}

impl TestSummary {
    /// Counts `outcome` under its class.
    pub fn add(&mut self, outcome: &TestOutcome) {
        if outcome.is_pass() {
            self.passed += 1;
        } else if outcome.is_failure() {
            self.failed += 1;
        } else {
            self.skipped += 1;
        }
    }
}

impl std::fmt::Display for TestSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}
