RWStructuredBuffer<uint> Out : register(u0);
groupshared uint count;
[numthreads(64, 1, 1)]
void main(uint gi : SV_GroupIndex)
{
    uint slot;
    InterlockedAdd(count, 1u, slot); // FINDING: uninitialized-groupshared
    GroupMemoryBarrierWithGroupSync();
    Out[gi] = count;
}
