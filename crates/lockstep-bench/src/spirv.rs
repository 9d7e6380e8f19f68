//! The descriptor bindings of a SPIR-V module: enough reflection to bind a
//! compute shader's resources as its compiler laid them out.

/// What a descriptor binding holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescriptorKind {
    /// A storage buffer (`StructuredBuffer`, `RWByteAddressBuffer`, …).
    StorageBuffer,
    /// A uniform buffer (`cbuffer`).
    UniformBuffer,
    /// A sampled image read without a sampler (`Texture2D` with `Load`).
    SampledImage,
    /// A storage image (`RWTexture2D`).
    StorageImage,
    /// Anything else (samplers, combined image samplers, texel buffers).
    Other,
}

/// One resource variable with a descriptor binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resource {
    /// The variable's debug name (`OpName`); empty when it has none.
    pub name: String,
    /// The descriptor set (`DescriptorSet` decoration); 0 when undecorated.
    pub set: u32,
    /// The binding number within the set (`Binding` decoration).
    pub binding: u32,
    /// What the binding holds.
    pub kind: DescriptorKind,
}

const MAGIC: u32 = 0x0723_0203;

const OP_NAME: u32 = 5;
const OP_TYPE_IMAGE: u32 = 25;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_POINTER: u32 = 32;
const OP_VARIABLE: u32 = 59;
const OP_DECORATE: u32 = 71;

const DECORATION_BLOCK: u32 = 2;
const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;

const STORAGE_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_UNIFORM: u32 = 2;
const STORAGE_STORAGE_BUFFER: u32 = 12;

/// Reads a module's words from the bytes of a `.spv` file.
pub fn words_of(bytes: &[u8]) -> Result<Vec<u32>, String> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < 20 {
        return Err(format!("{} bytes is not a SPIR-V module", bytes.len()));
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    if words[0] != MAGIC {
        return Err(format!(
            "not a little-endian SPIR-V module (magic {:#010x})",
            words[0]
        ));
    }
    Ok(words)
}

/// The resource variables of `module` that have a binding decoration, in
/// the order of (set, binding).
pub fn resources(module: &[u32]) -> Result<Vec<Resource>, String> {
    use std::collections::HashMap;

    if module.len() < 5 || module[0] != MAGIC {
        return Err("not a SPIR-V module".to_string());
    }
    let mut names: HashMap<u32, String> = HashMap::new();
    let mut sets: HashMap<u32, u32> = HashMap::new();
    let mut bindings: HashMap<u32, u32> = HashMap::new();
    let mut blocks: HashMap<u32, u32> = HashMap::new();
    // Image type id → its `Sampled` operand (1: sampled, 2: storage).
    let mut images: HashMap<u32, u32> = HashMap::new();
    let mut structs: Vec<u32> = Vec::new();
    // Pointer type id → (storage class, pointee type).
    let mut pointers: HashMap<u32, (u32, u32)> = HashMap::new();
    // (variable id, pointer type id, storage class)
    let mut variables: Vec<(u32, u32, u32)> = Vec::new();

    let mut at = 5;
    while at < module.len() {
        let count = (module[at] >> 16) as usize;
        let opcode = module[at] & 0xFFFF;
        if count == 0 || at + count > module.len() {
            return Err(format!("malformed instruction at word {at}"));
        }
        let ops = &module[at + 1..at + count];
        match opcode {
            OP_NAME if !ops.is_empty() => {
                names.insert(ops[0], string(&ops[1..]));
            }
            OP_DECORATE if ops.len() >= 2 => match (ops[1], ops.get(2)) {
                (DECORATION_BINDING, Some(&b)) => {
                    bindings.insert(ops[0], b);
                }
                (DECORATION_DESCRIPTOR_SET, Some(&s)) => {
                    sets.insert(ops[0], s);
                }
                (DECORATION_BLOCK | DECORATION_BUFFER_BLOCK, _) => {
                    blocks.insert(ops[0], ops[1]);
                }
                _ => {}
            },
            OP_TYPE_IMAGE if ops.len() >= 7 => {
                images.insert(ops[0], ops[6]);
            }
            OP_TYPE_STRUCT if !ops.is_empty() => structs.push(ops[0]),
            OP_TYPE_POINTER if ops.len() >= 3 => {
                pointers.insert(ops[0], (ops[1], ops[2]));
            }
            OP_VARIABLE if ops.len() >= 3 => variables.push((ops[1], ops[0], ops[2])),
            _ => {}
        }
        at += count;
    }

    let mut out = Vec::new();
    for (id, pointer, storage) in variables {
        let Some(&binding) = bindings.get(&id) else {
            continue;
        };
        let pointee = pointers.get(&pointer).map(|&(_, t)| t);
        let kind = match (storage, pointee) {
            (STORAGE_UNIFORM_CONSTANT, Some(t)) => match images.get(&t) {
                Some(1) => DescriptorKind::SampledImage,
                Some(2) => DescriptorKind::StorageImage,
                _ => DescriptorKind::Other,
            },
            (STORAGE_UNIFORM, Some(t)) if structs.contains(&t) => match blocks.get(&t) {
                Some(&DECORATION_BUFFER_BLOCK) => DescriptorKind::StorageBuffer,
                _ => DescriptorKind::UniformBuffer,
            },
            (STORAGE_STORAGE_BUFFER, _) => DescriptorKind::StorageBuffer,
            _ => DescriptorKind::Other,
        };
        out.push(Resource {
            name: names.get(&id).cloned().unwrap_or_default(),
            set: sets.get(&id).copied().unwrap_or(0),
            binding,
            kind,
        });
    }
    out.sort_by_key(|r| (r.set, r.binding));
    Ok(out)
}

/// A literal string: UTF-8 bytes packed little-endian, nul-terminated.
fn string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|&b| b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inst(opcode: u32, ops: &[u32]) -> Vec<u32> {
        let mut v = vec![((ops.len() as u32 + 1) << 16) | opcode];
        v.extend_from_slice(ops);
        v
    }

    fn lit(s: &str) -> Vec<u32> {
        let mut bytes = s.as_bytes().to_vec();
        bytes.push(0);
        while !bytes.len().is_multiple_of(4) {
            bytes.push(0);
        }
        bytes
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect()
    }

    fn name(id: u32, s: &str) -> Vec<u32> {
        let mut ops = vec![id];
        ops.extend(lit(s));
        inst(OP_NAME, &ops)
    }

    /// The shape glslang gives `StructuredBuffer<uint> Input : register(t0)`,
    /// `RWTexture2D<uint> Out : register(u0)` and `Texture2D<float> Depth :
    /// register(t1)` with `--shift-uav-binding 16`: a `BufferBlock` struct in
    /// the Uniform class, and images in UniformConstant.
    fn module() -> Vec<u32> {
        let mut m = vec![MAGIC, 0x0001_0300, 0, 100, 0];
        for i in [
            name(10, "Input"),
            name(11, "Input"),
            name(21, "Out"),
            name(31, "Depth"),
            inst(OP_DECORATE, &[10, DECORATION_BUFFER_BLOCK]),
            inst(OP_DECORATE, &[11, DECORATION_DESCRIPTOR_SET, 0]),
            inst(OP_DECORATE, &[11, DECORATION_BINDING, 0]),
            inst(OP_DECORATE, &[21, DECORATION_DESCRIPTOR_SET, 0]),
            inst(OP_DECORATE, &[21, DECORATION_BINDING, 16]),
            inst(OP_DECORATE, &[31, DECORATION_DESCRIPTOR_SET, 1]),
            inst(OP_DECORATE, &[31, DECORATION_BINDING, 1]),
            // %2 = uint, %10 = struct { uint[] }, %12 = ptr Uniform %10
            inst(OP_TYPE_STRUCT, &[10, 3]),
            inst(OP_TYPE_POINTER, &[12, STORAGE_UNIFORM, 10]),
            // %20 = image uint 2D sampled=2 R32ui, %22 = ptr UniformConstant
            inst(OP_TYPE_IMAGE, &[20, 2, 1, 0, 0, 0, 2, 33]),
            inst(OP_TYPE_POINTER, &[22, STORAGE_UNIFORM_CONSTANT, 20]),
            // %30 = image float 2D sampled=1 Unknown
            inst(OP_TYPE_IMAGE, &[30, 4, 1, 0, 0, 0, 1, 0]),
            inst(OP_TYPE_POINTER, &[32, STORAGE_UNIFORM_CONSTANT, 30]),
            inst(OP_VARIABLE, &[32, 31, STORAGE_UNIFORM_CONSTANT]),
            inst(OP_VARIABLE, &[12, 11, STORAGE_UNIFORM]),
            inst(OP_VARIABLE, &[22, 21, STORAGE_UNIFORM_CONSTANT]),
            // A variable without a binding (an input builtin) is not a resource.
            inst(OP_VARIABLE, &[12, 40, 1]),
        ] {
            m.extend(i);
        }
        m
    }

    #[test]
    fn finds_bindings_names_and_kinds() {
        let found = resources(&module()).unwrap();
        let r = |name: &str, set, binding, kind| Resource {
            name: name.to_string(),
            set,
            binding,
            kind,
        };
        assert_eq!(
            found,
            [
                r("Input", 0, 0, DescriptorKind::StorageBuffer),
                r("Out", 0, 16, DescriptorKind::StorageImage),
                r("Depth", 1, 1, DescriptorKind::SampledImage),
            ]
        );
    }

    #[test]
    fn reads_words_and_rejects_garbage() {
        let m = module();
        let bytes: Vec<u8> = m.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(words_of(&bytes).unwrap(), m);
        assert!(words_of(&bytes[..bytes.len() - 1]).is_err());
        assert!(words_of(&[0; 20]).is_err());
        let mut truncated = m.clone();
        truncated.truncate(m.len() - 1);
        assert!(resources(&truncated).is_err());
    }

    #[test]
    fn literal_strings() {
        assert_eq!(string(&lit("main")), "main");
        assert_eq!(string(&lit("TileMinMaxDepthUAV")), "TileMinMaxDepthUAV");
    }
}
