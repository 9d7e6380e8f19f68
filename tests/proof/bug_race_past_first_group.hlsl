// Per-wave totals in groupshared memory. Bug: the slot is picked from the
// group's id, so the first group stores one slot per wave but every other
// group stores all its waves' totals into slot 0 in one phase. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint totals[16];

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint total = WaveActiveSum(In[dtid.x]);
    uint slot = gid.x == 0 ? gi / WaveGetLaneCount() : 0;
    if (WaveIsFirstLane())
        totals[slot] = total;
    GroupMemoryBarrierWithGroupSync();
    if (gi == 0)
        Out[gid.x] = totals[0];
}
