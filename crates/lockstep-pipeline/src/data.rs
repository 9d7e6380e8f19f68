//! The entries of `Buffers`: their keys, and their `Data` decoded from the
//! text straight into little-endian bytes, one value at a time, so that a
//! large list costs its bytes and not a node per value.

use crate::error::{Location, PipelineError};
use crate::format::Format;
use crate::read::{self, Fields, Path};
use crate::yaml::{Node, Value};
use crate::{BufferDesc, OutputProps};

/// The largest buffer a `FillSize` may ask for.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;

const BUFFER_KEYS: &[&str] = &[
    "Name",
    "Format",
    "Stride",
    "Channels",
    "Data",
    "FillSize",
    "FillValue",
    "ZeroInitSize",
    "OutputProps",
    "ArraySize",
    "Counter",
];
const OUTPUT_PROPS_KEYS: &[&str] = &["Height", "Width", "Depth", "MipLevels"];

/// A `Data` list left in the file to be decoded after the document is read
/// ([`crate::parse_file`]): a large flow list of one resource's values.
#[derive(Clone, Debug)]
pub(crate) struct Deferred {
    /// The list's bytes in the file, `[` and `]` included.
    pub range: std::ops::Range<usize>,
    /// Where its `[` stands.
    pub at: Location,
    /// The `Data` key's path, for messages.
    pub path: Path,
}

/// Lists of more text than this are deferred when deferring is asked for.
pub(crate) const DEFER_BYTES: usize = 1 << 20;

/// Reads one entry of `Buffers`, with the location of its mapping. With
/// `defer`, a large `Data` flow list is not decoded but returned, and the
/// buffer's data is left empty (its `OutputProps` unchecked against it).
pub(crate) fn buffer(
    node: &Node<'_>,
    path: &Path,
    defer: bool,
) -> Result<(BufferDesc, Location, Option<Deferred>), PipelineError> {
    let fields = Fields::new(node, path.clone(), BUFFER_KEYS)?;
    let name = fields
        .read("Name", read::string)?
        .ok_or_else(|| path.error(fields.at, "buffer without a Name"))?;
    let fail = |message: String| path.error(fields.at, format!("buffer `{name}`: {message}"));
    let format: Format = fields
        .read("Format", read::name)?
        .ok_or_else(|| fail("no Format".into()))?;
    let channels = fields.read("Channels", read::uint32)?.unwrap_or(1);
    if !(1..=4).contains(&channels) {
        return Err(fail(format!("Channels {channels} is not within 1 to 4")));
    }
    let stride = fields.read("Stride", read::uint32)?;
    if stride == Some(0) {
        return Err(fail("Stride must be at least 1".into()));
    }
    let array_size = fields.read("ArraySize", read::uint32)?.unwrap_or(1);
    if array_size == 0 {
        return Err(fail("ArraySize must be at least 1".into()));
    }
    fields.read("Counter", read::boolean)?;
    let context = ValueContext {
        format,
        buffer: &name,
    };
    let mut deferred = None;
    // `ZeroInitSize: n`, the older spelling of `FillSize: n` with zeros.
    let zero_init = fields.read("ZeroInitSize", read::uint64)?;
    let fill_size = match (fields.read("FillSize", read::uint64)?, zero_init) {
        (Some(_), Some(_)) => {
            return Err(fail("both FillSize and ZeroInitSize given".into()));
        }
        (fill, zero) => fill.or(zero),
    };
    if zero_init.is_some() && fields.get("FillValue").is_some() {
        return Err(fail(
            "ZeroInitSize fills with zeros: use FillSize with FillValue".into(),
        ));
    }
    let data = match (fields.get_with_path("Data"), fill_size) {
        (Some(_), Some(_)) => return Err(fail("both Data and FillSize given".into())),
        (None, None) => return Err(fail("neither Data nor FillSize given".into())),
        (Some(_), None) if fields.get("FillValue").is_some() => {
            return Err(fail("FillValue without FillSize".into()));
        }
        (Some((node, path)), None) => match &node.value {
            Value::Flow(flow)
                if defer && array_size == 1 && flow.byte_range().len() > DEFER_BYTES =>
            {
                deferred = Some(Deferred {
                    range: flow.byte_range(),
                    at: node.at,
                    path,
                });
                Vec::new()
            }
            _ => array_data(node, &path, context, array_size)?,
        },
        (None, Some(size)) => {
            let value = match fields.get_with_path("FillValue") {
                Some((node, path)) => context.encode(read::text(node, &path)?, node.at, &path)?,
                None => 0,
            };
            if array_size > 1 && u64::from(array_size).saturating_mul(size) > MAX_BUFFER_BYTES {
                return Err(fail(format!(
                    "FillSize {size} for each of {array_size} resources exceeds the limit of {MAX_BUFFER_BYTES} bytes"
                )));
            }
            fill(format, size, value)
                .map_err(&fail)?
                .repeat(array_size as usize)
        }
    };
    let output_props = match fields.get_with_path("OutputProps") {
        Some((node, path)) => Some(
            output_props(
                node,
                &path,
                format,
                channels,
                // An `ArraySize` buffer holds one texture per element.
                deferred
                    .is_none()
                    .then_some(data.len() / array_size.max(1) as usize),
            )
            .map_err(|e| match e.location {
                Some(_) => e,
                None => fail(e.message),
            })?,
        ),
        None => None,
    };
    Ok((
        BufferDesc {
            name,
            format,
            stride,
            channels,
            array_size,
            data,
            output_props,
        },
        fields.at,
        deferred,
    ))
}

/// Checks a deferred buffer's `OutputProps` against its decoded data.
pub(crate) fn check_deferred_props(buffer: &BufferDesc) -> Result<(), PipelineError> {
    match buffer.output_props {
        Some(props) => texel_bytes(
            props,
            buffer.format,
            buffer.channels,
            buffer.data.len() / buffer.array_size.max(1) as usize,
        )
        .map_err(|m| PipelineError::new(format!("buffer `{}`: {m}", buffer.name))),
        None => Ok(()),
    }
}

/// What a value is checked against: the buffer's format, and its name for
/// messages.
#[derive(Clone, Copy)]
struct ValueContext<'a> {
    format: Format,
    buffer: &'a str,
}

impl ValueContext<'_> {
    fn encode(&self, text: &str, at: Location, path: &Path) -> Result<u64, PipelineError> {
        self.format
            .encode(text)
            .map_err(|message| path.error(at, format!("buffer `{}`: {message}", self.buffer)))
    }
}

/// `Data` of a buffer of `array_size` resources: a list of values, or for
/// an array a list of one list per resource, all of one length.
fn array_data(
    node: &Node<'_>,
    path: &Path,
    context: ValueContext<'_>,
    array_size: u32,
) -> Result<Vec<u8>, PipelineError> {
    let mut bytes = Vec::new();
    if array_size == 1 {
        values(node, path, context, &mut bytes)?;
        return Ok(bytes);
    }
    let lists = read::items(node, path)?;
    if lists.len() != array_size as usize {
        return Err(path.error(
            node.at,
            format!(
                "buffer `{}`: ArraySize {array_size} needs {array_size} lists of values, found {}",
                context.buffer,
                lists.len()
            ),
        ));
    }
    let mut first_len = None;
    for (list, path) in &lists {
        if !matches!(list.value, Value::Seq(_) | Value::Flow(_)) {
            return Err(path.error(
                list.at,
                format!("expected a list of values, found {}", list.value.kind()),
            ));
        }
        let before = bytes.len();
        values(list, path, context, &mut bytes)?;
        let len = bytes.len() - before;
        if *first_len.get_or_insert(len) != len {
            return Err(path.error(
                list.at,
                format!(
                    "buffer `{}`: the resources of an array hold the same number of values",
                    context.buffer
                ),
            ));
        }
    }
    Ok(bytes)
}

/// Appends the values of a list to `bytes`. Nested lists are flattened.
fn values(
    node: &Node<'_>,
    path: &Path,
    context: ValueContext<'_>,
    bytes: &mut Vec<u8>,
) -> Result<(), PipelineError> {
    let mut value = |index: usize, item: &Node<'_>| -> Result<(), PipelineError> {
        match &item.value {
            Value::Scalar(text) => {
                // The element's path is only spelled out for an error.
                let bits = context.format.encode(text).map_err(|message| {
                    path.index(index)
                        .error(item.at, format!("buffer `{}`: {message}", context.buffer))
                })?;
                context.format.write_bits(bits, bytes);
                Ok(())
            }
            Value::Seq(_) | Value::Flow(_) => values(item, &path.index(index), context, bytes),
            other => Err(path.index(index).error(
                item.at,
                format!("expected a data value, found {}", other.kind()),
            )),
        }
    };
    match &node.value {
        Value::Flow(flow) => {
            for (index, item) in flow.items().enumerate() {
                value(index, &item?)?;
            }
            Ok(())
        }
        Value::Seq(items) => {
            for (index, item) in items.iter().enumerate() {
                value(index, item)?;
            }
            Ok(())
        }
        Value::Empty => Ok(()),
        other => Err(path.error(
            node.at,
            format!("expected a list of data values, found {}", other.kind()),
        )),
    }
}

fn fill(format: Format, size: u64, bits: u64) -> Result<Vec<u8>, String> {
    if size > MAX_BUFFER_BYTES {
        return Err(format!(
            "FillSize {size} exceeds the limit of {MAX_BUFFER_BYTES} bytes"
        ));
    }
    let element = format.size() as u64;
    if !size.is_multiple_of(element) {
        return Err(format!(
            "FillSize {size} is not a multiple of the {format} element size {element}"
        ));
    }
    let mut one = Vec::new();
    format.write_bits(bits, &mut one);
    Ok(one.repeat((size / element) as usize))
}

/// `OutputProps`, checked against the data: the texels of every mip level
/// (each level half the size of the one before, at least 1), of `Format` ×
/// `Channels` bytes each.
fn output_props(
    node: &Node<'_>,
    path: &Path,
    format: Format,
    channels: u32,
    len: Option<usize>,
) -> Result<OutputProps, PipelineError> {
    let fields = Fields::new(node, path.clone(), OUTPUT_PROPS_KEYS)?;
    let mut sizes = [0u32; 4];
    for (size, key) in sizes
        .iter_mut()
        .zip(["Width", "Height", "Depth", "MipLevels"])
    {
        *size = match fields.read(key, read::uint32)? {
            Some(0) => {
                return Err(PipelineError::new(format!(
                    "OutputProps {key} must be at least 1"
                )));
            }
            Some(value) => value,
            None if matches!(key, "Depth" | "MipLevels") => 1,
            None => {
                return Err(fields
                    .require(key)
                    .err()
                    .unwrap_or_else(|| PipelineError::new(format!("OutputProps without {key}"))));
            }
        };
    }
    let [width, height, depth, mip_levels] = sizes;
    let props = OutputProps {
        width,
        height,
        depth,
        mip_levels,
    };
    if let Some(len) = len {
        texel_bytes(props, format, channels, len).map_err(PipelineError::new)?;
    }
    Ok(props)
}

/// Whether `len` bytes are exactly the texels `props` give.
fn texel_bytes(
    props: OutputProps,
    format: Format,
    channels: u32,
    len: usize,
) -> Result<(), String> {
    let OutputProps {
        width,
        height,
        depth,
        mip_levels,
    } = props;
    let texel = format.size() as u64 * u64::from(channels);
    let need = props.all_texels().saturating_mul(texel);
    // With mip levels, a 3D texture's depth shrinks too (an array's
    // slices do not); which one the buffer is, the binding tells.
    let volume = (0..mip_levels.min(32))
        .map(|level| {
            let side = |size: u32| u64::from((size >> level).max(1));
            side(width) * side(height) * side(depth)
        })
        .sum::<u64>()
        .saturating_mul(texel);
    if need != len as u64 && !(mip_levels > 1 && depth > 1 && volume == len as u64) {
        let mips = if mip_levels > 1 {
            format!(" in {mip_levels} mip levels")
        } else {
            String::new()
        };
        return Err(format!(
            "OutputProps {width}x{height}x{depth} (Width x Height x Depth) texels{mips} of {texel} bytes ({format} x {channels} channels) take {need} bytes, but the data holds {len}"
        ));
    }
    Ok(())
}

/// A failure to read the pipeline file a second time.
fn reread(e: std::io::Error) -> PipelineError {
    PipelineError::new(format!("cannot read the pipeline file again: {e}"))
}

/// Decodes a deferred `Data` list from `file`, reading it a piece at a
/// time, into `buffer`'s data. A list with nested lists, comments or
/// quotes is read whole and decoded as any other.
pub(crate) fn decode_deferred(
    file: &mut std::fs::File,
    deferred: &Deferred,
    buffer: &mut BufferDesc,
) -> Result<(), PipelineError> {
    use std::io::{Read, Seek, SeekFrom};
    // The items between `[` and `]`.
    let inner = (deferred.range.start + 1) as u64..(deferred.range.end - 1) as u64;
    file.seek(SeekFrom::Start(inner.start)).map_err(reread)?;
    let mut reader = file.take(inner.end - inner.start);
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 1 << 20];
    let mut pending: Vec<u8> = Vec::new();
    // Where the text being read stands: line, and the byte its line starts at.
    let (mut line, mut line_start) = (
        deferred.at.line,
        inner.start as i64 - deferred.at.column as i64,
    );
    let mut offset = inner.start as i64;
    let mut index = 0usize;
    loop {
        let n = reader.read(&mut chunk).map_err(reread)?;
        let last = n == 0;
        pending.extend_from_slice(&chunk[..n]);
        // Decode every item that a comma ends (all of them at the end).
        let cut = if last {
            pending.len()
        } else {
            match pending.iter().rposition(|&b| b == b',') {
                Some(at) => at + 1,
                None => continue,
            }
        };
        let (done, rest) = pending.split_at(cut);
        if done
            .iter()
            .any(|b| matches!(b, b'[' | b']' | b'{' | b'}' | b'#' | b'"' | b'\''))
        {
            return decode_whole(file, deferred, buffer);
        }
        let text = std::str::from_utf8(done).map_err(|_| {
            PipelineError::at(deferred.at, "the Data list is not valid UTF-8".to_string())
        })?;
        let mut at = 0usize;
        for item in text.split(',') {
            let value = item.trim();
            if !value.is_empty() {
                match buffer.format.encode(value) {
                    Ok(bits) => buffer.format.write_bits(bits, &mut bytes),
                    Err(message) => {
                        // The item's place, worked out only for the message.
                        let start = at + (item.len() - item.trim_start().len());
                        let before = &text[..start];
                        let newlines = before.bytes().filter(|&b| b == b'\n').count();
                        let column = match before.rfind('\n') {
                            Some(nl) => start - nl,
                            None => (offset + start as i64 - line_start + 1).max(1) as usize,
                        };
                        let location = Location {
                            line: line + newlines,
                            column,
                        };
                        return Err(deferred
                            .path
                            .index(index)
                            .error(location, format!("buffer `{}`: {message}", buffer.name)));
                    }
                }
                index += 1;
            }
            at += item.len() + 1;
        }
        // The line the next piece starts on.
        let newlines = text.bytes().filter(|&b| b == b'\n').count();
        if newlines > 0 {
            line += newlines;
            line_start = offset + text.rfind('\n').map_or(0, |nl| nl as i64 + 1);
        }
        offset += done.len() as i64;
        pending = rest.to_vec();
        if last {
            break;
        }
    }
    buffer.data = bytes;
    Ok(())
}

/// A deferred list read whole and decoded as the document reader does,
/// its places kept: the text is padded to the list's line and column.
fn decode_whole(
    file: &mut std::fs::File,
    deferred: &Deferred,
    buffer: &mut BufferDesc,
) -> Result<(), PipelineError> {
    use std::io::{Read, Seek, SeekFrom};
    file.seek(SeekFrom::Start(deferred.range.start as u64))
        .map_err(reread)?;
    let mut list = vec![0u8; deferred.range.len()];
    file.read_exact(&mut list).map_err(reread)?;
    let list = String::from_utf8(list).map_err(|_| {
        PipelineError::at(deferred.at, "the Data list is not valid UTF-8".to_string())
    })?;
    let mut text = "\n".repeat(deferred.at.line.saturating_sub(1));
    text.push_str(&" ".repeat(deferred.at.column.saturating_sub(1)));
    text.push_str(&list);
    let node = crate::yaml::parse_document(&text)?;
    let context = ValueContext {
        format: buffer.format,
        buffer: &buffer.name,
    };
    let mut bytes = Vec::new();
    values(&node, &deferred.path, context, &mut bytes)?;
    buffer.data = bytes;
    Ok(())
}
