//! The serde view of a pipeline file. Checks that concern a single value or
//! a single buffer happen here, inside the visitors, so that their errors
//! carry the location serde_norway attaches.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::format::Format;
use crate::named::{ByName, Named};
use crate::{BufferDesc, OutputProps};

/// The largest buffer a `FillSize` may ask for.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;

/// The D3D12 limit on each dispatch group count.
pub const MAX_GROUP_COUNT: u64 = 65535;

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", expecting = "a pipeline mapping")]
pub(crate) struct RawDocument {
    #[serde(default)]
    pub shaders: Vec<RawShader>,
    pub dispatch_parameters: Option<RawDispatchParameters>,
    #[serde(default)]
    pub buffers: Vec<RawBuffer>,
    #[serde(default)]
    pub results: Vec<RawResult>,
    #[serde(default)]
    pub descriptor_sets: Vec<RawDescriptorSet>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", expecting = "a shader mapping")]
pub(crate) struct RawShader {
    pub stage: Option<String>,
    pub entry: Option<String>,
    pub dispatch_size: Option<GroupCount>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", expecting = "a DispatchParameters mapping")]
pub(crate) struct RawDispatchParameters {
    pub dispatch_group_count: Option<GroupCount>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", expecting = "a result mapping")]
pub(crate) struct RawResult {
    pub result: String,
    pub rule: ByName<RuleName>,
    #[serde(rename = "ULPT")]
    pub ulpt: Option<u64>,
    pub epsilon: Option<f64>,
    pub actual: String,
    pub expected: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", expecting = "a descriptor set mapping")]
pub(crate) struct RawDescriptorSet {
    #[serde(default)]
    pub resources: Vec<RawResource>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", expecting = "a resource mapping")]
pub(crate) struct RawResource {
    pub name: String,
    pub kind: ByName<crate::Kind>,
    #[serde(rename = "DirectXBinding")]
    pub directx_binding: RawDirectXBinding,
    pub vulkan_binding: Option<RawVulkanBinding>,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", expecting = "a DirectXBinding mapping")]
pub(crate) struct RawDirectXBinding {
    pub register: u32,
    #[serde(default)]
    pub space: u32,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase", expecting = "a VulkanBinding mapping")]
pub(crate) struct RawVulkanBinding {
    pub binding: u32,
}

/// `OutputProps`: a buffer's texture size, keys in any order.
#[derive(Deserialize)]
#[serde(
    rename_all = "PascalCase",
    deny_unknown_fields,
    expecting = "an OutputProps mapping"
)]
pub(crate) struct RawOutputProps {
    pub height: u32,
    pub width: u32,
    #[serde(default = "one")]
    pub depth: u32,
}

fn one() -> u32 {
    1
}

/// The rule names of `Results`; their parameters are read separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RuleName {
    Exact,
    FloatUlp,
    FloatEpsilon,
}

impl Named for RuleName {
    const WHAT: &'static str = "rule";
    const ALL: &'static [Self] = &[RuleName::Exact, RuleName::FloatUlp, RuleName::FloatEpsilon];

    fn name(self) -> &'static str {
        match self {
            RuleName::Exact => "BufferExact",
            RuleName::FloatUlp => "BufferFloatULP",
            RuleName::FloatEpsilon => "BufferFloatEpsilon",
        }
    }
}

/// Three group counts, each within 1 to [`MAX_GROUP_COUNT`].
pub(crate) struct GroupCount(pub [u32; 3]);

impl<'de> Deserialize<'de> for GroupCount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_seq(GroupCountVisitor)
    }
}

struct GroupCountVisitor;

impl<'de> Visitor<'de> for GroupCountVisitor {
    type Value = GroupCount;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of three group counts")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<GroupCount, A::Error> {
        let mut counts = [0; 3];
        let mut len = 0;
        while let Some(Count(count)) = seq.next_element()? {
            if let Some(slot) = counts.get_mut(len) {
                *slot = count;
            }
            len += 1;
        }
        if len != counts.len() {
            return Err(de::Error::invalid_length(len, &self));
        }
        Ok(GroupCount(counts))
    }
}

struct Count(u32);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CountVisitor)
    }
}

struct CountVisitor;

impl Visitor<'_> for CountVisitor {
    type Value = Count;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a group count")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Count, E> {
        match v {
            0 => Err(E::custom("group count 0 must be at least 1")),
            1..=MAX_GROUP_COUNT => Ok(Count(v as u32)),
            _ => Err(E::custom(format!(
                "group count {v} exceeds the D3D12 limit of {MAX_GROUP_COUNT}"
            ))),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::custom(format!("group count {v} must be at least 1"))),
        }
    }
}

/// A buffer description, checked as a whole once its mapping ends.
pub(crate) struct RawBuffer(pub BufferDesc);

impl<'de> Deserialize<'de> for RawBuffer {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(BufferVisitor).map(RawBuffer)
    }
}

struct BufferVisitor;

impl<'de> Visitor<'de> for BufferVisitor {
    type Value = BufferDesc;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a buffer mapping")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BufferDesc, A::Error> {
        let mut fields = BufferFields::default();
        while let Some(key) = map.next_key::<String>()? {
            fields.read(&key, &mut map)?;
        }
        fields.finish().map_err(de::Error::custom)
    }
}

/// The keys of a buffer mapping, as read so far. Values are kept as text
/// until the format is known; when `Format` precedes them they are also
/// checked as they are read, so that errors point at the value.
#[derive(Default)]
struct BufferFields {
    name: Option<String>,
    format: Option<Format>,
    stride: Option<u32>,
    channels: Option<u32>,
    data: Option<Vec<String>>,
    fill_size: Option<u64>,
    fill_value: Option<String>,
    output_props: Option<RawOutputProps>,
}

impl BufferFields {
    fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
        match key {
            "Name" => set_once(&mut self.name, key, map.next_value()?),
            "Format" => set_once(&mut self.format, key, map.next_value::<ByName<_>>()?.0),
            "Stride" => set_once(&mut self.stride, key, map.next_value()?),
            "Channels" => set_once(&mut self.channels, key, map.next_value()?),
            "Data" => {
                let data = map.next_value_seed(DataSeed(self.context()))?;
                set_once(&mut self.data, key, data)
            }
            "FillSize" => set_once(&mut self.fill_size, key, map.next_value()?),
            "FillValue" => {
                let value = map.next_value_seed(self.context())?;
                set_once(&mut self.fill_value, key, value)
            }
            "OutputProps" => set_once(&mut self.output_props, key, map.next_value()?),
            _ => map.next_value::<IgnoredAny>().map(drop),
        }
    }

    fn context(&self) -> ValueContext<'_> {
        ValueContext {
            format: self.format,
            buffer: self.name.as_deref(),
        }
    }

    fn finish(self) -> Result<BufferDesc, String> {
        let name = self.name.ok_or("buffer without a Name")?;
        let fail = |message: String| format!("buffer `{name}`: {message}");
        let format = self.format.ok_or_else(|| fail("no Format".into()))?;
        let channels = self.channels.unwrap_or(1);
        if !(1..=4).contains(&channels) {
            return Err(fail(format!("Channels {channels} is not within 1 to 4")));
        }
        if self.stride == Some(0) {
            return Err(fail("Stride must be at least 1".into()));
        }
        let data =
            initial_data(format, self.data, self.fill_size, self.fill_value).map_err(fail)?;
        let output_props = self
            .output_props
            .map(|p| output_props(p, format, channels, data.len()))
            .transpose()
            .map_err(fail)?;
        Ok(BufferDesc {
            name,
            format,
            stride: self.stride,
            channels,
            data,
            output_props,
        })
    }
}

/// Checks `OutputProps` against the data: Width × Height × Depth texels of
/// `Format` × `Channels` bytes each.
fn output_props(
    raw: RawOutputProps,
    format: Format,
    channels: u32,
    len: usize,
) -> Result<OutputProps, String> {
    let props = OutputProps {
        width: raw.width,
        height: raw.height,
        depth: raw.depth,
    };
    for (key, value) in [
        ("Width", props.width),
        ("Height", props.height),
        ("Depth", props.depth),
    ] {
        if value == 0 {
            return Err(format!("OutputProps {key} must be at least 1"));
        }
    }
    let texel = format.size() as u64 * u64::from(channels);
    let need = props.texels().saturating_mul(texel);
    if need != len as u64 {
        return Err(format!(
            "OutputProps {}x{}x{} (Width x Height x Depth) texels of {texel} bytes ({format} x {channels} channels) take {need} bytes, but the data holds {len}",
            props.width, props.height, props.depth
        ));
    }
    Ok(props)
}

fn set_once<T, E: de::Error>(slot: &mut Option<T>, key: &str, value: T) -> Result<(), E> {
    if slot.replace(value).is_some() {
        return Err(E::custom(format!("duplicate key `{key}`")));
    }
    Ok(())
}

/// The initial bytes from either `Data` or `FillSize` and `FillValue`.
fn initial_data(
    format: Format,
    data: Option<Vec<String>>,
    fill_size: Option<u64>,
    fill_value: Option<String>,
) -> Result<Vec<u8>, String> {
    match (data, fill_size) {
        (Some(_), Some(_)) => Err("both Data and FillSize given".into()),
        (None, None) => Err("neither Data nor FillSize given".into()),
        (Some(_), None) if fill_value.is_some() => Err("FillValue without FillSize".into()),
        (Some(texts), None) => {
            let mut bytes = Vec::with_capacity(texts.len() * format.size());
            for (index, text) in texts.iter().enumerate() {
                let bits = format
                    .encode(text)
                    .map_err(|m| format!("Data element {index}: {m}"))?;
                format.write_bits(bits, &mut bytes);
            }
            Ok(bytes)
        }
        (None, Some(size)) => fill(format, size, fill_value.as_deref().unwrap_or("0")),
    }
}

fn fill(format: Format, size: u64, value: &str) -> Result<Vec<u8>, String> {
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
    let bits = format
        .encode(value)
        .map_err(|m| format!("FillValue: {m}"))?;
    let mut one = Vec::new();
    format.write_bits(bits, &mut one);
    Ok(one.repeat((size / element) as usize))
}

/// What is known when a value is read, for checking it at once. Errors
/// raised here carry the value's location and its path (`Data[2]`), so they
/// only need to add the buffer name.
#[derive(Clone, Copy)]
struct ValueContext<'a> {
    format: Option<Format>,
    buffer: Option<&'a str>,
}

impl ValueContext<'_> {
    fn check<E: de::Error>(&self, text: &str) -> Result<(), E> {
        let Some(format) = self.format else {
            return Ok(());
        };
        format
            .encode(text)
            .map(drop)
            .map_err(|message| match self.buffer {
                Some(buffer) => E::custom(format!("buffer `{buffer}`: {message}")),
                None => E::custom(message),
            })
    }
}

/// Reads one value as text, checking it when the format is known.
impl<'de> DeserializeSeed<'de> for ValueContext<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for ValueContext<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a data value")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<String, E> {
        self.check(text)?;
        Ok(text.to_owned())
    }
}

/// Reads the `Data` list as texts.
struct DataSeed<'a>(ValueContext<'a>);

impl<'de> DeserializeSeed<'de> for DataSeed<'_> {
    type Value = Vec<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<String>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for DataSeed<'_> {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of data values")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
        let mut texts = Vec::new();
        while let Some(text) = seq.next_element_seed(self.0)? {
            texts.push(text);
        }
        Ok(texts)
    }
}
