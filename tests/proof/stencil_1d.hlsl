// 3-point smoothing stencil reading neighbours from a groupshared tile; the
// tile's edge threads reuse their own value instead of reading past it. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define GROUP_SIZE 256
groupshared uint tile[GROUP_SIZE];

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint c = In[dtid.x];
    tile[gi] = c;
    GroupMemoryBarrierWithGroupSync();

    uint l = c;
    uint r = c;
    if (gi > 0)
        l = tile[gi - 1];
    if (gi < GROUP_SIZE - 1)
        r = tile[gi + 1];

    Out[dtid.x] = (l + 2 * c + r) / 4;
}
