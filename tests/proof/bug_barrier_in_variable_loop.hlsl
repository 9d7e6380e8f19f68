// Repeated smoothing passes over a shared tile. Bug: the number of passes
// depends on the thread's input and the loop body holds barriers. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint tile[256];

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint v = In[dtid.x];
    uint passes = v % 4;
    tile[gi] = v;
    GroupMemoryBarrierWithGroupSync();

    for (uint i = 0; i < passes; i++)
    {
        uint left = tile[(gi + 255) & 255];
        GroupMemoryBarrierWithGroupSync();
        tile[gi] = (left + tile[gi]) / 2;
        GroupMemoryBarrierWithGroupSync();
    }

    Out[dtid.x] = tile[gi];
}
