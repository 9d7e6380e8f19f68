// Difference with the next element via a lane shuffle. Bug: the last lane of
// each wave reads lane WaveGetLaneIndex() + 1, which is past the wave. (numthreads 64)
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 dtid : SV_DispatchThreadID)
{
    uint v = In[dtid.x];
    uint next = WaveReadLaneAt(v, WaveGetLaneIndex() + 1);
    Out[dtid.x] = next - v;
}
