//! The trace as one self-contained HTML page: the page's stylesheet and
//! script (`assets/trace/`) and the document's JSON, inline, so that it
//! opens from disk with no network.

use std::io::Write;

use base64::engine::general_purpose::STANDARD;

use super::TraceDocument;

const PAGE: &str = include_str!("../../assets/trace/page.html");
const STYLE: &str = include_str!("../../assets/trace/trace.css");
const SCRIPT: &str = include_str!("../../assets/trace/trace.js");

/// Writes the page showing `doc` to `out`. The document's JSON is inline,
/// gzipped and in base64: the browser's `DecompressionStream` opens it,
/// and the JSON is never held whole in memory.
pub fn write(doc: &TraceDocument, out: &mut dyn Write) -> std::io::Result<()> {
    let title = doc
        .files
        .first()
        .map_or("trace".to_string(), |f| escape(&f.name));
    let fill = |part: &str| {
        part.replace("{{title}}", &title)
            .replace("{{style}}", STYLE)
            // `</` cannot appear inside a script element.
            .replace("{{script}}", &SCRIPT.replace("</", "<\\/"))
    };
    let (head, tail) = PAGE.split_once("{{data}}").unwrap_or((PAGE, ""));
    out.write_all(fill(head).as_bytes())?;
    let base64 = base64::write::EncoderWriter::new(&mut *out, &STANDARD);
    let mut gz = flate2::write::GzEncoder::new(base64, flate2::Compression::default());
    let mut json = std::io::BufWriter::new(&mut gz);
    doc.write_json(&mut json)?;
    json.flush()?;
    drop(json);
    gz.finish()?.finish()?;
    out.write_all(fill(tail).as_bytes())
}

/// The page showing `doc`, as [`write`] writes it.
pub fn render(doc: &TraceDocument) -> String {
    let mut page = Vec::new();
    // Writing to memory cannot fail.
    let _ = write(doc, &mut page);
    String::from_utf8(page).unwrap_or_default()
}

/// `text` with HTML's special characters escaped.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
