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
    "OutputProps",
    "ArraySize",
    "Counter",
];
const OUTPUT_PROPS_KEYS: &[&str] = &["Height", "Width", "Depth", "MipLevels"];

/// Reads one entry of `Buffers`, with the location of its mapping.
pub(crate) fn buffer(
    node: &Node<'_>,
    path: &Path,
) -> Result<(BufferDesc, Location), PipelineError> {
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
    let data = match (
        fields.get_with_path("Data"),
        fields.read("FillSize", read::uint64)?,
    ) {
        (Some(_), Some(_)) => return Err(fail("both Data and FillSize given".into())),
        (None, None) => return Err(fail("neither Data nor FillSize given".into())),
        (Some(_), None) if fields.get("FillValue").is_some() => {
            return Err(fail("FillValue without FillSize".into()));
        }
        (Some((node, path)), None) => array_data(node, &path, context, array_size)?,
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
            output_props(node, &path, format, channels, data.len()).map_err(|e| {
                match e.location {
                    Some(_) => e,
                    None => fail(e.message),
                }
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
    ))
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
    len: usize,
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
    let texel = format.size() as u64 * u64::from(channels);
    let need = props.all_texels().saturating_mul(texel);
    if need != len as u64 {
        let mips = if mip_levels > 1 {
            format!(" in {mip_levels} mip levels")
        } else {
            String::new()
        };
        return Err(PipelineError::new(format!(
            "OutputProps {width}x{height}x{depth} (Width x Height x Depth) texels{mips} of {texel} bytes ({format} x {channels} channels) take {need} bytes, but the data holds {len}"
        )));
    }
    Ok(props)
}
