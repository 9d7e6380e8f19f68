// Hillis-Steele inclusive scan. Bug: it updates one groupshared array in
// place, so a round reads words that other waves overwrite in the same round. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define N 256
groupshared uint tile[N];

[numthreads(N, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    tile[gi] = In[dtid.x];
    GroupMemoryBarrierWithGroupSync();

    for (uint offset = 1; offset < N; offset <<= 1)
    {
        if (gi >= offset)
            tile[gi] += tile[gi - offset];
        GroupMemoryBarrierWithGroupSync();
    }

    Out[dtid.x] = tile[gi];
}
