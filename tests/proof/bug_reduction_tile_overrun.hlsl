// Tree reduction of 256 values. Bug: the stride starts at GROUP_SIZE instead
// of GROUP_SIZE / 2, so the first round reads tile[gi + 256], past the tile. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define GROUP_SIZE 256
groupshared uint tile[GROUP_SIZE];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    tile[gi] = In[dtid.x];
    GroupMemoryBarrierWithGroupSync();

    for (uint s = GROUP_SIZE; s > 0; s >>= 1)
    {
        if (gi < s)
            tile[gi] += tile[gi + s];
        GroupMemoryBarrierWithGroupSync();
    }

    if (gi == 0)
        Out[gid.x] = tile[0];
}
