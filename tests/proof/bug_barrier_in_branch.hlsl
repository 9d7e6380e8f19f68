// Folds the large inputs into a shared tile. Bug: the barrier sits inside a
// data-dependent branch, so only some threads of each wave reach it. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint tile[256];

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint v = In[dtid.x];
    tile[gi] = v;

    if (v >= 128)
    {
        GroupMemoryBarrierWithGroupSync();
        Out[dtid.x] = v + tile[255 - gi];
    }
}
