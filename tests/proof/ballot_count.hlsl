// Counts the group's inputs >= 128 with WaveActiveBallot and countbits, one
// groupshared atomic per wave. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint count;

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    if (gi == 0)
        count = 0;
    GroupMemoryBarrierWithGroupSync();

    uint4 ballot = WaveActiveBallot(In[dtid.x] >= 128);
    uint n = countbits(ballot.x) + countbits(ballot.y)
           + countbits(ballot.z) + countbits(ballot.w);
    if (WaveIsFirstLane())
        InterlockedAdd(count, n);
    GroupMemoryBarrierWithGroupSync();

    if (gi == 0)
        Out[gid.x] = count;
}
