// Every thread counts itself into a group counter, then reads the count.
// Bug: the read comes before the barrier, so it races with the other
// waves' additions and sees a partial count. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWByteAddressBuffer Total : register(u1);

groupshared uint Count;

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    if (gi == 0)
        Count = 0;
    GroupMemoryBarrierWithGroupSync();
    InterlockedAdd(Count, 1u);
    uint seen = Count;
    GroupMemoryBarrierWithGroupSync();
    Out[dtid.x] = seen + In[dtid.x];
}
