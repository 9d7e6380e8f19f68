// A per-group count of odd inputs. Bug: thread 0 resets the counter with
// no barrier before the other waves add to it, so a wave that adds first
// loses its count when the reset lands. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);
RWByteAddressBuffer Total : register(u1);

groupshared uint Count;

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    if (gi == 0)
        Count = 0;
    if (In[dtid.x] & 1u)
        InterlockedAdd(Count, 1u);
    GroupMemoryBarrierWithGroupSync();
    Out[dtid.x] = Count;
}
