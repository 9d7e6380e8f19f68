//! Coverage with the top-left rule, pixel quads, and the pixel shader's
//! records with interpolated inputs.

use lockstep_ir::{Interpolation, StageIo, VaryingKind};

use crate::clip::Triangle;
use crate::{DrawError, Target, find};

/// Subpixel steps per pixel: vertices snap to 1/256 pixel.
const SUBPIXEL: f64 = 256.0;
const HALF: i64 = 128;

/// A 2×2 block of pixels at even coordinates, from one triangle.
#[derive(Clone, Debug)]
pub struct Quad {
    /// The triangle's index among the draw's (clipped) triangles.
    pub triangle: usize,
    /// The top-left pixel's column (even).
    pub x: u32,
    /// The top-left pixel's row (even).
    pub y: u32,
    /// Bit `p` set when quad pixel `p` (0 top-left, 1 top-right, 2
    /// bottom-left, 3 bottom-right) is covered; the others are helpers.
    pub covered: u8,
}

/// A triangle's barycentric weights over the target, from its unsnapped
/// vertices (coverage takes the snapped ones), as lavapipe's plane
/// equations do.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Plane {
    /// Edge k, opposite vertex k, as (a, b).
    edges: [((f64, f64), (f64, f64)); 3],
    inv_area: f64,
}

impl Plane {
    fn new(v: [(f64, f64); 3]) -> Plane {
        let area = fedge(v[0], v[1], v[2]);
        Plane {
            edges: [(v[1], v[2]), (v[2], v[0]), (v[0], v[1])],
            inv_area: if area == 0.0 { 0.0 } else { 1.0 / area },
        }
    }

    /// The weights of the three vertices at the centre of pixel (x, y).
    pub fn weights(&self, x: u32, y: u32) -> [f64; 3] {
        let c = (f64::from(x) + 0.5, f64::from(y) + 0.5);
        self.edges.map(|(a, b)| fedge(a, b, c) * self.inv_area)
    }
}

/// Depth at weights `l`.
pub(crate) fn depth(tri: &Triangle, l: [f64; 3]) -> f32 {
    (l[0] * tri.v[0].z + l[1] * tri.v[1].z + l[2] * tri.v[2].z) as f32
}

impl Quad {
    /// Quad pixel `p`'s column and row.
    pub fn pixel(&self, p: usize) -> (u32, u32) {
        (self.x + (p as u32 & 1), self.y + (p as u32 >> 1))
    }
}

/// Where one pixel-shader input comes from.
#[derive(Clone, Copy, Debug)]
enum Source {
    Position,
    FrontFace,
    Primitive,
    Attribute {
        word: u32,
        components: u32,
        kind: VaryingKind,
    },
}

/// The pixel shader's record layout, each input's source among the
/// vertex shader's outputs.
pub(crate) struct Setup {
    pub words: u32,
    inputs: Vec<(u32, u32, VaryingKind, Interpolation, Source)>,
    /// Whether an input needs the vertices' weights: depth, w or an
    /// attribute.
    weighted: bool,
}

impl Setup {
    pub fn new(vs: &StageIo, ps: &StageIo) -> Result<Setup, DrawError> {
        let mut inputs = Vec::new();
        for v in &ps.inputs {
            let source = match v.semantic.as_str() {
                "SV_POSITION" => Source::Position,
                "SV_ISFRONTFACE" => Source::FrontFace,
                "SV_PRIMITIVEID" => Source::Primitive,
                _ => {
                    let out = find(&vs.outputs, &v.semantic, v.index).ok_or_else(|| {
                        let written: Vec<String> = vs
                            .outputs
                            .iter()
                            .map(|o| format!("{}{}", o.semantic, if o.index == 0 { String::new() } else { o.index.to_string() }))
                            .collect();
                        DrawError::new(format!(
                            "the pixel shader reads '{}{}', which the vertex shader does not write (it writes {})",
                            v.semantic,
                            if v.index == 0 { String::new() } else { v.index.to_string() },
                            written.join(", ")
                        ))
                    })?;
                    let name = format!(
                        "{}{}",
                        v.semantic,
                        if v.index == 0 {
                            String::new()
                        } else {
                            v.index.to_string()
                        }
                    );
                    // The stages link as a GPU's signatures must: every
                    // component read is written, as a float or an integer
                    // alike (a GPU passes the bits; Lockstep does not
                    // guess which conversion was meant).
                    if v.components > out.components {
                        return Err(DrawError::new(format!(
                            "the pixel shader reads '{name}' as {} components, but the vertex shader writes {}",
                            v.components, out.components
                        )));
                    }
                    let float = |k: VaryingKind| k == VaryingKind::Float;
                    if float(v.kind) != float(out.kind) {
                        let kind = |k: VaryingKind| if float(k) { "a float" } else { "an integer" };
                        return Err(DrawError::new(format!(
                            "the pixel shader reads '{name}' as {}, but the vertex shader writes {}",
                            kind(v.kind),
                            kind(out.kind)
                        )));
                    }
                    Source::Attribute {
                        word: out.word,
                        components: out.components,
                        kind: out.kind,
                    }
                }
            };
            inputs.push((v.word, v.components, v.kind, v.interpolation, source));
        }
        let weighted = inputs
            .iter()
            .any(|&(_, components, _, _, source)| match source {
                Source::Position => components > 2,
                Source::Attribute { .. } => true,
                Source::FrontFace | Source::Primitive => false,
            });
        Ok(Setup {
            words: ps.input_words,
            inputs,
            weighted,
        })
    }

    /// The records of quad `q`'s four pixels, one after another in `chunk`.
    /// Each value is computed as for one pixel, four pixels at a time.
    pub fn write_quad(&self, q: &Quad, tri: &Triangle, plane: &Plane, chunk: &mut [u32]) {
        let words = self.words as usize;
        let chunk = &mut chunk[..4 * words];
        let (x, y) = (f64::from(q.x) + 0.5, f64::from(q.y) + 0.5);
        let xs = [x, x + 1.0, x, x + 1.0];
        let ys = [y, y, y + 1.0, y + 1.0];
        // The weights of each vertex at each pixel, as `Plane::weights`
        // (where an input needs them).
        let mut l = [[0.0f64; 4]; 3];
        for (k, l) in l.iter_mut().enumerate().filter(|_| self.weighted) {
            let (a, b) = plane.edges[k];
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            for p in 0..4 {
                l[p] = (dx * (ys[p] - a.1) - dy * (xs[p] - a.0)) * plane.inv_area;
            }
        }
        // `Σ l[i] · v[i]` per pixel, in vertex order.
        let blend = |v: [f64; 3]| -> [f64; 4] {
            std::array::from_fn(|p| l[0][p] * v[0] + l[1][p] * v[1] + l[2][p] * v[2])
        };
        // The weights over w, and their sum, 1/w.
        let lw: [[f64; 4]; 3] = std::array::from_fn(|i| l[i].map(|l| l * tri.v[i].inv_w));
        let inv_w: [f64; 4] = std::array::from_fn(|p| lw[0][p] + lw[1][p] + lw[2][p]);
        debug_assert!(self.weighted || inv_w == [0.0; 4]);
        let mut put = |at: usize, values: [u32; 4]| {
            for (p, v) in values.into_iter().enumerate() {
                chunk[p * words + at] = v;
            }
        };
        put(
            0,
            std::array::from_fn(|p| if q.covered & (1 << p) != 0 { 1 } else { 2 }),
        );
        let bits = |v: [f64; 4]| v.map(|v| (v as f32).to_bits());
        for &(word, components, kind, interpolation, source) in &self.inputs {
            let word = word as usize;
            match source {
                Source::Position => {
                    put(word, bits(xs));
                    if components > 1 {
                        put(word + 1, bits(ys));
                    }
                    if components > 2 {
                        let z = blend(tri.v.each_ref().map(|v| v.z));
                        put(word + 2, bits(z.map(|z| f64::from(z as f32))));
                    }
                    if components > 3 {
                        // Where every vertex has one w, every pixel has it
                        // (the weights sum to one).
                        let w = match tri.v.each_ref().map(|v| v.inv_w) {
                            [a, b, c] if a == b && b == c => [1.0 / a; 4],
                            _ => inv_w.map(|w| 1.0 / w),
                        };
                        put(word + 3, bits(w));
                    }
                }
                Source::FrontFace => put(word, [u32::from(tri.front); 4]),
                Source::Primitive => put(word, [tri.primitive; 4]),
                Source::Attribute {
                    word: from,
                    components: have,
                    kind: from_kind,
                } => {
                    let smooth = kind == VaryingKind::Float
                        && from_kind == VaryingKind::Float
                        && interpolation != Interpolation::NoInterpolation;
                    for c in 0..components as usize {
                        let at = from as usize + c;
                        let values: [u32; 4] = if c as u32 >= have {
                            [0; 4]
                        } else if !smooth {
                            [crate::vertex::convert(tri.flat[at], from_kind, kind); 4]
                        } else {
                            let a = tri.v.each_ref().map(|v| v.attrs[at]);
                            if interpolation == Interpolation::NoPerspective {
                                bits(blend(a))
                            } else {
                                bits(std::array::from_fn(|p| {
                                    (lw[0][p] * a[0] + lw[1][p] * a[1] + lw[2][p] * a[2]) / inv_w[p]
                                }))
                            }
                        };
                        put(word + c, values);
                    }
                }
            }
        }
    }
}

/// Edge `a → b`'s value at `p`: positive inside a triangle that is
/// clockwise on the target.
fn edge(a: (i64, i64), b: (i64, i64), p: (i64, i64)) -> i64 {
    (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
}

/// [`edge`] in floating point.
fn fedge(a: (f64, f64), b: (f64, f64), p: (f64, f64)) -> f64 {
    (b.0 - a.0) * (p.1 - a.1) - (b.1 - a.1) * (p.0 - a.0)
}

/// Whether a pixel centre exactly on edge `a → b` is inside: a top edge
/// (horizontal, the triangle below it) or a left edge.
fn top_left(a: (i64, i64), b: (i64, i64)) -> bool {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    (dy == 0 && dx > 0) || dy < 0
}

/// The `i` with `value + slope · i ≥ 0`: a range from 0 or to the end.
fn nonnegative(value: i64, slope: i64) -> std::ops::Range<i64> {
    match slope.cmp(&0) {
        std::cmp::Ordering::Equal if value >= 0 => 0..i64::MAX,
        std::cmp::Ordering::Equal => 0..0,
        // value + slope · i ≥ 0 from i = ⌈-value / slope⌉.
        std::cmp::Ordering::Greater => {
            (-value).div_euclid(slope) + i64::from((-value).rem_euclid(slope) != 0)..i64::MAX
        }
        // ... up to i = ⌊value / -slope⌋.
        std::cmp::Ordering::Less => 0..value.div_euclid(-slope) + 1,
    }
}

fn intersect(a: std::ops::Range<i64>, b: std::ops::Range<i64>) -> std::ops::Range<i64> {
    a.start.max(b.start)..a.end.min(b.end)
}

/// Each triangle's plane.
pub(crate) fn planes(triangles: &[Triangle]) -> Vec<Plane> {
    triangles
        .iter()
        .map(|tri| {
            Plane::new([
                (tri.v[0].x, tri.v[0].y),
                (tri.v[1].x, tri.v[1].y),
                (tri.v[2].x, tri.v[2].y),
            ])
        })
        .collect()
}

/// Triangle `t`'s quads, rows from the top, each handed to `emit`.
pub(crate) fn triangle_quads<E>(
    t: usize,
    tri: &Triangle,
    target: Target,
    mut emit: impl FnMut(Quad) -> Result<(), E>,
) -> Result<(), E> {
    let snap = |v: &crate::clip::ScreenVertex| {
        (
            (v.x * SUBPIXEL).round() as i64,
            (v.y * SUBPIXEL).round() as i64,
        )
    };
    let mut v = [snap(&tri.v[0]), snap(&tri.v[1]), snap(&tri.v[2])];
    // Made clockwise, so that inside is positive.
    let area = edge(v[0], v[1], v[2]);
    if area == 0 {
        return Ok(());
    }
    if area < 0 {
        v.swap(1, 2);
    }
    // Edge k is opposite vertex k; its value weighs vertex k.
    let edges = [(v[1], v[2]), (v[2], v[0]), (v[0], v[1])];
    let inclusive = edges.map(|(a, b)| top_left(a, b));
    let min_x = v.iter().map(|p| p.0).min().unwrap_or(0);
    let max_x = v.iter().map(|p| p.0).max().unwrap_or(0);
    let min_y = v.iter().map(|p| p.1).min().unwrap_or(0);
    let max_y = v.iter().map(|p| p.1).max().unwrap_or(0);
    // Pixels whose centres lie in the box.
    let lo = |m: i64| (m - HALF).div_euclid(256) + i64::from((m - HALF).rem_euclid(256) != 0);
    let hi = |m: i64| (m - HALF).div_euclid(256);
    let x0 = lo(min_x).max(0);
    let x1 = hi(max_x).min(i64::from(target.width) - 1);
    let y0 = lo(min_y).max(0);
    let y1 = hi(max_y).min(i64::from(target.height) - 1);
    if x0 > x1 || y0 > y1 {
        return Ok(());
    }
    // Each edge's value is linear in the pixel: it steps by `dx` from one
    // pixel to the next in x and by `dy` in y, exactly (integers).
    let steps = edges.map(|(a, b)| (-(b.1 - a.1) * 256, (b.0 - a.0) * 256));
    // Inside: every edge positive, or zero on an inclusive one.
    let bias = inclusive.map(|inclusive| if inclusive { 0 } else { -1 });
    let qx0 = x0 & !1;
    let quads = (x1 - qx0) / 2 + 1;
    // What each edge adds at its smallest and at its largest over a
    // quad's four pixels.
    let least = steps.map(|(sx, sy)| sx.min(0) + sy.min(0));
    let most = steps.map(|(sx, sy)| sx.max(0) + sy.max(0));
    let (width, height) = (i64::from(target.width), i64::from(target.height));
    // The last quad of a row reaches past an odd target's edge.
    let whole_quads = if qx0 + 2 * (quads - 1) + 1 < width {
        quads
    } else {
        quads - 1
    };
    for qy in (y0 & !1..=y1).step_by(2) {
        // The edges at the centre of the row's first pixel.
        let e = edges.map(|(a, b)| edge(a, b, (qx0 * 256 + HALF, qy * 256 + HALF)));
        // An edge is linear, so over a quad it is least and largest at
        // corners: the quads where some pixel may be inside every edge, and
        // those inside at each of their pixels, are ranges of the row.
        let mut some = 0..quads;
        let mut whole = if qy + 1 < height {
            0..whole_quads
        } else {
            0..0
        };
        for k in 0..3 {
            let slope = 2 * steps[k].0;
            some = intersect(some, nonnegative(e[k] + most[k] + bias[k], slope));
            whole = intersect(whole, nonnegative(e[k] + least[k] + bias[k], slope));
        }
        for i in some {
            let qx = qx0 + 2 * i;
            let mut covered = if whole.contains(&i) { 0b1111 } else { 0u8 };
            for p in 0..4 {
                if covered == 0b1111 {
                    break;
                }
                let (dx, dy) = (p as i64 & 1, p as i64 >> 1);
                let (px, py) = (qx + dx, qy + dy);
                let inside = (0..3)
                    .all(|k| e[k] + (2 * i + dx) * steps[k].0 + dy * steps[k].1 + bias[k] >= 0);
                if inside && px < width && py < height {
                    covered |= 1 << p;
                }
            }
            if covered != 0 {
                emit(Quad {
                    triangle: t,
                    x: qx as u32,
                    y: qy as u32,
                    covered,
                })?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::ScreenVertex;

    /// Coverage by the edge functions at each pixel centre, one pixel at a
    /// time: the definition that `triangle_quads` steps through.
    fn covered_directly(v: [(i64, i64); 3], target: Target) -> Vec<(u32, u32)> {
        let mut v = v;
        let area = edge(v[0], v[1], v[2]);
        if area == 0 {
            return Vec::new();
        }
        if area < 0 {
            v.swap(1, 2);
        }
        let edges = [(v[1], v[2]), (v[2], v[0]), (v[0], v[1])];
        let mut pixels = Vec::new();
        for py in 0..i64::from(target.height) {
            for px in 0..i64::from(target.width) {
                let centre = (px * 256 + HALF, py * 256 + HALF);
                let inside = edges.iter().all(|&(a, b)| {
                    let e = edge(a, b, centre);
                    e > 0 || (e == 0 && top_left(a, b))
                });
                if inside {
                    pixels.push((px as u32, py as u32));
                }
            }
        }
        pixels
    }

    /// Random triangles, many with vertices on pixel centres and edges
    /// through them: the quads' pixels are the pixels the edge functions
    /// put inside.
    #[test]
    fn quads_cover_the_pixels_the_edges_put_inside() {
        let target = Target {
            width: 13,
            height: 11,
            depth: false,
        };
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..2000 {
            // Coordinates in half pixels, a little past the target.
            let v: [ScreenVertex; 3] = std::array::from_fn(|_| ScreenVertex {
                x: next(34) as f64 * 0.5 - 2.0,
                y: next(30) as f64 * 0.5 - 2.0,
                z: 0.5,
                inv_w: 1.0,
                attrs: Vec::new(),
            });
            let snapped =
                std::array::from_fn(|i| ((v[i].x * SUBPIXEL) as i64, (v[i].y * SUBPIXEL) as i64));
            let tri = Triangle {
                v,
                front: true,
                primitive: 0,
                flat: std::sync::Arc::new(Vec::new()),
            };
            let mut pixels = Vec::new();
            triangle_quads::<()>(0, &tri, target, |q| {
                pixels.extend(
                    (0..4)
                        .filter(|p| q.covered >> p & 1 == 1)
                        .map(|p| q.pixel(p)),
                );
                Ok(())
            })
            .unwrap();
            pixels.sort_by_key(|&(x, y)| (y, x));
            assert_eq!(pixels, covered_directly(snapped, target), "{snapped:?}");
        }
    }
}
