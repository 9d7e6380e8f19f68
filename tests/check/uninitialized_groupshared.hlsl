RWStructuredBuffer<uint> Out : register(u0);
groupshared uint g[64];
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    if (gi < 32)
        g[gi] = gi;
    GroupMemoryBarrierWithGroupSync();
    Out[gi] = g[gi]; // FINDING: uninitialized-groupshared
}
