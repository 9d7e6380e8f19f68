//! Input assembly: the vertex shader's records, and its outputs read back.

use lockstep_ir::{StageIo, VaryingKind};

use crate::{Draw, DrawError, find};

/// What fills the components an attribute does not have.
const DEFAULTS: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// A word of `kind` from one of `from`'s.
pub(crate) fn convert(word: u32, from: VaryingKind, to: VaryingKind) -> u32 {
    match (from, to) {
        (a, b) if a == b => word,
        (VaryingKind::Float, VaryingKind::Int) => f32::from_bits(word) as i32 as u32,
        (VaryingKind::Float, VaryingKind::UInt) => f32::from_bits(word) as u32,
        (VaryingKind::Int, VaryingKind::Float) => (word as i32 as f32).to_bits(),
        (VaryingKind::UInt, VaryingKind::Float) => (word as f32).to_bits(),
        _ => word,
    }
}

fn default_word(component: usize, kind: VaryingKind) -> u32 {
    let v = DEFAULTS[component.min(3)];
    match kind {
        VaryingKind::Float => v.to_bits(),
        _ => v as u32,
    }
}

/// One record per vertex: state 1, then each input by semantic.
pub(crate) fn records(draw: &Draw<'_>) -> Result<Vec<u32>, DrawError> {
    let io = draw.vertex.io;
    let n = draw.vertex_count as usize;
    let stride = io.input_words as usize;
    let len = n
        .checked_mul(stride)
        .filter(|&len| len <= (1 << 31))
        .ok_or_else(|| DrawError::new(format!("{n} vertices do not fit in memory")))?;
    let mut out = vec![0u32; len];
    for v in &io.inputs {
        let source = match v.semantic.as_str() {
            "SV_VERTEXID" | "SV_INSTANCEID" => None,
            _ => Some(
                draw.attributes
                    .iter()
                    .find(|a| a.semantic == v.semantic && a.index == v.index)
                    .ok_or_else(|| {
                        let name = if v.index == 0 {
                            v.semantic.clone()
                        } else {
                            format!("{}{}", v.semantic, v.index)
                        };
                        let have: Vec<String> = draw
                            .attributes
                            .iter()
                            .map(|a| format!("{}{}", a.semantic, if a.index == 0 { String::new() } else { a.index.to_string() }))
                            .collect();
                        DrawError::new(format!(
                            "the vertex shader reads '{name}', which no vertex attribute provides (the pipeline's VertexAttributes name {})",
                            if have.is_empty() { "none".to_string() } else { have.join(", ") }
                        ))
                    })?,
            ),
        };
        for (i, record) in out.chunks_exact_mut(stride).enumerate() {
            for c in 0..v.components as usize {
                record[v.word as usize + c] = match (source, v.semantic.as_str()) {
                    (None, "SV_VERTEXID") => i as u32,
                    (None, _) => 0,
                    (Some(a), _) if c < a.channels as usize => {
                        let word = a
                            .words
                            .get(i * a.channels as usize + c)
                            .copied()
                            .unwrap_or(0);
                        convert(word, a.kind, v.kind)
                    }
                    (Some(_), _) => default_word(c, v.kind),
                };
            }
        }
    }
    for record in out.chunks_exact_mut(stride) {
        record[0] = 1;
    }
    Ok(out)
}

/// A vertex after the vertex shader: its clip-space position and its
/// output record.
#[derive(Clone, Debug)]
pub(crate) struct Vertex {
    pub position: [f32; 4],
    pub words: Vec<u32>,
}

/// Each vertex's outputs.
pub(crate) fn outputs(io: &StageIo, out: &[u32], count: u32) -> Result<Vec<Vertex>, DrawError> {
    let stride = io.output_words as usize;
    let pos = find(&io.outputs, "SV_POSITION", 0)
        .ok_or_else(|| DrawError::new("the vertex shader writes no SV_Position"))?;
    Ok(out
        .chunks_exact(stride)
        .take(count as usize)
        .map(|rec| {
            let mut position = [0.0, 0.0, 0.0, 1.0];
            for (c, p) in position
                .iter_mut()
                .enumerate()
                .take(pos.components as usize)
            {
                *p = f32::from_bits(rec[pos.word as usize + c]);
            }
            Vertex {
                position,
                words: rec.to_vec(),
            }
        })
        .collect())
}
