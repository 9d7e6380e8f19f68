//! A reader for the YAML of pipeline files, read the way LLVM's YAML parser
//! reads them: block and flow collections, plain and quoted scalars and
//! comments, with the line and column of every node.
//!
//! Two things set it apart from a general YAML library. LLVM's parser skips
//! empty entries in a flow sequence (`[0, 0,, 15.5]` holds three values),
//! and upstream files rely on that. And flow sequences are not turned into
//! nodes while the document is read: a [`Flow`] remembers where its `[`
//! stands and [`Flow::items`] reads it item by item, so that a `Data` list
//! of millions of values is decoded straight into bytes.
//!
//! Anchors, aliases, tags, block scalars and multi-line plain scalars are
//! not part of the pipeline format; they are errors that say so.

use std::borrow::Cow;

use crate::error::{Location, PipelineError};

/// How deeply flow collections may nest.
const MAX_FLOW_DEPTH: usize = 64;

/// A node of the document with the location of its first character.
#[derive(Clone, Debug)]
pub(crate) struct Node<'a> {
    pub at: Location,
    pub value: Value<'a>,
}

#[derive(Clone, Debug)]
pub(crate) enum Value<'a> {
    /// No value: `Key:` with nothing after it, or an empty document.
    Empty,
    Scalar(Cow<'a, str>),
    /// A block sequence (`- item` lines).
    Seq(Vec<Node<'a>>),
    /// A flow sequence (`[a, b]`), read with [`Flow::items`].
    Flow(Flow<'a>),
    /// A block or flow mapping, in file order.
    Map(Vec<(Node<'a>, Node<'a>)>),
}

impl Value<'_> {
    /// What the value is, for messages ("a sequence").
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Empty => "nothing",
            Value::Scalar(_) => "a scalar",
            Value::Seq(_) | Value::Flow(_) => "a sequence",
            Value::Map(_) => "a mapping",
        }
    }
}

/// A flow sequence, kept as the place of its `[` in the text.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Flow<'a> {
    start: Cursor<'a>,
    depth: usize,
    /// The byte just past its `]`.
    end: usize,
}

impl<'a> Flow<'a> {
    /// The bytes of the text from its `[` to its `]`, both included.
    pub fn byte_range(&self) -> std::ops::Range<usize> {
        self.start.pos..self.end
    }

    /// The items in order, empty entries skipped. Each item is read when
    /// the iterator reaches it; a syntax error ends the iteration.
    pub fn items(&self) -> FlowItems<'a> {
        let mut cursor = self.start;
        cursor.bump(); // `[`
        FlowItems {
            cursor,
            opened: self.start.location(),
            depth: self.depth,
            done: false,
        }
    }
}

/// The items of a [`Flow`].
pub(crate) struct FlowItems<'a> {
    cursor: Cursor<'a>,
    opened: Location,
    depth: usize,
    done: bool,
}

impl<'a> FlowItems<'a> {
    fn step(&mut self) -> Result<Option<Node<'a>>, PipelineError> {
        let c = &mut self.cursor;
        loop {
            c.skip_flow_space();
            match c.peek() {
                // LLVM's parser skips an entry with nothing in it.
                Some(b',') => c.bump(),
                Some(b']') => {
                    c.bump();
                    return Ok(None);
                }
                None => {
                    return Err(PipelineError::at(
                        self.opened,
                        "this `[` is never closed".to_string(),
                    ));
                }
                Some(_) => break,
            }
        }
        let node = c.flow_node(self.depth)?;
        c.skip_flow_space();
        match c.peek() {
            Some(b',') => c.bump(),
            Some(b']') => {}
            None => {
                return Err(PipelineError::at(
                    self.opened,
                    "this `[` is never closed".to_string(),
                ));
            }
            Some(_) => return Err(c.error("expected `,` or `]` after a sequence item")),
        }
        Ok(Some(node))
    }
}

impl<'a> Iterator for FlowItems<'a> {
    type Item = Result<Node<'a>, PipelineError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.step().transpose();
        if !matches!(item, Some(Ok(_))) {
            self.done = true;
        }
        item
    }
}

/// Reads a whole document: an optional `---`, one node, an optional `...`.
/// A leading byte-order mark is skipped.
pub(crate) fn parse_document(text: &str) -> Result<Node<'_>, PipelineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut c = Cursor::new(text);
    let mut node = Node {
        at: c.location(),
        value: Value::Empty,
    };
    let first = c.next_content_line()?;
    if c.at_marker("---") {
        c.pos += 3;
        node.at = c.location();
        c.skip_inline_space();
        if c.at_line_end() {
            if let Some(indent) = c.next_content_line()? {
                node = c.block_node(indent, true)?;
            }
        } else {
            let column = c.column() - 1;
            node = c.block_node(column, false)?;
        }
    } else if let Some(indent) = first {
        node = c.block_node(indent, true)?;
    }
    if c.next_content_line()?.is_some() {
        return Err(c.error("unexpected text after the document's value"));
    }
    if c.at_marker("---") {
        return Err(c.error("a second document: a pipeline file holds one"));
    }
    if c.at_marker("...") {
        c.pos += 3;
        if c.next_content_line()?.is_some() || c.at_marker("---") || c.at_marker("...") {
            return Err(c.error("unexpected text after the end of the document"));
        }
    }
    Ok(node)
}

/// A place in the text. Columns are counted in bytes from 1.
#[derive(Clone, Copy, Debug)]
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    line: usize,
    line_start: usize,
    /// Block collections open around the cursor.
    depth: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Cursor {
            text,
            pos: 0,
            line: 1,
            line_start: 0,
            depth: 0,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.text.as_bytes().get(self.pos + offset).copied()
    }

    /// Moves past one byte, keeping count of lines.
    fn bump(&mut self) {
        if self.peek() == Some(b'\n') {
            self.line += 1;
            self.line_start = self.pos + 1;
        }
        self.pos += 1;
    }

    fn column(&self) -> usize {
        self.pos - self.line_start + 1
    }

    fn location(&self) -> Location {
        Location {
            line: self.line,
            column: self.column(),
        }
    }

    fn error(&self, message: impl Into<String>) -> PipelineError {
        PipelineError::at(self.location(), message.into())
    }

    fn skip_inline_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }

    /// At a line break, a comment or the end of the text.
    fn at_line_end(&self) -> bool {
        matches!(self.peek(), None | Some(b'\n' | b'#'))
    }

    /// After a value: only spaces and a comment may follow on its line.
    fn end_of_line(&mut self) -> Result<(), PipelineError> {
        self.skip_inline_space();
        if self.peek() == Some(b'#') {
            self.skip_to_line_end();
        }
        match self.peek() {
            None | Some(b'\n') => Ok(()),
            Some(_) => Err(self.error(format!(
                "unexpected `{}` after the value",
                self.rest_of_line().trim_end()
            ))),
        }
    }

    fn skip_to_line_end(&mut self) {
        let rest = &self.text.as_bytes()[self.pos..];
        self.pos += rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    }

    fn rest_of_line(&self) -> &'a str {
        let rest = &self.text[self.pos..];
        &rest[..rest.find('\n').unwrap_or(rest.len())]
    }

    /// Whether the cursor, at the start of a line, stands on a document
    /// marker (`---` or `...` followed by a space or the line's end).
    fn at_marker(&self, marker: &str) -> bool {
        self.pos == self.line_start
            && self.text[self.pos..].starts_with(marker)
            && matches!(self.peek_at(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
    }

    /// Moves to the first character of the next line holding something
    /// other than spaces and a comment, and returns its indentation; `None`
    /// at the end of the text or at a document marker. Unless the cursor
    /// stands at the start of a line, the rest of its line must be blank.
    /// Every node is read up to the end of its last line, so that this
    /// call moves on from it.
    fn next_content_line(&mut self) -> Result<Option<usize>, PipelineError> {
        if self.pos != self.line_start {
            self.end_of_line()?;
        }
        loop {
            match self.peek() {
                None => return Ok(None),
                Some(b'\n') => self.bump(),
                Some(_) => {}
            }
            if self.pos == self.line_start && (self.at_marker("---") || self.at_marker("...")) {
                return Ok(None);
            }
            while self.peek() == Some(b' ') {
                self.pos += 1;
            }
            match self.peek() {
                Some(b'#') => self.skip_to_line_end(),
                Some(b'\r' | b'\n') | None => self.skip_inline_space(),
                Some(b'\t') => {
                    let rest = self.rest_of_line().trim();
                    if rest.is_empty() || rest.starts_with('#') {
                        self.skip_to_line_end();
                    } else {
                        return Err(self.error("a tab in indentation: YAML indents with spaces"));
                    }
                }
                Some(_) => return Ok(Some(self.column() - 1)),
            }
        }
    }

    /// The value after `key:` or `- `, which may stand on this line or on
    /// the lines below, indented more than `parent`. `same_indent_seq`: a
    /// block sequence at the parent's own indentation is the value (as
    /// YAML allows for a mapping's values).
    fn block_value(
        &mut self,
        parent: usize,
        same_indent_seq: bool,
    ) -> Result<Node<'a>, PipelineError> {
        self.skip_inline_space();
        let at = self.location();
        if !self.at_line_end() {
            let column = self.column() - 1;
            return self.block_node(column, !same_indent_seq);
        }
        let saved = *self;
        match self.next_content_line()? {
            Some(indent)
                if indent > parent || (same_indent_seq && indent == parent && self.at_dash()) =>
            {
                self.block_node(indent, true)
            }
            _ => {
                // The value is empty: leave the cursor on the line below
                // the key for the caller.
                *self = saved;
                Ok(Node {
                    at,
                    value: Value::Empty,
                })
            }
        }
    }

    /// A `-` that starts a block sequence item.
    fn at_dash(&self) -> bool {
        self.peek() == Some(b'-') && matches!(self.peek_at(1), None | Some(b' ' | b'\n' | b'\r'))
    }

    /// The node starting at the cursor, whose first character stands at
    /// `indent` (0-based). `collections`: a block mapping or sequence may
    /// start here.
    fn block_node(&mut self, indent: usize, collections: bool) -> Result<Node<'a>, PipelineError> {
        let at = self.location();
        if collections && self.at_dash() {
            return self.block_sequence(indent);
        }
        match self.peek() {
            Some(b'[' | b'{') => {
                let node = self.flow_node(0)?;
                self.end_of_line()?;
                Ok(node)
            }
            Some(b'&' | b'*' | b'!') => {
                Err(self.error("anchors, aliases and tags are not part of the pipeline format"))
            }
            Some(b'|' | b'>') => {
                Err(self.error("block scalars (`|`, `>`) are not part of the pipeline format"))
            }
            _ => {
                let start = *self;
                let key = self.scalar(Context::Block)?;
                self.skip_inline_space();
                if self.peek() == Some(b':') && self.colon_ends_key() {
                    if !collections {
                        return Err(self.error(
                            "a mapping cannot start on the same line as its key: move it to a line of its own",
                        ));
                    }
                    *self = start;
                    return self.block_mapping(indent);
                }
                self.end_of_line()?;
                Ok(Node { at, value: key })
            }
        }
    }

    /// A `:` followed by a space or the end of the line.
    fn colon_ends_key(&self) -> bool {
        matches!(self.peek_at(1), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
    }

    /// Enters a block collection: an error past [`MAX_FLOW_DEPTH`] open
    /// ones (each is a level of recursion).
    fn enter_block(&mut self) -> Result<(), PipelineError> {
        if self.depth >= MAX_FLOW_DEPTH {
            return Err(self.error(format!(
                "block collections nested more than {MAX_FLOW_DEPTH} deep"
            )));
        }
        self.depth += 1;
        Ok(())
    }

    fn block_mapping(&mut self, indent: usize) -> Result<Node<'a>, PipelineError> {
        self.enter_block()?;
        let at = self.location();
        let mut entries = Vec::new();
        loop {
            let key_at = self.location();
            if self.at_dash() {
                return Err(self.error("a sequence item where a mapping key was expected"));
            }
            let key = match self.peek() {
                Some(b'[' | b'{') => {
                    return Err(self.error("a mapping key must be a scalar"));
                }
                _ => self.scalar(Context::Block)?,
            };
            self.skip_inline_space();
            if !(self.peek() == Some(b':') && self.colon_ends_key()) {
                return Err(self.error(
                    "expected `:` after a mapping key (a scalar cannot continue on the lines below)",
                ));
            }
            self.bump();
            let value = self.block_value(indent, true)?;
            entries.push((
                Node {
                    at: key_at,
                    value: key,
                },
                value,
            ));
            if !self.continues(indent, false)? {
                break;
            }
        }
        self.depth -= 1;
        Ok(Node {
            at,
            value: Value::Map(entries),
        })
    }

    fn block_sequence(&mut self, indent: usize) -> Result<Node<'a>, PipelineError> {
        self.enter_block()?;
        let at = self.location();
        let mut items = Vec::new();
        loop {
            self.bump(); // `-`
            items.push(self.block_value(indent, false)?);
            if !self.continues(indent, true)? {
                break;
            }
        }
        self.depth -= 1;
        Ok(Node {
            at,
            value: Value::Seq(items),
        })
    }

    /// Whether the next content line continues the block collection at
    /// `indent` (with a `- ` for a sequence): the cursor moves to it, or
    /// stays at the end of the collection's last line. Deeper indentation
    /// is an error; a line less indented, or a sequence's parent
    /// mapping's next key, ends the collection.
    fn continues(&mut self, indent: usize, sequence: bool) -> Result<bool, PipelineError> {
        let saved = *self;
        match self.next_content_line()? {
            Some(next) if next == indent && (!sequence || self.at_dash()) => Ok(true),
            Some(next) if next > indent => {
                Err(self
                    .error("unexpected indentation (a scalar cannot continue on the lines below)"))
            }
            _ => {
                *self = saved;
                Ok(false)
            }
        }
    }

    /// A scalar in block or flow context: quoted, or plain up to the end of
    /// the line, a comment, a `: ` and, in flow context, `,`, `]` and `}`.
    fn scalar(&mut self, context: Context) -> Result<Value<'a>, PipelineError> {
        match self.peek() {
            Some(b'"') => self.double_quoted(),
            Some(b'\'') => self.single_quoted(),
            _ => Ok(Value::Scalar(Cow::Borrowed(self.plain(context)))),
        }
    }

    fn plain(&mut self, context: Context) -> &'a str {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let mut end = start;
        while let Some(&b) = bytes.get(self.pos) {
            let stop = match b {
                b'\n' => true,
                b'#' => self.pos > start && matches!(bytes[self.pos - 1], b' ' | b'\t'),
                b':' => {
                    matches!(
                        bytes.get(self.pos + 1),
                        None | Some(b' ' | b'\t' | b'\r' | b'\n')
                    ) || (context == Context::Flow
                        && matches!(bytes.get(self.pos + 1), Some(b',' | b']' | b'}')))
                }
                b',' | b']' | b'}' | b'[' | b'{' => context == Context::Flow,
                _ => false,
            };
            if stop {
                break;
            }
            self.pos += 1;
            if !matches!(b, b' ' | b'\t' | b'\r') {
                end = self.pos;
            }
        }
        self.pos = end.max(start);
        &self.text[start..end]
    }

    fn double_quoted(&mut self) -> Result<Value<'a>, PipelineError> {
        let opened = self.location();
        self.bump();
        let start = self.pos;
        let mut owned: Option<String> = None;
        loop {
            let Some(b) = self.peek() else {
                return Err(PipelineError::at(
                    opened,
                    "this `\"` is never closed".to_string(),
                ));
            };
            match b {
                b'"' => {
                    let value = match owned {
                        Some(s) => Cow::Owned(s),
                        None => Cow::Borrowed(&self.text[start..self.pos]),
                    };
                    self.bump();
                    return Ok(Value::Scalar(value));
                }
                b'\\' => {
                    let text = owned.get_or_insert_with(|| self.text[start..self.pos].to_owned());
                    self.bump();
                    let escaped = self.escape()?;
                    text.push(escaped);
                }
                b'\n' => {
                    return Err(self.error("a quoted scalar must end on its own line"));
                }
                _ => {
                    let ch = self.text[self.pos..].chars().next().unwrap_or('\0');
                    if let Some(text) = &mut owned {
                        text.push(ch);
                    }
                    self.pos += ch.len_utf8();
                }
            }
        }
    }

    fn escape(&mut self) -> Result<char, PipelineError> {
        let Some(b) = self.peek() else {
            return Err(self.error("an escape at the end of the text"));
        };
        self.bump();
        let hex = |c: &mut Self, digits: usize| {
            let text = c.text.get(c.pos..c.pos + digits).unwrap_or("");
            let value = u32::from_str_radix(text, 16)
                .ok()
                .filter(|_| text.len() == digits)
                .and_then(char::from_u32)
                .ok_or_else(|| c.error(format!("invalid escape: expected {digits} hex digits")))?;
            c.pos += digits;
            Ok(value)
        };
        Ok(match b {
            b'0' => '\0',
            b'a' => '\x07',
            b'b' => '\x08',
            b't' | b'\t' => '\t',
            b'n' => '\n',
            b'v' => '\x0b',
            b'f' => '\x0c',
            b'r' => '\r',
            b'e' => '\x1b',
            b' ' => ' ',
            b'"' => '"',
            b'/' => '/',
            b'\\' => '\\',
            b'x' => hex(self, 2)?,
            b'u' => hex(self, 4)?,
            b'U' => hex(self, 8)?,
            _ => {
                self.pos -= 1;
                return Err(self.error(format!("unknown escape `\\{}`", char::from(b))));
            }
        })
    }

    fn single_quoted(&mut self) -> Result<Value<'a>, PipelineError> {
        let opened = self.location();
        self.bump();
        let mut text = String::new();
        loop {
            match self.peek() {
                None => {
                    return Err(PipelineError::at(
                        opened,
                        "this `'` is never closed".to_string(),
                    ));
                }
                Some(b'\'') if self.peek_at(1) == Some(b'\'') => {
                    text.push('\'');
                    self.pos += 2;
                }
                Some(b'\'') => {
                    self.bump();
                    return Ok(Value::Scalar(Cow::Owned(text)));
                }
                Some(b'\n') => return Err(self.error("a quoted scalar must end on its own line")),
                Some(_) => {
                    let ch = self.text[self.pos..].chars().next().unwrap_or('\0');
                    text.push(ch);
                    self.pos += ch.len_utf8();
                }
            }
        }
    }

    /// Spaces, line breaks and comments inside a flow collection.
    fn skip_flow_space(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(&b) = bytes.get(self.pos) {
            match b {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\n' => self.bump(),
                b'#' => self.skip_to_line_end(),
                _ => break,
            }
        }
    }

    /// A node inside a flow collection (or a flow collection in block
    /// context). A nested flow sequence is read through once to find its
    /// end, and kept as a [`Flow`].
    fn flow_node(&mut self, depth: usize) -> Result<Node<'a>, PipelineError> {
        if depth >= MAX_FLOW_DEPTH {
            return Err(self.error(format!(
                "flow collections nested more than {MAX_FLOW_DEPTH} deep"
            )));
        }
        let at = self.location();
        match self.peek() {
            Some(b'[') => {
                let start = *self;
                self.skip_flow()?;
                let flow = Flow {
                    start,
                    depth: depth + 1,
                    end: self.pos,
                };
                Ok(Node {
                    at,
                    value: Value::Flow(flow),
                })
            }
            Some(b'{') => self.flow_mapping(depth + 1),
            Some(b'&' | b'*' | b'!') => {
                Err(self.error("anchors, aliases and tags are not part of the pipeline format"))
            }
            _ => Ok(Node {
                at,
                value: self.scalar(Context::Flow)?,
            }),
        }
    }

    /// Moves past the flow collection that starts at the cursor, keeping
    /// count of lines, without reading its items: they are read (and
    /// their errors reported) when the collection is used. Quotes and
    /// comments are skipped whole, so brackets inside them do not count.
    fn skip_flow(&mut self) -> Result<(), PipelineError> {
        let opened = self.location();
        let open = char::from(self.text.as_bytes()[self.pos]);
        let bytes = self.text.as_bytes();
        let mut depth = 0usize;
        loop {
            // Most bytes of a long list are digits, signs, commas and
            // spaces: step over them a table lookup at a time.
            while bytes
                .get(self.pos)
                .is_some_and(|&b| !FLOW_SPECIAL[usize::from(b)])
            {
                self.pos += 1;
            }
            let Some(&b) = bytes.get(self.pos) else {
                break;
            };
            match b {
                b'[' | b'{' => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Err(self.error(format!(
                            "flow collections nested more than {MAX_FLOW_DEPTH} deep"
                        )));
                    }
                }
                b']' | b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        self.pos += 1;
                        return Ok(());
                    }
                }
                b'\n' => {
                    self.line += 1;
                    self.line_start = self.pos + 1;
                }
                b'#' if matches!(
                    bytes.get(self.pos.wrapping_sub(1)),
                    Some(b' ' | b'\t' | b'\n')
                ) =>
                {
                    self.skip_to_line_end();
                    continue;
                }
                // A quote starts a quoted scalar only where an item starts.
                b'"' | b'\'' if starts_item(&bytes[..self.pos]) => {
                    let quote = b;
                    self.pos += 1;
                    while let Some(&c) = bytes.get(self.pos) {
                        match c {
                            b'\\' if quote == b'"' => self.pos += 1,
                            b'\n' => break,
                            c if c == quote => break,
                            _ => {}
                        }
                        self.pos += 1;
                    }
                }
                _ => {}
            }
            self.pos += 1;
        }
        Err(PipelineError::at(
            opened,
            format!("this `{open}` is never closed"),
        ))
    }

    fn flow_mapping(&mut self, depth: usize) -> Result<Node<'a>, PipelineError> {
        let at = self.location();
        let unclosed = || PipelineError::at(at, "this `{` is never closed".to_string());
        self.bump(); // `{`
        let mut entries = Vec::new();
        loop {
            self.skip_flow_space();
            match self.peek() {
                Some(b',') => {
                    self.bump();
                    continue;
                }
                Some(b'}') => {
                    self.bump();
                    break;
                }
                None => return Err(unclosed()),
                Some(_) => {}
            }
            let key_at = self.location();
            let key = self.scalar(Context::Flow)?;
            self.skip_flow_space();
            let value = if self.peek() == Some(b':') {
                self.bump();
                self.skip_flow_space();
                if matches!(self.peek(), Some(b',' | b'}')) {
                    Node {
                        at: self.location(),
                        value: Value::Empty,
                    }
                } else {
                    self.flow_node(depth)?
                }
            } else {
                Node {
                    at: self.location(),
                    value: Value::Empty,
                }
            };
            entries.push((
                Node {
                    at: key_at,
                    value: key,
                },
                value,
            ));
            self.skip_flow_space();
            match self.peek() {
                Some(b',') => self.bump(),
                Some(b'}') => {}
                None => return Err(unclosed()),
                Some(_) => return Err(self.error("expected `,` or `}` after a mapping entry")),
            }
        }
        Ok(Node {
            at,
            value: Value::Map(entries),
        })
    }
}

/// The bytes [`Cursor::skip_flow`] stops at.
const FLOW_SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let special = *b"[]{}\"'#\n";
    let mut i = 0;
    while i < special.len() {
        table[special[i] as usize] = true;
        i += 1;
    }
    table
};

/// Whether a flow item starts after `before`: its last byte that is not a
/// space opens a collection or ends an entry or a key.
fn starts_item(before: &[u8]) -> bool {
    matches!(
        before
            .iter()
            .rev()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n')),
        Some(b'[' | b',' | b'{' | b':') | None
    )
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Block,
    Flow,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The document as compact text: `{k: v}`, `[a]`, `~` for empty, with
    /// each node's line and column where `located` is set. Flow sequences
    /// are read here, so their errors surface here.
    fn show(node: &Node<'_>, located: bool, out: &mut String) -> Result<(), PipelineError> {
        if located {
            out.push_str(&format!("@{}:{}", node.at.line, node.at.column));
        }
        match &node.value {
            Value::Empty => out.push('~'),
            Value::Scalar(s) => out.push_str(&format!("{s:?}")),
            Value::Seq(items) => {
                out.push_str("-[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    show(item, located, out)?;
                }
                out.push(']');
            }
            Value::Flow(flow) => {
                out.push('[');
                for (i, item) in flow.items().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    show(&item?, located, out)?;
                }
                out.push(']');
            }
            Value::Map(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    show(k, located, out)?;
                    out.push_str(": ");
                    show(v, located, out)?;
                }
                out.push('}');
            }
        }
        Ok(())
    }

    fn read(text: &str) -> String {
        let mut out = String::new();
        match parse_document(text).and_then(|node| show(&node, false, &mut out)) {
            Ok(()) => out,
            Err(e) => format!("error {e}"),
        }
    }

    fn read_located(text: &str) -> String {
        let mut out = String::new();
        let node = parse_document(text).expect("parses");
        show(&node, true, &mut out).expect("reads");
        out
    }

    #[test]
    fn block_collections() {
        assert_eq!(
            read("---\nA: 1\nB:\n  - x\n  - y: 2\n    z: 3\nC:\n- 4\nD:\n...\n"),
            r#"{"A": "1", "B": -["x", {"y": "2", "z": "3"}], "C": -["4"], "D": ~}"#
        );
        assert_eq!(
            read("- - a\n  - b\n-\n  c: d\n- \n"),
            r#"-[-["a", "b"], {"c": "d"}, ~]"#
        );
    }

    #[test]
    fn comments_and_blank_lines() {
        assert_eq!(
            read("# top\n\nA: 1 # one\n  # indented comment\n\nB: [ 1, # one\n  2 ]\n"),
            r#"{"A": "1", "B": ["1", "2"]}"#
        );
        assert_eq!(read("A: a#b\n"), r#"{"A": "a#b"}"#);
    }

    #[test]
    fn flow_collections_skip_empty_entries() {
        assert_eq!(
            read("D: [0, 0,, 15.5]\nE: [,]\nF: [[1, 2], [3,, 4]]\n"),
            r#"{"D": ["0", "0", "15.5"], "E": [], "F": [["1", "2"], ["3", "4"]]}"#
        );
        // Brackets and comment signs inside quotes, a quote inside a word.
        assert_eq!(
            read("A: [\"a]b\", 'c''d#', it's, x # ] comment\n , y]\n"),
            r#"{"A": ["a]b", "c'd#", "it's", "x", "y"]}"#
        );
        assert_eq!(
            read("M: { Height: 2, Width: 3, }\nN: {}\n"),
            r#"{"M": {"Height": "2", "Width": "3"}, "N": {}}"#
        );
    }

    #[test]
    fn quoted_scalars() {
        assert_eq!(
            read(
                r#"A: "x: \"y\"\t\u00e9"
B: 'it''s # no comment'
"C D": 1
"#
            ),
            r#"{"A": "x: \"y\"\té", "B": "it's # no comment", "C D": "1"}"#
        );
    }

    #[test]
    fn locations() {
        assert_eq!(
            read_located("A:\n  - B: [ 1,\n       2 ]\n"),
            r#"@1:1{@1:1"A": @2:3-[@2:5{@2:5"B": @2:8[@2:10"1", @3:8"2"]}]}"#
        );
    }

    #[test]
    fn errors() {
        assert_eq!(read("A: [1, 2\n"), "error 1:4: this `[` is never closed");
        assert_eq!(
            read("A: [a, b}\n"),
            "error 1:9: expected `,` or `]` after a sequence item"
        );
        assert_eq!(
            read("A: 1\n  B: 2\n"),
            "error 2:3: unexpected indentation (a scalar cannot continue on the lines below)"
        );
        assert_eq!(
            read("A:\n\tB: 2\n"),
            "error 2:1: a tab in indentation: YAML indents with spaces"
        );
        assert_eq!(
            read("A: &x 1\n"),
            "error 1:4: anchors, aliases and tags are not part of the pipeline format"
        );
        assert_eq!(
            read("A: 1\n---\nB: 2\n"),
            "error 2:1: a second document: a pipeline file holds one"
        );
        assert_eq!(
            read("A: 1\n...\nB: 2\n"),
            "error 3:1: unexpected text after the end of the document"
        );
        assert_eq!(
            read("A: \"x\n"),
            "error 1:6: a quoted scalar must end on its own line"
        );
        assert_eq!(
            read("A: [1] x\n"),
            "error 1:8: unexpected `x` after the value"
        );
        let deep = format!("A: {}{}\n", "[".repeat(100), "]".repeat(100));
        assert!(read(&deep).contains("nested more than 64 deep"));
        // Block collections too: a sequence of sequences 20,000 deep.
        let deep_block = "- ".repeat(20_000) + "1\n";
        assert!(read(&deep_block).contains("block collections nested more than 64 deep"));
    }

    #[test]
    fn documents() {
        assert_eq!(read(""), "~");
        assert_eq!(read("# only a comment\n"), "~");
        assert_eq!(read("\u{feff}---\nA: 1\n...\n"), r#"{"A": "1"}"#);
        assert_eq!(read("--- [1, 2]\n"), r#"["1", "2"]"#);
        assert_eq!(read("A: 1\r\nB: 2\r\n"), r#"{"A": "1", "B": "2"}"#);
    }
}
