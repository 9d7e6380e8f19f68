//! Renders diagnostics the way compilers do: `file:line:col: error: message`,
//! then the source line with a caret, via codespan-reporting.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Config, DisplayStyle};
use lockstep_syntax::{Diagnostic, Severity, SourceMap, Span};

fn severity(s: Severity) -> CsSeverity {
    match s {
        Severity::Error => CsSeverity::Error,
        Severity::Warning => CsSeverity::Warning,
        Severity::Note => CsSeverity::Note,
    }
}

fn range(map: &SourceMap, span: Span) -> std::ops::Range<usize> {
    let len = map.file(span.file).text.len();
    let start = (span.start as usize).min(len);
    let end = (span.end as usize).clamp(start, len);
    start..end
}

/// The most errors rendered; those after them are counted (as clang's
/// `-ferror-limit` does, most of them follow from the first).
const ERROR_LIMIT: usize = 20;

/// Renders diagnostics in order, at most [`ERROR_LIMIT`] errors. With
/// `color`, uses ANSI colours.
pub fn render_diagnostics(map: &SourceMap, diags: &[Diagnostic], color: bool) -> String {
    let mut files = SimpleFiles::new();
    for f in map.files() {
        files.add(f.name.clone(), f.text.clone());
    }
    let mut out = String::new();
    let mut errors = 0;
    for d in diags {
        if d.is_error() {
            errors += 1;
            if errors > ERROR_LIMIT {
                let left = diags.iter().filter(|d| d.is_error()).count() - ERROR_LIMIT;
                out.push_str(&format!(
                    "error: too many errors; {left} more not shown (the first are the ones to fix)\n"
                ));
                break;
            }
        }
        for site in map.include_chain(d.span.file) {
            out.push_str(&format!("in file included from {}:\n", map.location(site)));
        }
        let file = d.span.file.0 as usize;
        let mut labels = vec![Label::primary(file, range(map, d.span))];
        labels.extend(d.labels.iter().map(|(span, text)| {
            Label::secondary(span.file.0 as usize, range(map, *span)).with_message(text.clone())
        }));
        let cs = CsDiagnostic::new(severity(d.severity))
            .with_message(d.message.clone())
            .with_labels(labels)
            .with_notes(d.notes.clone());
        // The first line names the place as `#line` directives give it; the
        // excerpt below shows the real file's lines.
        let short = emit(&files, &cs, DisplayStyle::Short, color);
        let source = map.file(d.span.file);
        let (line, col) = source.line_col(d.span.start);
        let actual = format!("{}:{line}:{col}", source.name);
        out.push_str(&short.replacen(&actual, &map.location(d.span), 1));
        // The rich form adds the source excerpt; its first two lines repeat
        // the message and location that the short form already gave.
        let rich = emit(&files, &cs, DisplayStyle::Rich, color);
        for line in rich.lines().skip(2) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn emit(
    files: &SimpleFiles<String, String>,
    d: &CsDiagnostic<usize>,
    style: DisplayStyle,
    color: bool,
) -> String {
    let config = Config {
        display_style: style,
        chars: term::Chars::ascii(),
        ..Config::default()
    };
    let mut buffer = if color {
        termcolor::Buffer::ansi()
    } else {
        termcolor::Buffer::no_color()
    };
    if term::emit_to_write_style(&mut buffer, &config, files, d).is_err() {
        return format!("{}\n", d.message);
    }
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}

/// A diagnostic as `--format json` reports it: its severity, message,
/// place (file, 1-based line and column, with `#line` applied), labels and
/// notes.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DiagnosticJson {
    /// `error`, `warning` or `note`.
    pub severity: &'static str,
    /// What is wrong, lowercase with no final period.
    pub message: String,
    /// The file name, as `#line` directives give it.
    pub file: String,
    /// The line, counting from 1.
    pub line: u32,
    /// The column in characters, counting from 1.
    pub column: u32,
    /// The secondary places, each with its label.
    pub labels: Vec<LabelJson>,
    /// Free-standing notes.
    pub notes: Vec<String>,
}

/// A secondary place of a [`DiagnosticJson`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct LabelJson {
    /// The file name, as `#line` directives give it.
    pub file: String,
    /// The line, counting from 1.
    pub line: u32,
    /// The column in characters, counting from 1.
    pub column: u32,
    /// The label's text.
    pub message: String,
}

/// The diagnostics in their JSON form.
pub fn diagnostics_json(map: &SourceMap, diags: &[Diagnostic]) -> Vec<DiagnosticJson> {
    diags
        .iter()
        .map(|d| {
            let at = map.presumed_location(d.span);
            DiagnosticJson {
                severity: match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Note => "note",
                },
                message: d.message.clone(),
                file: at.name,
                line: at.line,
                column: at.col,
                labels: d
                    .labels
                    .iter()
                    .map(|(span, message)| {
                        let at = map.presumed_location(*span);
                        LabelJson {
                            file: at.name,
                            line: at.line,
                            column: at.col,
                            message: message.clone(),
                        }
                    })
                    .collect(),
                notes: d.notes.clone(),
            }
        })
        .collect()
}
