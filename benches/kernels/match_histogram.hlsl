// Histogram of keys into 256 bins: the lanes of a wave holding the same key
// find each other with WaveMatch, count themselves with
// WaveMultiPrefixCountBits, and the last lane of each partition issues one
// InterlockedAdd for all of them (Shader Model 6.5).

StructuredBuffer<uint> Keys : register(t0);
RWStructuredBuffer<uint> Bins : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint key = Keys[dtid.x] & 255;
    uint4 partition = WaveMatch(key);
    uint before = WaveMultiPrefixCountBits(true, partition);
    uint4 bits = countbits(partition);
    uint count = bits.x + bits.y + bits.z + bits.w;
    if (before == count - 1)
        InterlockedAdd(Bins[key], count);
}
