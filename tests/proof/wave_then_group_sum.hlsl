// Two-level sum: WaveActiveSum per wave into groupshared, then the first wave
// adds the per-wave partials (any wave size from 4 up). Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define GROUP_SIZE 256
groupshared uint partial[GROUP_SIZE / 4]; // one slot per wave, at most 64 waves

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint lanes = WaveGetLaneCount();
    uint numWaves = (GROUP_SIZE + lanes - 1) / lanes;

    uint waveSum = WaveActiveSum(In[dtid.x]);
    if (WaveGetLaneIndex() == 0)
        partial[gi / lanes] = waveSum;
    GroupMemoryBarrierWithGroupSync();

    if (gi < lanes)
    {
        uint p = 0;
        for (uint w = gi; w < numWaves; w += lanes)
            p += partial[w];
        uint total = WaveActiveSum(p);
        if (gi == 0)
            Out[gid.x] = total;
    }
}
