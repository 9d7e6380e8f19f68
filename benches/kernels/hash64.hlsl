// 64-bit integer arithmetic: splitmix64 of each element's 64-bit key
// (shifts, xors, 64-bit additions and multiplications), folded to 32 bits.
// The 64-bit constants are built from halves: glslang's HLSL front end reads
// no 64-bit literals.

StructuredBuffer<uint2> Keys : register(t0);
RWStructuredBuffer<uint> Hash : register(u0);

uint64_t wide(uint hi, uint lo)
{
    uint64_t h = hi;
    uint64_t l = lo;
    return (h << 32) | l;
}

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint2 k = Keys[dtid.x];
    uint64_t z = wide(k.y, k.x);
    z += wide(0x9E3779B9u, 0x7F4A7C15u);
    z = (z ^ (z >> 30)) * wide(0xBF58476Du, 0x1CE4E5B9u);
    z = (z ^ (z >> 27)) * wide(0x94D049BBu, 0x133111EBu);
    z ^= z >> 31;
    uint lo = uint(z);
    uint hi = uint(z >> 32);
    Hash[dtid.x] = lo ^ hi;
}
