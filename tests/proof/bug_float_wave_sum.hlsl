// Float sum of 1/(1+x) per group via WaveActiveSum, written with asuint.
// Bug: float addition is not associative, so the stored bits depend on the
// order lanes (and waves) are added in. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

#define GROUP_SIZE 256
groupshared float partial[GROUP_SIZE / 4]; // one slot per wave, at most 64 waves

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    uint lanes = WaveGetLaneCount();
    float w = 1.0f / (float)(In[dtid.x] + 1);
    float s = WaveActiveSum(w);
    if (WaveIsFirstLane())
        partial[gi / lanes] = s;
    GroupMemoryBarrierWithGroupSync();

    if (gi == 0)
    {
        float total = 0.0f;
        for (uint i = 0; i < GROUP_SIZE / lanes; i++)
            total += partial[i];
        Out[gid.x] = asuint(total);
    }
}
