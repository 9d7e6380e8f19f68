// Tree reduction of 64 values. Bug: the guard is `gi <= s` instead of
// `gi < s`, so thread s reads tile[2s] (past the tile in round one) and races. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint tile[64];

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    tile[gi] = In[dtid.x];
    GroupMemoryBarrierWithGroupSync();

    for (uint s = 32; s > 0; s >>= 1)
    {
        if (gi <= s)
            tile[gi] += tile[gi + s];
        GroupMemoryBarrierWithGroupSync();
    }

    if (gi == 0)
        Out[gid.x] = tile[0];
}
