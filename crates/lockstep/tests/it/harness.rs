//! Builds pipelines in code and runs shaders through the public API.

use lockstep::pipeline::{Binding, BufferDesc, Format, Kind, Pipeline};
use lockstep::{CompileOptions, MemoryLoader, RunOptions};

pub const WAVE_SIZES: [u32; 6] = [4, 8, 16, 32, 64, 128];

/// A buffer for `run_shader`: name, kind, register, initial 32-bit words.
pub struct Buf {
    pub name: &'static str,
    pub kind: Kind,
    pub register: u32,
    pub words: Vec<u32>,
}

pub fn buf(name: &'static str, kind: Kind, register: u32, words: Vec<u32>) -> Buf {
    Buf {
        name,
        kind,
        register,
        words,
    }
}

pub fn pipeline(groups: [u32; 3], buffers: &[Buf]) -> Pipeline {
    Pipeline {
        samplers: Vec::new(),
        graphics: None,
        dispatch: groups,
        entry: None,
        buffers: buffers
            .iter()
            .map(|b| BufferDesc {
                name: b.name.to_string(),
                format: Format::UInt32,
                stride: None,
                channels: 1,
                array_size: 1,
                data: b.words.iter().flat_map(|w| w.to_le_bytes()).collect(),
                output_props: None,
            })
            .collect(),
        results: Vec::new(),
        bindings: buffers
            .iter()
            .map(|b| Binding {
                name: b.name.to_string(),
                kind: b.kind,
                register: b.register,
                space: 0,
                set: 0,
                vulkan_binding: None,
            })
            .collect(),
    }
}

/// Compiles `source`, panicking with the rendered diagnostics on failure.
pub fn compile(source: &str, opts: &CompileOptions) -> lockstep::Shader {
    match lockstep::compile("test.hlsl", source, opts, &MemoryLoader::default()) {
        Ok(s) => s,
        Err(e) => panic!("compile failed:\n{}\nsource:\n{source}", e.render(false)),
    }
}

/// Runs a shader and returns every buffer's words after the dispatch.
pub fn run_words(source: &str, groups: [u32; 3], buffers: &[Buf], wave_size: u32) -> Vec<Vec<u32>> {
    let shader = compile(source, &CompileOptions::default());
    run_compiled(&shader, groups, buffers, wave_size)
}

pub fn run_compiled(
    shader: &lockstep::Shader,
    groups: [u32; 3],
    buffers: &[Buf],
    wave_size: u32,
) -> Vec<Vec<u32>> {
    let p = pipeline(groups, buffers);
    let opts = RunOptions {
        wave_size,
        threads: 2,
        engine: lockstep::Engine::Native,
        ..RunOptions::default()
    };
    let out = lockstep::run(shader, &p, &opts).unwrap_or_else(|e| panic!("run failed: {e}"));
    let words: Vec<Vec<u32>> = out.contents.iter().map(|bytes| words_of(bytes)).collect();
    // The interpreter, on one thread, agrees bit for bit.
    let interpreted = RunOptions {
        threads: 1,
        engine: lockstep::Engine::Interpreter,
        ..opts
    };
    let again =
        lockstep::run(shader, &p, &interpreted).unwrap_or_else(|e| panic!("run failed: {e}"));
    let again: Vec<Vec<u32>> = again.contents.iter().map(|bytes| words_of(bytes)).collect();
    assert_eq!(words, again, "native code and the interpreter disagree");
    words
}

/// The little-endian 32-bit words of `bytes` (a last word in part is
/// filled with zeros).
pub fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

/// Compiles and returns the rendered diagnostics (errors and warnings).
pub fn diagnostics(source: &str, opts: &CompileOptions) -> String {
    match lockstep::compile("test.hlsl", source, opts, &MemoryLoader::default()) {
        Ok(s) => lockstep::render_diagnostics(&s.source_map, &s.diagnostics, false),
        Err(e) => e.render(false),
    }
}
