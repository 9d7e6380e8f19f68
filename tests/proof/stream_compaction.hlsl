// Stream compaction of the odd inputs: WavePrefixCountBits per lane, one
// InterlockedAdd per wave on Total, base broadcast with WaveReadLaneFirst.
// Clean. (numthreads 64)
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
    base = WaveReadLaneFirst(base);

    if (keep)
        Out[base + laneOffset] = v;
}
