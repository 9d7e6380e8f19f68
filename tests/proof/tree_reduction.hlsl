// Groupshared tree reduction of each group's 256 inputs, then every thread
// scales its input by the group total. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define GROUP_SIZE 256
groupshared uint tile[GROUP_SIZE];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    tile[gi] = In[dtid.x];
    GroupMemoryBarrierWithGroupSync();

    for (uint s = GROUP_SIZE / 2; s > 0; s >>= 1)
    {
        if (gi < s)
            tile[gi] += tile[gi + s];
        GroupMemoryBarrierWithGroupSync();
    }

    // Per-mille share of the group total.
    Out[dtid.x] = (In[dtid.x] * 1000) / (tile[0] + 1);
}
