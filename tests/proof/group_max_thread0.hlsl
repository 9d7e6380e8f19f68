// Max reduction over a group of 256 with only thread 0 writing the group's
// result to Out[group]. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint tile[256];

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    tile[gi] = In[dtid.x];
    GroupMemoryBarrierWithGroupSync();

    for (uint s = 128; s > 0; s >>= 1)
    {
        if (gi < s)
            tile[gi] = max(tile[gi], tile[gi + s]);
        GroupMemoryBarrierWithGroupSync();
    }

    if (gi == 0)
        Out[gid.x] = tile[0];
}
