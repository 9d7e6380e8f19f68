// Blelloch work-efficient exclusive scan of 256 values per group (up-sweep,
// clear the root, down-sweep). Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define N 256
groupshared uint temp[N];
[numthreads(N, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    temp[gi] = In[dtid.x];
    uint offset = 1;
    for (uint d = N >> 1; d > 0; d >>= 1)
    {
        GroupMemoryBarrierWithGroupSync();
        if (gi < d)
        {
            uint ai = offset * (2 * gi + 1) - 1;
            uint bi = offset * (2 * gi + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset <<= 1;
    }
    if (gi == 0)
        temp[N - 1] = 0;
    for (uint d2 = 1; d2 < N; d2 <<= 1)
    {
        offset >>= 1;
        GroupMemoryBarrierWithGroupSync();
        if (gi < d2)
        {
            uint ai = offset * (2 * gi + 1) - 1;
            uint bi = offset * (2 * gi + 2) - 1;
            uint t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    GroupMemoryBarrierWithGroupSync();
    Out[dtid.x] = temp[gi];
}
