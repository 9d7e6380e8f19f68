//! Diagnostics: errors, warnings and notes with spans into the source map.
//!
//! Rendering happens at the edge (the `lockstep` crate); everything before it
//! only collects [`Diagnostic`] values.

use crate::span::Span;

/// How serious a diagnostic is; the variants are ordered from least to most serious.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Information only, such as context for another diagnostic.
    Note,
    /// Something suspicious that does not stop compilation.
    Warning,
    /// A problem that makes compilation fail.
    Error,
}

/// One message about the source. `message` is lowercase with no final
/// period, like a compiler's.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Whether this is an error, a warning or a note.
    pub severity: Severity,
    /// What is wrong.
    pub message: String,
    /// Where the problem is; the caret points here.
    pub span: Span,
    /// Secondary places, each with a short label ("previous definition is here").
    pub labels: Vec<(Span, String)>,
    /// Free-standing notes printed after the source excerpt.
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, span, message)
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, span, message)
    }

    /// A note at `span`.
    pub fn note(span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Note, span, message)
    }

    fn new(severity: Severity, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity,
            message: message.into(),
            span,
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The diagnostic with a secondary place `span`, labeled `label`, added.
    pub fn with_label(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.labels.push((span, label.into()));
        self
    }

    /// The diagnostic with `note` added to its notes.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Whether the severity is [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Diagnostics collected by a pass.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    /// The diagnostics, in the order they were found.
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Adds `d` at the end.
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    /// Whether any of the diagnostics is an error.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }

    /// Adds `other`'s diagnostics at the end.
    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
    }
}
