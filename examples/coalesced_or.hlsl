// Coalescing atomic ORs with WaveMatch and WaveMultiPrefixBitOr, from the
// Shader Model 6.5 specification: the lanes of a wave that update the same
// location elect one leader (the highest lane of their group), which issues
// a single InterlockedOr on behalf of all of them.

StructuredBuffer<uint> Keys : register(t0);
StructuredBuffer<uint> Bits : register(t1);
RWStructuredBuffer<uint> Mem : register(u0);

#define LOCATIONS 16

// The specification computes the key from per-lane x, y coordinates; here
// the coordinates come packed in Keys.
uint computeHash(uint x, uint y)
{
    return (x + y * 4) % LOCATIONS;
}

[numthreads(128, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint x = Keys[dtid.x] & 0xFFFF;
    uint y = Keys[dtid.x] >> 16;
    uint myValueToOr = Bits[dtid.x];

    uint key = computeHash(x, y); // compute a key for matching
    uint4 groupMask = WaveMatch( key );
    // firstbithigh returns -1 when no bit set, otherwise < 32,
    // so OR will add lane index offset without changing -1.
    int4 highLanes = (int4)(firstbithigh(groupMask) | uint4(0, 0x20, 0x40, 0x60));
    // The signed max should be the highest lane index in the group.
    uint highLane = (uint)max(max(max(highLanes.x, highLanes.y), highLanes.z), highLanes.w);
    bool leader = WaveGetLaneIndex() == highLane;
    unsigned int result = WaveMultiPrefixBitOr( myValueToOr, groupMask );
    if (leader)
        InterlockedOr( Mem[key], result | myValueToOr );
}
