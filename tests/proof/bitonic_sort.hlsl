// Bitonic sort of each group's 256 keys in groupshared memory, ascending,
// with a barrier after every compare-exchange pass. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define N 256
groupshared uint keys[N];

[numthreads(N, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    keys[gi] = In[dtid.x];
    GroupMemoryBarrierWithGroupSync();

    for (uint k = 2; k <= N; k <<= 1)
    {
        for (uint j = k >> 1; j > 0; j >>= 1)
        {
            uint ixj = gi ^ j;
            if (ixj > gi)
            {
                uint a = keys[gi];
                uint b = keys[ixj];
                bool ascending = (gi & k) == 0;
                if ((a > b) == ascending)
                {
                    keys[gi] = b;
                    keys[ixj] = a;
                }
            }
            GroupMemoryBarrierWithGroupSync();
        }
    }

    Out[dtid.x] = keys[gi];
}
