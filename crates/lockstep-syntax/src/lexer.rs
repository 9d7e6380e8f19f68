//! The lexer: source text to tokens with spans. It never fails; problems
//! (an unterminated comment or string, an invalid character, a malformed
//! number) are flags on the tokens, reported later by the preprocessor.

use std::fmt;
use std::sync::Arc;

use crate::ast::{FloatSuffix, IntSuffix};
use crate::span::{FileId, Span};

/// What sort of token a [`Token`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    /// Identifiers and keywords alike.
    Ident,
    /// An integer literal, its suffix included in the text.
    IntLit,
    /// A floating literal, its suffix included in the text.
    FloatLit,
    /// `"..."`, quotes included in the text.
    StringLit,
    /// `'...'`, quotes included in the text.
    CharLit,
    /// Operators and punctuation; the text says which.
    Punct,
    /// A character that starts no token, or an unterminated `/*` comment.
    /// Always carries an error.
    Unknown,
    /// The end of the preprocessed input.
    Eof,
}

/// The macro a token came out of, for "expanded from macro" notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MacroOrigin {
    /// The macro's name.
    pub name: String,
    /// The `#define` line.
    pub definition: Span,
}

/// One token: its kind and spelling, where it is and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What sort of token it is.
    pub kind: TokenKind,
    /// The spelling, with line continuations removed.
    pub text: String,
    /// Where the token is in an original file. A token produced by a macro
    /// expansion has the span of the macro invocation instead.
    pub span: Span,
    /// Whitespace or a comment comes before the token on its line.
    pub leading_space: bool,
    /// The token is the first of its (logical) line.
    pub line_start: bool,
    /// Boxed: errors are rare, and tokens are many.
    pub error: Option<Box<LexError>>,
    /// For a token that came out of a macro body: the outermost macro
    /// expanded at the place `span` points to.
    pub expansion: Option<Arc<MacroOrigin>>,
}

impl Token {
    /// An [`TokenKind::Eof`] token at `span`. It allocates nothing.
    pub fn eof(span: Span) -> Token {
        Token {
            kind: TokenKind::Eof,
            text: String::new(),
            span,
            leading_space: false,
            line_start: true,
            error: None,
            expansion: None,
        }
    }

    /// Whether the token is the punctuator `text`.
    pub fn is_punct(&self, text: &str) -> bool {
        self.kind == TokenKind::Punct && self.text == text
    }

    /// Whether the token is the identifier (or keyword) `text`.
    pub fn is_ident(&self, text: &str) -> bool {
        self.kind == TokenKind::Ident && self.text == text
    }
}

/// A problem found while lexing, kept on the token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LexError {
    /// A `/*` comment with no `*/` before the end of the file.
    UnterminatedComment,
    /// A string literal with no closing `"` on its line.
    UnterminatedString,
    /// A character literal with no closing `'` on its line.
    UnterminatedChar,
    /// A character that starts no token (U+FFFD for bytes that are not UTF-8).
    InvalidChar(char),
    /// A malformed numeric literal.
    Number(NumberError),
}

impl fmt::Display for LexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LexError::UnterminatedComment => f.write_str("unterminated /* comment"),
            LexError::UnterminatedString => f.write_str("missing terminating '\"' character"),
            LexError::UnterminatedChar => f.write_str("missing terminating ' character"),
            LexError::InvalidChar(c) if c.is_ascii_graphic() => {
                write!(f, "unexpected character '{c}'")
            }
            LexError::InvalidChar(char::REPLACEMENT_CHARACTER) => {
                f.write_str("bytes that are not valid UTF-8 (outside comments and #if 0 blocks, the source must be UTF-8)")
            }
            LexError::InvalidChar(c) => write!(f, "unexpected character <U+{:04X}>", *c as u32),
            LexError::Number(e) => e.fmt(f),
        }
    }
}

/// Why a numeric literal is malformed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NumberError {
    /// A digit 8 or 9 in an octal literal (one with a leading `0`).
    InvalidOctalDigit(char),
    /// An integer suffix other than `u`, `l`, `ul`, `lu`, `ll`, `ull` or `llu` (any case).
    InvalidIntSuffix(String),
    /// A floating suffix other than `f`, `h` or `l` (either case).
    InvalidFloatSuffix(String),
    /// `0x` with no digits after it.
    NoHexDigits,
    /// An integer that does not fit in 64 bits.
    TooLarge,
}

impl fmt::Display for NumberError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NumberError::InvalidOctalDigit(c) => write!(f, "invalid digit '{c}' in octal constant"),
            NumberError::InvalidIntSuffix(s) => {
                write!(f, "invalid suffix '{s}' on integer constant")
            }
            NumberError::InvalidFloatSuffix(s) => {
                write!(f, "invalid suffix '{s}' on floating constant")
            }
            NumberError::NoHexDigits => f.write_str("hexadecimal constant has no digits"),
            NumberError::TooLarge => {
                f.write_str("integer literal is too large to be represented in any integer type")
            }
        }
    }
}

/// The value of a numeric literal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NumberValue {
    /// An integer literal.
    Int {
        /// The value of the digits, in the literal's radix.
        value: u64,
        /// The suffix, which picks the literal's type.
        suffix: IntSuffix,
    },
    /// A floating literal.
    Float {
        /// The value, rounded to the nearest `f64`.
        value: f64,
        /// The suffix, which picks the literal's type.
        suffix: FloatSuffix,
    },
}

/// Lexes one file. Comments and whitespace are dropped (recorded in
/// `leading_space` / `line_start`); `\` at the end of a line joins lines.
pub fn lex(file: FileId, text: &str) -> Vec<Token> {
    Lexer::new(file, text).run()
}

/// Whether a numeric literal's spelling makes it a floating literal.
pub fn looks_like_float(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.len() > 1 && bytes[0] == b'0' && (bytes[1] | 0x20) == b'x' {
        return false;
    }
    if text.contains('.') {
        return true;
    }
    // An exponent: `e` followed by a digit, or by a sign and a digit.
    bytes.iter().enumerate().any(|(i, &b)| {
        (b | 0x20) == b'e'
            && i > 0
            && match bytes.get(i + 1) {
                Some(d) if d.is_ascii_digit() => true,
                Some(b'+' | b'-') => bytes.get(i + 2).is_some_and(u8::is_ascii_digit),
                _ => false,
            }
    })
}

/// Parses the spelling of a numeric literal.
pub fn parse_number(text: &str) -> Result<NumberValue, NumberError> {
    if looks_like_float(text) {
        parse_float(text)
    } else {
        parse_int(text)
    }
}

fn parse_int(text: &str) -> Result<NumberValue, NumberError> {
    let bytes = text.as_bytes();
    let (radix, digits_start) = if bytes.len() > 1 && bytes[0] == b'0' && (bytes[1] | 0x20) == b'x'
    {
        (16, 2)
    } else if text.starts_with('0') {
        (8, 1)
    } else {
        (10, 0)
    };
    let rest = &text[digits_start..];
    let digits_len = rest
        .find(|c: char| !c.is_digit(radix.max(10)))
        .unwrap_or(rest.len());
    let (digits, suffix) = rest.split_at(digits_len);
    if radix == 16 && digits.is_empty() {
        return Err(NumberError::NoHexDigits);
    }
    let suffix = int_suffix(suffix)?;
    let mut value: u64 = 0;
    for c in digits.chars() {
        let digit = c.to_digit(radix).ok_or(NumberError::InvalidOctalDigit(c))?;
        value = value
            .checked_mul(u64::from(radix))
            .and_then(|v| v.checked_add(u64::from(digit)))
            .ok_or(NumberError::TooLarge)?;
    }
    Ok(NumberValue::Int { value, suffix })
}

fn int_suffix(suffix: &str) -> Result<IntSuffix, NumberError> {
    Ok(match suffix.to_ascii_lowercase().as_str() {
        "" => IntSuffix::None,
        "u" => IntSuffix::U,
        "l" => IntSuffix::L,
        "ul" | "lu" => IntSuffix::UL,
        "ll" => IntSuffix::LL,
        "ull" | "llu" => IntSuffix::ULL,
        _ => return Err(NumberError::InvalidIntSuffix(suffix.to_string())),
    })
}

fn parse_float(text: &str) -> Result<NumberValue, NumberError> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    if i < bytes.len() && bytes[i] == b'.' {
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < bytes.len() && (bytes[i] | 0x20) == b'e' {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    let (number, suffix) = text.split_at(i);
    let suffix = match suffix {
        "" => FloatSuffix::None,
        "f" | "F" => FloatSuffix::F,
        "h" | "H" => FloatSuffix::H,
        "l" | "L" => FloatSuffix::L,
        _ => return Err(NumberError::InvalidFloatSuffix(suffix.to_string())),
    };
    // Rust's parser wants a digit on both sides of the point.
    let mut normal = String::with_capacity(number.len() + 2);
    if number.starts_with('.') {
        normal.push('0');
    }
    for (k, c) in number.char_indices() {
        normal.push(c);
        if c == '.' && !number[k + 1..].starts_with(|d: char| d.is_ascii_digit()) {
            normal.push('0');
        }
    }
    let value = normal
        .parse::<f64>()
        .map_err(|_| NumberError::InvalidFloatSuffix(suffix_text(text, i)))?;
    Ok(NumberValue::Float { value, suffix })
}

fn suffix_text(text: &str, at: usize) -> String {
    text.get(at..).unwrap_or("").to_string()
}

/// Punctuators, longest first within each length.
const PUNCT3: [&str; 3] = ["<<=", ">>=", "..."];
const PUNCT2: [&str; 21] = [
    "::", "##", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=",
    "/=", "%=", "&=", "|=", "^=",
];
const PUNCT1: &str = "#(){}[];,.?:~!+-*/%&|^=<>";

struct Lexer<'t> {
    file: FileId,
    /// The original text.
    text: &'t str,
    /// The characters with line continuations removed, and their byte
    /// offsets in the original text.
    chars: Vec<char>,
    offsets: Vec<u32>,
    end: u32,
    pos: usize,
    tokens: Vec<Token>,
    line_start: bool,
    leading_space: bool,
}

impl<'t> Lexer<'t> {
    fn new(file: FileId, text: &'t str) -> Lexer<'t> {
        let mut chars = Vec::with_capacity(text.len());
        let mut offsets = Vec::with_capacity(text.len());
        let mut iter = text.char_indices().peekable();
        while let Some((at, c)) = iter.next() {
            if c == '\\' {
                let rest = &text[at + 1..];
                let skip = if rest.starts_with('\n') {
                    1
                } else if rest.starts_with("\r\n") {
                    2
                } else {
                    0
                };
                if skip > 0 {
                    for _ in 0..skip {
                        iter.next();
                    }
                    continue;
                }
            }
            chars.push(c);
            offsets.push(at as u32);
        }
        Lexer {
            file,
            text,
            chars,
            offsets,
            end: text.len() as u32,
            pos: 0,
            // About one token per six bytes of source, so that the vector
            // rarely grows.
            tokens: Vec::with_capacity(text.len() / 6),
            line_start: true,
            leading_space: false,
        }
    }

    fn peek(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).copied()
    }

    fn run(mut self) -> Vec<Token> {
        while let Some(c) = self.peek(0) {
            match c {
                '\n' => {
                    self.pos += 1;
                    self.line_start = true;
                    self.leading_space = false;
                }
                ' ' | '\t' | '\r' | '\x0b' | '\x0c' => {
                    self.pos += 1;
                    self.leading_space = true;
                }
                '/' if self.peek(1) == Some('/') => {
                    while self.peek(0).is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                    self.leading_space = true;
                }
                '/' if self.peek(1) == Some('*') => self.block_comment(),
                _ => self.token(c),
            }
        }
        self.tokens
    }

    fn block_comment(&mut self) {
        let start = self.pos;
        self.pos += 2;
        loop {
            match self.peek(0) {
                None => {
                    self.pos = start + 2;
                    self.push(
                        start,
                        TokenKind::Unknown,
                        Some(LexError::UnterminatedComment),
                    );
                    self.pos = self.chars.len();
                    return;
                }
                Some('*') if self.peek(1) == Some('/') => {
                    self.pos += 2;
                    self.leading_space = true;
                    return;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    fn token(&mut self, c: char) {
        let start = self.pos;
        let next = self.peek(1);
        if c.is_ascii_digit() || (c == '.' && next.is_some_and(|d| d.is_ascii_digit())) {
            self.number(start);
        } else if c.is_ascii_alphabetic() || c == '_' {
            while self
                .peek(0)
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                self.pos += 1;
            }
            self.push(start, TokenKind::Ident, None);
        } else if c == '"' || c == '\'' {
            self.quoted(start, c);
        } else if let Some(len) = self.punct_len() {
            self.pos += len;
            self.push(start, TokenKind::Punct, None);
        } else {
            self.pos += 1;
            self.push(start, TokenKind::Unknown, Some(LexError::InvalidChar(c)));
        }
    }

    /// A C preprocessing number: digits, letters, `_`, `.`, and a sign
    /// right after an exponent letter (`e`, or `p` outside hex literals).
    fn number(&mut self, start: usize) {
        let hex = self.peek(0) == Some('0') && matches!(self.peek(1), Some('x' | 'X'));
        while let Some(c) = self.peek(0) {
            if c == '.' && self.swizzle_follows() {
                break;
            }
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                self.pos += 1;
                if !hex && matches!(c, 'e' | 'E') && matches!(self.peek(0), Some('+' | '-')) {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
        let text: String = self.chars[start..self.pos].iter().collect();
        let kind = if looks_like_float(&text) {
            TokenKind::FloatLit
        } else {
            TokenKind::IntLit
        };
        let error = parse_number(&text).err().map(LexError::Number);
        self.push(start, kind, error);
    }

    /// At a `.` inside a number: whether a swizzle follows (`1.xxx`,
    /// `2.0.rg`), which ends the number before the `.`.
    fn swizzle_follows(&self) -> bool {
        let mut len = 0;
        while let Some(c) = self.peek(1 + len) {
            if !(c.is_ascii_alphanumeric() || c == '_') {
                break;
            }
            if !"xyzwrgba".contains(c) {
                return false;
            }
            len += 1;
        }
        (1..=4).contains(&len)
    }

    fn quoted(&mut self, start: usize, quote: char) {
        self.pos += 1;
        loop {
            match self.peek(0) {
                None | Some('\n') => {
                    let (kind, error) = if quote == '"' {
                        (TokenKind::StringLit, LexError::UnterminatedString)
                    } else {
                        (TokenKind::CharLit, LexError::UnterminatedChar)
                    };
                    self.push(start, kind, Some(error));
                    return;
                }
                Some('\\') => {
                    self.pos += if self.peek(1).is_some_and(|c| c != '\n') {
                        2
                    } else {
                        1
                    }
                }
                Some(c) => {
                    self.pos += 1;
                    if c == quote {
                        let kind = if quote == '"' {
                            TokenKind::StringLit
                        } else {
                            TokenKind::CharLit
                        };
                        self.push(start, kind, None);
                        return;
                    }
                }
            }
        }
    }

    fn punct_len(&self) -> Option<usize> {
        // The next three characters as ASCII bytes (0 for anything else).
        let byte = |i| self.peek(i).filter(char::is_ascii).map_or(0, |c| c as u8);
        let next = [byte(0), byte(1), byte(2)];
        if PUNCT3.iter().any(|p| p.as_bytes() == next) {
            Some(3)
        } else if PUNCT2.iter().any(|p| p.as_bytes() == &next[..2]) {
            Some(2)
        } else if PUNCT1.as_bytes().contains(&next[0]) {
            Some(1)
        } else {
            None
        }
    }

    fn push(&mut self, start: usize, kind: TokenKind, error: Option<LexError>) {
        let end = self.pos.min(self.chars.len());
        let start_offset = self.offsets.get(start).copied().unwrap_or(self.end);
        let end_offset = match end.checked_sub(1) {
            Some(last) if last >= start => self.offsets[last] + self.chars[last].len_utf8() as u32,
            _ => start_offset,
        };
        // Without a line continuation or a multi-byte character inside,
        // the spelling is the source's own bytes.
        let chars = &self.chars[start..end];
        let text = match self.text.get(start_offset as usize..end_offset as usize) {
            Some(slice) if slice.len() == chars.len() => slice.to_string(),
            _ => chars.iter().collect(),
        };
        self.tokens.push(Token {
            kind,
            text,
            span: Span::new(self.file, start_offset, end_offset),
            leading_space: self.leading_space,
            line_start: self.line_start,
            error: error.map(Box::new),
            expansion: None,
        });
        self.line_start = false;
        self.leading_space = false;
    }
}
