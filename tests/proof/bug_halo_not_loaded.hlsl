// 3-point blur through a tile with a one-word halo on each side. Bug: only
// tile[1..256] is loaded, so the edge threads read halo words nobody wrote. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define GROUP_SIZE 256
groupshared uint tile[GROUP_SIZE + 2];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    tile[gi + 1] = In[dtid.x];
    GroupMemoryBarrierWithGroupSync();

    Out[dtid.x] = (tile[gi] + 2 * tile[gi + 1] + tile[gi + 2]) / 4;
}
