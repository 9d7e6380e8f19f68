// Stream compaction with one atomic per wave. Bug: the base the first lane
// reserves is never broadcast (no WaveReadLaneFirst), so the other lanes
// write at an uninitialized base. (numthreads 64)
#pragma lockstep unordered(Out)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWByteAddressBuffer Total : register(u1);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint v = In[dtid.x];
    bool keep = (v & 1) != 0;

    uint laneOffset = WavePrefixCountBits(keep);
    uint waveCount = WaveActiveCountBits(keep);

    uint base;
    if (WaveIsFirstLane())
        Total.InterlockedAdd(0, waveCount, base);

    if (keep)
        Out[base + laneOffset] = v;
}
