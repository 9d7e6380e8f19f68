// Wrapping product of each group's (odd) inputs: WaveActiveProduct per wave,
// then thread 0 multiplies the per-wave partials. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define GROUP_SIZE 256
groupshared uint partial[GROUP_SIZE / 4]; // one slot per wave, at most 64 waves

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint lanes = WaveGetLaneCount();
    uint p = WaveActiveProduct(In[dtid.x] | 1);
    if (WaveIsFirstLane())
        partial[gi / lanes] = p;
    GroupMemoryBarrierWithGroupSync();

    if (gi == 0)
    {
        uint total = 1;
        for (uint w = 0; w < GROUP_SIZE / lanes; w++)
            total *= partial[w];
        Out[gid.x] = total;
    }
}
