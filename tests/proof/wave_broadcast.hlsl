// Scalarises group-uniform values with WaveReadLaneFirst and
// WaveReadLaneAt(v, 0) before using them to index and scale. Clean. (numthreads 256)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(256, 1, 1)]
void main(uint3 gid : SV_GroupID, uint gi : SV_GroupIndex)
{
    // Both values are the same on every lane of the group.
    uint base = WaveReadLaneFirst(gid.x * 256);
    uint scale = WaveReadLaneAt(In[gid.x] + 1, 0);

    Out[base + gi] = In[base + gi] * scale;
}
