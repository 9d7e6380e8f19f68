//! Primitive assembly, clipping and the viewport transform.

use crate::vertex::Vertex;
use crate::{Draw, Topology};

/// How far past the viewport, in viewport widths, a triangle may reach
/// before it is clipped at the sides (the guard band).
const GUARD_BAND: f64 = 16.0;

/// A vertex on the render target.
#[derive(Clone, Debug)]
pub(crate) struct ScreenVertex {
    /// Pixels from the left edge.
    pub x: f64,
    /// Pixels from the top edge.
    pub y: f64,
    /// Depth, 0 (near) to 1 (far).
    pub z: f64,
    /// 1 / w.
    pub inv_w: f64,
    /// The vertex shader's output words read as floats (meaningful for
    /// the float outputs only).
    pub attrs: Vec<f64>,
}

/// A triangle on the render target.
#[derive(Clone, Debug)]
pub(crate) struct Triangle {
    pub v: [ScreenVertex; 3],
    /// Clockwise on the target: front-facing.
    pub front: bool,
    /// The primitive it was clipped from (`SV_PrimitiveID`).
    pub primitive: u32,
    /// The leading vertex's output words (for `nointerpolation`).
    pub flat: std::sync::Arc<Vec<u32>>,
}

/// A vertex in clip space while clipping.
#[derive(Clone, Debug)]
struct ClipVertex {
    pos: [f64; 4],
    attrs: Vec<f64>,
}

impl ClipVertex {
    fn lerp(&self, other: &ClipVertex, t: f64) -> ClipVertex {
        ClipVertex {
            pos: std::array::from_fn(|i| self.pos[i] + t * (other.pos[i] - self.pos[i])),
            attrs: self
                .attrs
                .iter()
                .zip(&other.attrs)
                .map(|(a, b)| a + t * (b - a))
                .collect(),
        }
    }
}

/// The clip planes, as the signed distance of a clip-space position.
fn planes() -> [fn(&[f64; 4]) -> f64; 7] {
    [
        |p| p[2],                     // near: z >= 0
        |p| p[3] - p[2],              // far: z <= w
        |p| p[3] - 1e-12,             // w > 0
        |p| GUARD_BAND * p[3] - p[0], // x <= G w
        |p| GUARD_BAND * p[3] + p[0], // x >= -G w
        |p| GUARD_BAND * p[3] - p[1], // y <= G w
        |p| GUARD_BAND * p[3] + p[1], // y >= -G w
    ]
}

/// The vertex indices of each primitive.
fn primitives(topology: Topology, count: u32) -> Vec<[usize; 3]> {
    let n = count as usize;
    match topology {
        Topology::TriangleList => (0..n / 3).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect(),
        Topology::TriangleStrip => (0..n.saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [i, i + 1, i + 2]
                } else {
                    [i, i + 2, i + 1]
                }
            })
            .collect(),
    }
}

/// The draw's triangles on the render target, clipped.
pub(crate) fn triangles(draw: &Draw<'_>, vertices: &[Vertex]) -> Vec<Triangle> {
    let (w, h) = (f64::from(draw.target.width), f64::from(draw.target.height));
    let mut out = Vec::new();
    for (primitive, idx) in primitives(draw.topology, draw.vertex_count)
        .into_iter()
        .enumerate()
    {
        let clip: Vec<ClipVertex> = idx
            .iter()
            .map(|&i| ClipVertex {
                pos: vertices[i].position.map(f64::from),
                attrs: vertices[i]
                    .words
                    .iter()
                    .map(|&b| f64::from(f32::from_bits(b)))
                    .collect(),
            })
            .collect();
        // A position with a NaN or an infinity draws nothing (the
        // triangle is dropped, as GPUs cull it).
        if clip.iter().any(|v| v.pos.iter().any(|c| !c.is_finite())) {
            continue;
        }
        let flat = std::sync::Arc::new(vertices[idx[0]].words.clone());
        let polygon = clip_polygon(clip);
        if polygon.len() < 3 {
            continue;
        }
        let screen: Vec<ScreenVertex> = polygon
            .into_iter()
            .map(|v| {
                let inv_w = 1.0 / v.pos[3];
                ScreenVertex {
                    x: (v.pos[0] * inv_w + 1.0) * 0.5 * w,
                    y: (1.0 - v.pos[1] * inv_w) * 0.5 * h,
                    z: v.pos[2] * inv_w,
                    inv_w,
                    attrs: v.attrs,
                }
            })
            .collect();
        for k in 1..screen.len() - 1 {
            let v = [screen[0].clone(), screen[k].clone(), screen[k + 1].clone()];
            let area =
                (v[1].x - v[0].x) * (v[2].y - v[0].y) - (v[1].y - v[0].y) * (v[2].x - v[0].x);
            out.push(Triangle {
                v,
                front: area > 0.0,
                primitive: primitive as u32,
                flat: flat.clone(),
            });
        }
    }
    out
}

/// Sutherland–Hodgman against every plane; a triangle inside all of them
/// comes back as it was.
fn clip_polygon(mut poly: Vec<ClipVertex>) -> Vec<ClipVertex> {
    for plane in planes() {
        if poly.iter().all(|v| plane(&v.pos) >= 0.0) {
            continue;
        }
        let mut next = Vec::with_capacity(poly.len() + 2);
        for i in 0..poly.len() {
            let a = &poly[i];
            let b = &poly[(i + 1) % poly.len()];
            let (da, db) = (plane(&a.pos), plane(&b.pos));
            if da >= 0.0 {
                next.push(a.clone());
            }
            if (da >= 0.0) != (db >= 0.0) {
                next.push(a.lerp(b, da / (da - db)));
            }
        }
        poly = next;
        if poly.len() < 3 {
            return poly;
        }
    }
    poly
}
