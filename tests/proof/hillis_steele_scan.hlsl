// Hillis-Steele inclusive prefix sum over each group, ping-ponging between
// two halves of a groupshared buffer with one barrier per round. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define N 256
groupshared uint temp[2 * N];

[numthreads(N, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint pout = 0;
    uint pin = 1;
    temp[pout * N + gi] = In[dtid.x];
    GroupMemoryBarrierWithGroupSync();

    for (uint offset = 1; offset < N; offset <<= 1)
    {
        pout = 1 - pout;
        pin = 1 - pout;
        uint v = temp[pin * N + gi];
        if (gi >= offset)
            v += temp[pin * N + gi - offset];
        temp[pout * N + gi] = v;
        GroupMemoryBarrierWithGroupSync();
    }

    Out[dtid.x] = temp[pout * N + gi];
}
