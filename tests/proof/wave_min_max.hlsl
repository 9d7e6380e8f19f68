// Group min and max: WaveActiveMin/Max per wave, folded into groupshared with
// InterlockedMin/Max by each wave's first lane. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

groupshared uint groupMin;
groupshared uint groupMax;

[numthreads(256, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    if (gi == 0)
    {
        groupMin = 0xFFFFFFFF;
        groupMax = 0;
    }
    GroupMemoryBarrierWithGroupSync();

    uint v = In[dtid.x];
    uint waveMin = WaveActiveMin(v);
    uint waveMax = WaveActiveMax(v);
    if (WaveIsFirstLane())
    {
        InterlockedMin(groupMin, waveMin);
        InterlockedMax(groupMax, waveMax);
    }
    GroupMemoryBarrierWithGroupSync();

    if (gi == 0)
    {
        Out[gid.x * 2] = groupMin;
        Out[gid.x * 2 + 1] = groupMax;
    }
}
