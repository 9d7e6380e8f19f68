//! Source files, byte spans into them and the include chain between them.

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one original source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
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
    pub text: String,
    /// Where this file was `#include`d from; `None` for the main file.
    pub included_from: Option<Span>,
    /// Byte offsets of line starts, for line/column lookup.
    line_starts: Vec<u32>,
}

impl SourceFile {
    pub fn new(name: String, text: String, included_from: Option<Span>) -> SourceFile {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
            .collect();
        SourceFile {
            name,
            text,
            included_from,
            line_starts,
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

    pub fn line_starts(&self) -> &[u32] {
        &self.line_starts
    }
}

/// All files of one compilation.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, name: impl Into<String>, text: impl Into<String>, included_from: Option<Span>) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files
            .push(SourceFile::new(name.into(), text.into(), included_from));
        id
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// `name:line:col` of the span's start.
    pub fn location(&self, span: Span) -> String {
        let file = self.file(span.file);
        let (line, col) = file.line_col(span.start);
        format!("{}:{}:{}", file.name, line, col)
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
