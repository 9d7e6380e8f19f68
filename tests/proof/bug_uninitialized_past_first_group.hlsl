// Each wave's first lane stores its wave's maximum; the first thread then
// reads them all. Bug: only where the group's first input is odd are the
// maxima stored, so a group with an even first input (the second, here)
// reads words nobody stored. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint best[16];

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint m = WaveActiveMax(In[dtid.x]);
    uint first = In[gid.x * 64];
    if (WaveIsFirstLane() && (first & 1) == 1)
        best[gi / WaveGetLaneCount()] = m;
    GroupMemoryBarrierWithGroupSync();
    if (gi == 0)
    {
        uint waves = (64 + WaveGetLaneCount() - 1) / WaveGetLaneCount();
        uint r = 0;
        for (uint w = 0; w < waves; w++)
            r = max(r, best[w]);
        Out[gid.x] = r;
    }
}
