RWStructuredBuffer<uint> Out : register(u0);
groupshared uint g[64];
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    g[gi] = gi;
    if (gi % 2 == 0)
    {
        GroupMemoryBarrierWithGroupSync(); // FINDING: divergent-barrier
        Out[gi] = g[gi + 1];
    }
}
