// Tree reduction with signed loop counters; each thread writes the sum of
// the other 63 inputs of its group. Clean. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint tile[64];

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gtid : SV_GroupThreadID)
{
    int i = (int)gtid.x;
    uint mine = In[dtid.x];
    tile[i] = mine;
    GroupMemoryBarrierWithGroupSync();

    for (int s = 32; s > 0; s >>= 1)
    {
        if (i < s)
            tile[i] += tile[i + s];
        GroupMemoryBarrierWithGroupSync();
    }

    Out[dtid.x] = tile[0] - mine;
}
