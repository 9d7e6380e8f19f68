//! Texture buffers as PNG images, as the offload-test-suite's offloader
//! writes render targets: 16-bit RGBA, each float channel
//! `clamp(floor(v · 65536), 0, 65535)`, linear (no sRGB, no gAMA chunk),
//! top row first.

use lockstep_pipeline::BufferDesc;

/// The PNG of `buffer`'s first mip level, with `bytes` as its contents.
/// Missing color channels are 0 and a missing alpha is 1; NaN is 0.
pub fn texture_png(buffer: &BufferDesc, bytes: &[u8]) -> Result<Vec<u8>, String> {
    let props = buffer.output_props.ok_or_else(|| {
        format!(
            "buffer '{}' has no OutputProps: only a texture (Width, Height) can be a PNG",
            buffer.name
        )
    })?;
    if props.depth != 1 {
        return Err(format!(
            "buffer '{}' has Depth {}: a PNG holds one 2D image",
            buffer.name, props.depth
        ));
    }
    if !buffer.format.is_float() {
        return Err(format!(
            "buffer '{}' holds {} values: a PNG is written from float texels",
            buffer.name, buffer.format
        ));
    }
    let channels = buffer.channels as usize;
    let texels = (props.width as usize) * (props.height as usize);
    let values: Vec<f64> = buffer
        .format
        .elements(bytes)
        .take(texels * channels)
        .map(|bits| buffer.format.float_value(bits).unwrap_or(0.0))
        .collect();
    if values.len() < texels * channels {
        return Err(format!(
            "buffer '{}' holds {} values, fewer than its {texels} texels of {channels} channels",
            buffer.name,
            values.len()
        ));
    }
    let quantize = |v: f64| -> u16 {
        if v.is_nan() {
            return 0;
        }
        (v * 65536.0).floor().clamp(0.0, 65535.0) as u16
    };
    let mut pixels = Vec::with_capacity(texels * 8);
    for texel in values.chunks(channels) {
        for c in 0..4 {
            let value = texel
                .get(c)
                .copied()
                .unwrap_or(if c == 3 { 1.0 } else { 0.0 });
            pixels.extend_from_slice(&quantize(value).to_be_bytes());
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, props.width, props.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Sixteen);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer
        .write_image_data(&pixels)
        .map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())?;
    Ok(out)
}
