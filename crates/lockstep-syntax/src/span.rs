//! Source files, byte spans into them and the include chain between them.

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one original source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file the bytes are in.
    pub file: FileId,
    /// The byte offset of the first byte.
    pub start: u32,
    /// The byte offset just past the last byte.
    pub end: u32,
}

impl Span {
    /// The span `start..end` in `file`.
    pub fn new(file: FileId, start: u32, end: u32) -> Span {
        Span { file, start, end }
    }

    /// The smallest span covering both; `other` must be in the same file,
    /// otherwise `self` is returned unchanged.
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// One source text as loaded (the main file, an included file, or a
/// command-line definition pseudo-file).
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name diagnostics print, as the user gave it or as resolved.
    pub name: String,
    /// The file's contents.
    pub text: String,
    /// Where this file was `#include`d from; `None` for the main file.
    pub included_from: Option<Span>,
    /// Byte offsets of line starts, for line/column lookup.
    line_starts: Vec<u32>,
    /// `#line` directives seen in this file, sorted by offset.
    line_directives: Vec<LineDirective>,
}

/// A `#line N "name"` directive: from byte `offset` on (the start of the line
/// after the directive), the line at `offset` is reported as line `line`, in
/// the file called `name` (or the file's own name when `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineDirective {
    /// Where the directive takes effect: the byte offset of the line after it.
    pub offset: u32,
    /// The line number reported for the line at `offset`.
    pub line: u32,
    /// The file name to report from `offset` on; `None` keeps the file's own name.
    pub name: Option<String>,
}

/// A location as diagnostics report it: after `#line` directives are applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresumedLoc {
    /// The file name, as the latest `#line` directive gives it or the file's own.
    pub name: String,
    /// The line, counting from 1.
    pub line: u32,
    /// The column in characters, counting from 1.
    pub col: u32,
}

impl SourceFile {
    /// A file called `name` holding `text`; `included_from` is `None` for the main file.
    pub fn new(name: String, text: String, included_from: Option<Span>) -> SourceFile {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
            .collect();
        SourceFile {
            name,
            text,
            included_from,
            line_starts,
            line_directives: Vec::new(),
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).min(self.text.len());
        let col = self
            .text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count());
        (line as u32 + 1, col as u32 + 1)
    }

    /// Byte offsets of the line starts, the first being 0.
    pub fn line_starts(&self) -> &[u32] {
        &self.line_starts
    }

    /// The `#line` directives seen in this file, sorted by offset.
    pub fn line_directives(&self) -> &[LineDirective] {
        &self.line_directives
    }

    /// Records a `#line` directive taking effect at `offset`. A directive
    /// without a name keeps the name set by an earlier one.
    pub fn add_line_directive(&mut self, offset: u32, line: u32, name: Option<String>) {
        let name = name.or_else(|| {
            self.line_directives
                .iter()
                .rev()
                .find(|d| d.offset <= offset)
                .and_then(|d| d.name.clone())
        });
        let at = self.line_directives.partition_point(|d| d.offset <= offset);
        self.line_directives
            .insert(at, LineDirective { offset, line, name });
    }

    /// Name, line and column of a byte offset with `#line` directives
    /// applied.
    pub fn presumed(&self, offset: u32) -> PresumedLoc {
        let (line, col) = self.line_col(offset);
        let index = self.line_directives.partition_point(|d| d.offset <= offset);
        let Some(directive) = index.checked_sub(1).map(|i| &self.line_directives[i]) else {
            return PresumedLoc {
                name: self.name.clone(),
                line,
                col,
            };
        };
        let (directive_line, _) = self.line_col(directive.offset);
        PresumedLoc {
            name: directive.name.clone().unwrap_or_else(|| self.name.clone()),
            line: directive.line.saturating_add(line - directive_line),
            col,
        }
    }
}

/// All files of one compilation.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Adds a file and gives back its id.
    pub fn add(
        &mut self,
        name: impl Into<String>,
        text: impl Into<String>,
        included_from: Option<Span>,
    ) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files
            .push(SourceFile::new(name.into(), text.into(), included_from));
        id
    }

    /// The file with id `id`; panics for an id from another map.
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// Like [`SourceMap::file`], but `None` for an id from another map.
    pub fn get(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// Records a `#line` directive; see [`SourceFile::add_line_directive`].
    pub fn add_line_directive(
        &mut self,
        file: FileId,
        offset: u32,
        line: u32,
        name: Option<String>,
    ) {
        if let Some(f) = self.files.get_mut(file.0 as usize) {
            f.add_line_directive(offset, line, name);
        }
    }

    /// The location diagnostics report for the span's start, with `#line`
    /// directives applied.
    pub fn presumed_location(&self, span: Span) -> PresumedLoc {
        self.file(span.file).presumed(span.start)
    }

    /// All files, indexed by their ids.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// `name:line:col` of the span's start, as changed by `#line`
    /// directives (the span itself stays a byte range of the real file).
    pub fn location(&self, span: Span) -> String {
        let loc = self.presumed_location(span);
        format!("{}:{}:{}", loc.name, loc.line, loc.col)
    }

    /// The `#include` sites leading to `file`, innermost first.
    pub fn include_chain(&self, file: FileId) -> Vec<Span> {
        let mut chain = Vec::new();
        let mut current = self.file(file).included_from;
        while let Some(site) = current {
            chain.push(site);
            current = self.file(site.file).included_from;
            if chain.len() > 256 {
                break;
            }
        }
        chain
    }
}
