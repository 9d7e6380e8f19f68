//! Pipelines built in Rust for the benchmarks: `UInt32` buffers and their
//! bindings.

use lockstep::pipeline::{Binding, BufferDesc, Format, Kind};

/// Little-endian bytes of `ws`.
pub fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A `UInt32` buffer holding `data`.
pub fn buffer(name: &str, data: Vec<u8>) -> BufferDesc {
    BufferDesc {
        name: name.to_string(),
        format: Format::UInt32,
        stride: None,
        channels: 1,
        array_size: 1,
        data,
        output_props: None,
    }
}

/// Buffer `name` bound as a `kind` at `register`, space 0.
pub fn binding(name: &str, kind: Kind, register: u32) -> Binding {
    Binding {
        name: name.to_string(),
        kind,
        register,
        space: 0,
        set: 0,
        vulkan_binding: None,
    }
}
