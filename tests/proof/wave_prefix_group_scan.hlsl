// Group-wide exclusive scan: WavePrefixSum within each wave plus the totals
// of the earlier waves, shared through groupshared memory. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define GROUP_SIZE 256
groupshared uint waveTotals[GROUP_SIZE / 4]; // one slot per wave, at most 64 waves

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint lanes = WaveGetLaneCount();
    uint wave = gi / lanes;
    uint v = In[dtid.x];

    uint prefix = WavePrefixSum(v);
    uint total = WaveActiveSum(v);
    if (WaveIsFirstLane())
        waveTotals[wave] = total;
    GroupMemoryBarrierWithGroupSync();

    uint base = 0;
    for (uint w = 0; w < wave; w++)
        base += waveTotals[w];
    Out[dtid.x] = base + prefix;
}
