//! A buffer's bytes after a run, kept in the words the engine ran on.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use lockstep_exec::Memory;

/// The bytes of one buffer after a dispatch. They stay in the engine's own
/// 32-bit words (each stored little-endian), so a run hands its buffers
/// back without copying them; a buffer the shader cannot write is the
/// pipeline's own bytes, borrowed for `'p`. The value derefs to the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct BufferContents<'p> {
    words: Cow<'p, [u32]>,
    len: usize,
}

/// A buffer's own words go back to the engine for a later run
/// ([`lockstep_exec::memory::recycle`]).
impl Drop for BufferContents<'_> {
    fn drop(&mut self) {
        if let Cow::Owned(words) = &mut self.words {
            lockstep_exec::memory::recycle(std::mem::take(words));
        }
    }
}

impl<'p> BufferContents<'p> {
    /// The contents of a memory the engine ran on, without a copy.
    pub fn from_memory(memory: Memory<'p>) -> BufferContents<'p> {
        let (words, len) = memory.into_le_words();
        BufferContents { words, len }
    }

    /// Contents of `len` bytes held in `words`, each stored little-endian
    /// (`len` at most four bytes per word).
    pub(crate) fn from_words(words: Vec<u32>, len: usize) -> BufferContents<'p> {
        let len = len.min(words.len() * 4);
        BufferContents {
            words: Cow::Owned(words),
            len,
        }
    }

    /// The buffer's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<u32, u8>(&self.words)[..self.len]
    }

    /// The bytes as a vector of their own (a copy).
    pub fn to_vec(&self) -> Vec<u8> {
        self.as_bytes().to_vec()
    }
}

impl Deref for BufferContents<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for BufferContents<'_> {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Debug for BufferContents<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("BufferContents")
            .field(&self.as_bytes())
            .finish()
    }
}

impl PartialEq<[u8]> for BufferContents<'_> {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_bytes() == other
    }
}

impl PartialEq<Vec<u8>> for BufferContents<'_> {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.as_bytes() == other.as_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_come_back_in_order_and_length() {
        for len in [0, 1, 3, 4, 5, 8, 13] {
            let bytes: Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(37) ^ 0xA5).collect();
            let contents = BufferContents::from_memory(Memory::from_bytes(&bytes));
            assert_eq!(contents.as_bytes(), bytes.as_slice());
            assert_eq!(contents.len(), len);
            assert_eq!(contents, bytes);
        }
    }

    #[test]
    fn words_written_by_the_engine_read_back_little_endian() {
        let memory = Memory::zeroed(6);
        memory.store(0, lockstep_ir::ScalarType::UInt32, 0x0403_0201);
        memory.store(4, lockstep_ir::ScalarType::UInt16, 0x0605);
        assert_eq!(
            BufferContents::from_memory(memory).as_bytes(),
            &[1, 2, 3, 4, 5, 6]
        );
    }
}
